"""Asking a model judge for the grades of many (query, passage) pairs, reproducibly.

:func:`judge_pairs` sends each pair's prompt to a :class:`~cranfield.judges.endpoint.ChatJudge`
(at most ``concurrency`` at once), reading the :class:`~cranfield.judges.endpoint.AnswerCache`
first: an answer already kept is not asked again, so a rerun sends no request and gives the
same grades. Every answer received is kept verbatim, its grade read strictly
(:func:`~cranfield.judges.prompts.parse_grade`): a malformed answer is recorded with no grade,
never guessed at, and left out of the qrels; so is a pair whose request failed after its
retries (with the error), which is not cached, so that a rerun asks it again.

:func:`pairs_to_judge` picks the pairs: the depth-k pool of runs
(:func:`cranfield.lab.pooling.pool`) less the pairs the qrels already judge (a label >= 0), or
every pooled pair with ``unjudged_only=False``.
"""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cranfield._validate import check_int
from cranfield.errors import EngineError, InputError
from cranfield.judges.endpoint import AnswerCache
from cranfield.judges.prompts import PromptTemplate, parse_grade

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from cranfield.data.qrels import Qrels
    from cranfield.io.load import QrelsLike
    from cranfield.judges.endpoint import ChatJudge

__all__ = ["Asked", "JudgedPair", "judge_pairs", "pairs_to_judge"]


@dataclass(frozen=True)
class JudgedPair:
    """One pair asked.

    Attributes
    ----------
    query_id, doc_id:
        The pair.
    grade:
        The grade read from the answer; ``None`` when the answer was malformed or the request
        failed.
    answer:
        The answer's text verbatim (``None`` when the request failed).
    error:
        Why the request failed (``None`` when it did not).
    cached:
        Whether the answer came from the cache (no request sent).
    attempts, prompt_tokens, completion_tokens, seconds:
        Requests it took, tokens the server counted, time it took (0 for a cached answer).
    key:
        The cache key.
    """

    query_id: str
    doc_id: str
    grade: int | None
    answer: str | None
    error: str | None
    cached: bool
    attempts: int
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    key: str


@dataclass(frozen=True, eq=False)
class Asked:
    """What :func:`judge_pairs` returns: every pair asked, and what it cost."""

    pairs: tuple[JudgedPair, ...]
    template: str
    model: str
    requests: int
    seconds: float

    @property
    def graded(self) -> int:
        """Pairs with a grade."""
        return sum(p.grade is not None for p in self.pairs)

    @property
    def malformed(self) -> int:
        """Pairs whose answer gave no grade."""
        return sum(p.grade is None and p.answer is not None for p in self.pairs)

    @property
    def failed(self) -> int:
        """Pairs whose request failed."""
        return sum(p.answer is None for p in self.pairs)

    @property
    def cached(self) -> int:
        """Pairs answered from the cache."""
        return sum(p.cached for p in self.pairs)

    def tokens(self) -> tuple[int, int]:
        """Prompt and completion tokens of the answers received in this run (not cached)."""
        fresh = [p for p in self.pairs if not p.cached]
        return sum(p.prompt_tokens for p in fresh), sum(p.completion_tokens for p in fresh)

    def cost(self, prices: tuple[float, float] | None) -> float | None:
        """What this run's tokens cost at ``prices`` (per million prompt, completion tokens)."""
        if prices is None:
            return None
        prompt, completion = self.tokens()
        return (prompt * prices[0] + completion * prices[1]) / 1e6

    def to_qrels(self, name: str = "model") -> Qrels:
        """The graded pairs as qrels (malformed and failed pairs left out)."""
        import polars as pl

        from cranfield.io.load import load_qrels

        graded = [p for p in self.pairs if p.grade is not None]
        frame = pl.DataFrame(
            {
                "query_id": [p.query_id for p in graded],
                "doc_id": [p.doc_id for p in graded],
                "relevance": [p.grade for p in graded],
            },
            schema={"query_id": pl.String, "doc_id": pl.String, "relevance": pl.Int64},
        )
        return load_qrels(frame, name=name)

    def answers_jsonl(self) -> str:
        """Every answer, one JSON object a line (the raw record of the run)."""
        return "".join(
            json.dumps(
                {
                    "query_id": p.query_id,
                    "doc_id": p.doc_id,
                    "grade": p.grade,
                    "answer": p.answer,
                    "error": p.error,
                    "cached": p.cached,
                    "attempts": p.attempts,
                    "prompt_tokens": p.prompt_tokens,
                    "completion_tokens": p.completion_tokens,
                    "key": p.key,
                    "template": self.template,
                    "model": self.model,
                },
                ensure_ascii=False,
            )
            + "\n"
            for p in self.pairs
        )


