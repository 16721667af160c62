"""Versioned prompt templates of a model judge, and the strict reading of its answer.

A template is a text file: header lines ``# key: value`` (``name``, ``version``, ``answer``: a
regular expression whose one group is the grade, searched in the whole answer; ``about``), a
line ``---``, then the prompt with ``{query}`` and ``{passage}`` where the query's and the
passage's texts go (no other braces are read). cranfield ships two (package data, ``cranfield
judges ask --prompt NAME``):

``umbrela``
    UMBRELA-style (Upadhyay et al. 2024, after Thomas et al. 2024), in our words: intent,
    match (M), trustworthiness (T), then a final line ``##final score: N``.
``llmjudge``
    The LLMJudge challenge's sample prompt as published (MIT licence); the answer is the grade
    alone.

A user's own template is a path to such a file. A template's identity, part of every cache key,
is its name, its version and the SHA-256 of its text: editing a template without changing its
version still never reuses an answer to the old text.

An answer is read strictly: the ``answer`` expression must match exactly once and its grade
must lie on the scale; anything else (no grade, two grades, a grade off the scale) is a
malformed answer, kept verbatim and never guessed at.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Final

from cranfield.errors import InputError, OptionError

__all__ = ["SHIPPED", "PromptTemplate", "load_template", "parse_grade"]

SHIPPED: Final = ("umbrela", "llmjudge")
"""The templates that ship with cranfield, by name (the newest version of each)."""


@dataclass(frozen=True)
class PromptTemplate:
    """One prompt template.

    Attributes
    ----------
    name, version:
        How it is called; a new wording gets a new version.
    text:
        The prompt, with ``{query}`` and ``{passage}``.
    answer:
        The expression whose one group is the grade.
    about:
        One line on where it comes from.
    digest:
        SHA-256 of :attr:`text` (hex): part of the cache key.
    """

    name: str
    version: str
    text: str
    answer: str
    about: str
    digest: str

    @property
    def identity(self) -> str:
        """``name-version`` and the first 12 hex digits of the digest."""
        return f"{self.name}-{self.version}@{self.digest[:12]}"

    def render(self, query: str, passage: str) -> str:
        """The prompt for one (query, passage) pair."""
        return self.text.replace("{query}", query).replace("{passage}", passage)


def _parse(text: str, source: str) -> PromptTemplate:
    head, sep, body = text.partition("\n---\n")
    if not sep:
        raise InputError(source, None, "has no line '---' between the header and the prompt")
    fields: dict[str, str] = {}
    for number, line in enumerate(head.splitlines(), start=1):
        key, colon, value = line.removeprefix("#").partition(":")
        if not line.startswith("#") or not colon:
            raise InputError(source, number, "is not a header line '# key: value'", line)
        fields[key.strip()] = value.strip()
    for key in ("name", "version", "answer"):
        if not fields.get(key):
            raise InputError(source, None, f"has no '# {key}:' header line")
    try:
        pattern = re.compile(fields["answer"], re.MULTILINE)
    except re.error as exc:
        raise InputError(
            source, None, f"has an answer expression that is not valid ({exc})"
        ) from None
    if pattern.groups != 1:
        raise InputError(source, None, "has an answer expression without exactly one group")
    if "{query}" not in body or "{passage}" not in body:
        raise InputError(source, None, "has a prompt without {query} and {passage}")
    return PromptTemplate(
        name=fields["name"],
        version=fields["version"],
        text=body,
        answer=fields["answer"],
        about=fields.get("about", ""),
        digest=hashlib.sha256(body.encode("utf-8")).hexdigest(),
    )


def load_template(name_or_path: str | Path) -> PromptTemplate:
    """A shipped template by name (:data:`SHIPPED`), or a template file by path."""
    if isinstance(name_or_path, str) and name_or_path in SHIPPED:
        folder = resources.files("cranfield.judges") / "prompts"
        found = sorted(
            (p for p in folder.iterdir() if p.name.startswith(f"{name_or_path}-")),
            key=lambda p: int(p.name.rsplit("-", 1)[1].removesuffix(".txt")),
        )
        return _parse(found[-1].read_text(encoding="utf-8"), f"<{name_or_path}>")
    path = Path(name_or_path)
    if not path.is_file():
        raise OptionError(
            "prompt", f"one of {', '.join(SHIPPED)} or a template file", str(name_or_path)
        )
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeError) as exc:
        raise InputError(str(path), None, f"cannot be read ({exc})") from None
    return _parse(text, str(path))


def parse_grade(template: PromptTemplate, answer: str, scale: tuple[int, int]) -> int | None:
    """The grade of ``answer``, or ``None`` when it is malformed (module documentation).

    Examples
    --------
    >>> t = load_template("umbrela")
    >>> parse_grade(t, "M=2, T=1\\n##final score: 2", (0, 3))
    2
    >>> parse_grade(t, "I would say 2 or 3", (0, 3)) is None
    True
    """
    found = re.findall(template.answer, answer, flags=re.MULTILINE)
    if len(found) != 1:
        return None
    try:
        grade = int(found[0])
    except ValueError:
        return None
    return grade if scale[0] <= grade <= scale[1] else None
