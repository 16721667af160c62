// cranfield HTML report: sorting, filtering and paging of the per-query table.
// Every value comes from the JSON block #cranfield-data and reaches the page through
// textContent only (never innerHTML), so query ids and run names are always shown as text.
(function () {
  "use strict";

  const EPS = 5e-7; // scores are stored rounded to 6 decimals: smaller differences are ties
  const data = JSON.parse(document.getElementById("cranfield-data").textContent);
  const runs = data.runs;
  const topics = data.topics;
  const n = topics.length;
  const lower = topics.map((t) => t.toLowerCase());
  const missing = runs.map((r) => new Set(data.missing[r] || []));
  const collator = new Intl.Collator("en", { numeric: true });
  const fmt = new Intl.NumberFormat("en");

  const table = document.getElementById("query-table");
  const thead = table.tHead;
  const tbody = table.tBodies[0];
  const tfoot = table.tFoot;
  const measureSelect = document.getElementById("measure-select");
  const refSelect = document.getElementById("reference-select");
  const filterInput = document.getElementById("query-filter");
  const sizeSelect = document.getElementById("page-size");
  const status = document.getElementById("page-status");
  const buttons = {
    first: document.getElementById("page-first"),
    prev: document.getElementById("page-prev"),
    next: document.getElementById("page-next"),
    last: document.getElementById("page-last"),
  };

  const state = {
    measure: 0,
    ref: data.reference,
    filter: "",
    key: null, // null: the order of the data (query ids, bytewise)
    dir: 1,
    page: 0,
    size: data.pageSize,
  };
  let rows = []; // indices into topics, filtered and sorted
  let columns = [];
  let scale = 1; // largest |difference| of the current measure and reference

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function scores(run) {
    return data.scores[data.measures[state.measure]][run];
  }

  function values(col) {
    if (col.kind === "score") return scores(col.run);
    const a = scores(col.run);
    const b = scores(state.ref);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = a[i] - b[i];
    return out;
  }

  function buildColumns() {
    columns = [{ key: "q", kind: "query", label: "query" }];
    runs.forEach((r, j) => columns.push({ key: "s" + j, kind: "score", run: j, label: r }));
    runs.forEach((r, j) => {
      if (j !== state.ref) {
        columns.push({ key: "d" + j, kind: "diff", run: j, label: "Δ " + r,
          title: r + " − " + runs[state.ref] });
      }
    });
    scale = 0;
    columns.forEach((c) => {
      if (c.kind !== "diff") return;
      c.data = values(c);
      for (let i = 0; i < n; i++) scale = Math.max(scale, Math.abs(c.data[i]));
    });
    columns.forEach((c) => { if (c.kind === "score") c.data = values(c); });
    if (!(scale > EPS)) scale = 1;
  }

  function shade(d) {
    if (Math.abs(d) < EPS) return "";
    const level = Math.min(3, 1 + Math.floor((Math.abs(d) / scale) * 3));
    return (d > 0 ? "up" : "dn") + level;
  }

  function number(v, signed) {
    if (v === null || v === undefined || Number.isNaN(v)) return "–";
    if (signed && Math.abs(v) < EPS) return "0.0000";
    const s = v.toFixed(4);
    return signed && v > 0 ? "+" + s : s;
  }

  function renderHead() {
    const tr = el("tr");
    columns.forEach((c) => {
      const th = el("th", null, c.kind === "query" ? "" : "num");
      th.scope = "col";
      th.setAttribute("aria-sort", state.key === c.key ? (state.dir > 0 ? "ascending" : "descending") : "none");
      const b = el("button", c.label);
      b.type = "button";
      b.dataset.key = c.key;
      b.title = (c.title || c.label) + ": click to sort";
      if (c.kind !== "query" && c.run === state.ref) th.classList.add("ref");
      th.appendChild(b);
      tr.appendChild(th);
    });
    thead.replaceChildren(tr);
  }

  function applyFilter() {
    const terms = state.filter.toLowerCase().split(/[\s,]+/).filter((t) => t.length > 0);
    rows = [];
    for (let i = 0; i < n; i++) {
      if (terms.length === 0 || terms.some((t) => lower[i].includes(t))) rows.push(i);
    }
  }

  function applySort() {
    if (state.key === null) {
      rows.sort((a, b) => a - b);
      return;
    }
    const dir = state.dir;
    if (state.key === "q") {
      rows.sort((a, b) => dir * collator.compare(topics[a], topics[b]) || a - b);
      return;
    }
    const col = columns.find((c) => c.key === state.key);
    const v = col.data;
    rows.sort((a, b) => dir * (v[a] - v[b]) || a - b);
  }

  function renderBody() {
    const pages = Math.max(1, Math.ceil(rows.length / state.size));
    state.page = Math.min(Math.max(0, state.page), pages - 1);
    const start = state.page * state.size;
    const end = Math.min(rows.length, start + state.size);
    const frag = document.createDocumentFragment();
    for (let r = start; r < end; r++) {
      const i = rows[r];
      const tr = el("tr");
      const th = el("th", topics[i], topics[i].length > 24 ? "long" : "");
      th.scope = "row";
      tr.appendChild(th);
      for (let c = 1; c < columns.length; c++) {
        const col = columns[c];
        const v = col.data[i];
        const td = el("td", number(v, col.kind === "diff"), "num");
        if (col.run === state.ref && col.kind === "score") {
          td.classList.add("ref");
        } else {
          const d = col.kind === "diff" ? v : v - scores(state.ref)[i];
          const cls = shade(d);
          if (cls) td.classList.add(cls);
        }
        if (col.kind === "score" && missing[col.run].has(topics[i])) {
          const m = el("span", "†", "miss");
          m.title = "no ranking for this query in the run (scored 0)";
          td.appendChild(m);
        }
        tr.appendChild(td);
      }
      frag.appendChild(tr);
    }
    if (rows.length === 0) {
      const tr = el("tr");
      const td = el("td", "No query id matches the filter.", "empty");
      td.colSpan = columns.length;
      tr.appendChild(td);
      frag.appendChild(tr);
    }
    tbody.replaceChildren(frag);
    renderFoot();
    const shown = rows.length === 0 ? "0" : fmt.format(start + 1) + "–" + fmt.format(end);
    let text = "Queries " + shown + " of " + fmt.format(rows.length);
    if (rows.length !== n) text += " (filtered from " + fmt.format(n) + ")";
    text += "; page " + fmt.format(state.page + 1) + " of " + fmt.format(pages);
    status.textContent = text;
    buttons.first.disabled = buttons.prev.disabled = state.page === 0;
    buttons.next.disabled = buttons.last.disabled = state.page >= pages - 1;
  }

  function renderFoot() {
    const tr = el("tr");
    const th = el("th", "mean of " + fmt.format(rows.length) + (rows.length === 1 ? " query" : " queries"));
    th.scope = "row";
    tr.appendChild(th);
    for (let c = 1; c < columns.length; c++) {
      const col = columns[c];
      let sum = 0;
      for (const i of rows) sum += col.data[i];
      const mean = rows.length ? sum / rows.length : NaN;
      tr.appendChild(el("td", number(mean, col.kind === "diff"), "num"));
    }
    tfoot.replaceChildren(tr);
  }

  function refresh(resetPage) {
    if (resetPage) state.page = 0;
    applyFilter();
    applySort();
    renderHead();
    renderBody();
  }

  thead.addEventListener("click", (event) => {
    const b = event.target.closest("button[data-key]");
    if (!b) return;
    const key = b.dataset.key;
    if (state.key === key) {
      state.dir = -state.dir;
    } else {
      state.key = key;
      state.dir = key === "q" ? 1 : -1; // scores: best first
    }
    refresh(true);
  });
  measureSelect.addEventListener("change", () => {
    state.measure = Number(measureSelect.value);
    buildColumns();
    refresh(false);
  });
  refSelect.addEventListener("change", () => {
    state.ref = Number(refSelect.value);
    if (state.key !== null && state.key.startsWith("d")) state.key = null;
    buildColumns();
    refresh(false);
  });
  filterInput.addEventListener("input", () => {
    state.filter = filterInput.value;
    refresh(true);
  });
  sizeSelect.addEventListener("change", () => {
    state.size = Number(sizeSelect.value);
    refresh(true);
  });
  buttons.first.addEventListener("click", () => { state.page = 0; renderBody(); });
  buttons.prev.addEventListener("click", () => { state.page -= 1; renderBody(); });
  buttons.next.addEventListener("click", () => { state.page += 1; renderBody(); });
  buttons.last.addEventListener("click", () => { state.page = Number.MAX_SAFE_INTEGER; renderBody(); });

  measureSelect.value = String(state.measure);
  refSelect.value = String(state.ref);
  sizeSelect.value = String(state.size);
  filterInput.value = "";
  buildColumns();
  refresh(true);
  document.getElementById("per-query-controls").hidden = false;
  table.dataset.ready = "true";
  performance.mark("cranfield-ready");
})();
