// The judging screen's keys. Served as a file: the Content-Security-Policy allows no inline script.
"use strict";
(function () {
  function click(id) {
    const el = document.getElementById(id);
    if (el) { el.click(); return true; }
    return false;
  }
  function toggleHelp() {
    const help = document.getElementById("help");
    if (help) { help.hidden = !help.hidden; }
  }
  document.addEventListener("DOMContentLoaded", function () {
    const button = document.getElementById("help-button");
    if (button) { button.addEventListener("click", toggleHelp); }
    const form = document.getElementById("judge-form");
    if (form) {
      // one judgment per screen: a second key press while the first is sent does nothing
      form.addEventListener("submit", function (event) {
        if (form.dataset.sent === "true") { event.preventDefault(); }
        form.dataset.sent = "true";
      });
    }
  });
  document.addEventListener("keydown", function (event) {
    const target = event.target;
    if (target && (target.tagName === "TEXTAREA" || target.tagName === "INPUT")) {
      if (event.key === "Escape") { target.blur(); }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    const form = document.getElementById("judge-form");
    let done = false;
    if (/^[0-9]$/.test(event.key) && form) {
      const grade = form.querySelector('button[name="label"][value="' + event.key + '"]');
      if (grade) { grade.click(); done = true; }
    } else if (event.key === "s") {
      done = click("skip");
    } else if (event.key === "j") {
      done = click("next");
    } else if (event.key === "k") {
      done = click("previous");
    } else if (event.key === "u") {
      done = click("undo");
    } else if (event.key === "n") {
      const note = document.getElementById("note");
      if (note) { note.focus(); done = true; }
    } else if (event.key === "?") {
      toggleHelp(); done = true;
    }
    if (done) { event.preventDefault(); }
  });
})();