def pairs_to_judge(
    runs: Sequence[Any],
    *,
    depth: int,
    qrels: QrelsLike | None = None,
    unjudged_only: bool = True,
) -> list[tuple[str, str]]:
    """The (query, document) pairs of the depth-``depth`` pool of ``runs`` to ask about:
    those ``qrels`` does not judge yet (``unjudged_only``), or all; sorted."""
    import polars as pl

    from cranfield.io.load import load_qrels
    from cranfield.lab.pooling import pool

    check_int("depth", depth, minimum=1)
    pooled = pool(list(runs), depth)
    pairs = list(pooled.frame.select("query_id", "doc_id").iter_rows())
    if qrels is not None and unjudged_only:
        frame = load_qrels(qrels).frame.filter(pl.col("relevance") >= 0)
        judged = set(frame.select("query_id", "doc_id").iter_rows())
        pairs = [p for p in pairs if p not in judged]
    return sorted(pairs, key=lambda p: (p[0].encode(), p[1].encode()))


def judge_pairs(  # noqa: PLR0913 -- the pairs, their texts, the judge and its settings
    pairs: Sequence[tuple[str, str]],
    *,
    queries: Mapping[str, str],
    passages: Mapping[str, str],
    judge: ChatJudge,
    template: PromptTemplate,
    cache: AnswerCache | None,
    scale: tuple[int, int] = (0, 3),
    concurrency: int = 4,
    clock: Callable[[], float] = time.monotonic,
) -> Asked:
    """Ask ``judge`` about every pair (module documentation).

    Raises
    ------
    InputError
        A pair whose query or passage has no text.
    """
    check_int("concurrency", concurrency, minimum=1)
    for q, d in pairs:
        if q not in queries:
            raise InputError("<queries>", None, f"has no text for query {q}")
        if d not in passages:
            raise InputError("<passages>", None, f"has no text for document {d}")
    start = clock()
    before = judge.requests

    def one(pair: tuple[str, str]) -> JudgedPair:
        q, d = pair
        identity = {
            "model": judge.model,
            "endpoint": judge.origin,
            "template": template.identity,
            "parameters": judge.parameters,
            "query_id": q,
            "query": queries[q],
            "doc_id": d,
            "passage": passages[d],
        }
        key = AnswerCache.key(identity)
        kept = None if cache is None else cache.get(key)
        if kept is not None and isinstance(kept.get("answer"), str):
            text = kept["answer"]
            return JudgedPair(
                q, d, parse_grade(template, text, scale), text, None, True, 0, 0, 0, 0.0, key
            )
        began = clock()
        try:
            answer = judge.ask(template.render(queries[q], passages[d]))
        except EngineError as exc:
            return JudgedPair(q, d, None, None, str(exc), False, 0, 0, 0, clock() - began, key)
        if cache is not None:
            cache.put(
                key,
                {
                    **identity,
                    "answer": answer.text,
                    "prompt_tokens": answer.prompt_tokens,
                    "completion_tokens": answer.completion_tokens,
                },
            )
        return JudgedPair(
            q,
            d,
            parse_grade(template, answer.text, scale),
            answer.text,
            None,
            False,
            answer.attempts,
            answer.prompt_tokens,
            answer.completion_tokens,
            clock() - began,
            key,
        )

    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        done = tuple(pool.map(one, pairs))
    return Asked(
        pairs=done,
        template=template.identity,
        model=judge.model,
        requests=judge.requests - before,
        seconds=clock() - start,
    )
