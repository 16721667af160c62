"""``cranfield judges ask``: a model judge behind an OpenAI-compatible endpoint grades pairs.

The pairs are the depth-``--pool-depth`` pool of ``--runs`` less those ``--qrels`` already
judges (``--all-pairs``: every pooled pair), or the pairs of a qrels-format ``--pairs`` file
(its labels ignored). Each is sent with a versioned ``--prompt`` template to ``--url`` for
``--llm``; every answer is kept verbatim in the cache folder (``--cache``) and in
``--answers``, its grade read strictly; the graded pairs are written as qrels (``-o``). A rerun
with the same cache sends no request and writes the same qrels. ``--probe`` asks instead about
passages that only repeat each query (keyword stuffing): can the judge be gamed?

The API key comes from the environment variable named by ``--api-key-env`` (OPENAI_API_KEY by
default) and is written nowhere. Exit codes: 0 success (malformed and failed answers are
counted and kept, not fatal), 1 usage error, 2 bad input data (unreadable file, a pair without
a text) or an endpoint that cannot be used at all.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import Parser, UsageError, add_format, add_seed, positive_int

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield judges ask"
FORMATS: Final = ("table", "json")


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield judges ask`` with ``argv`` (the arguments after ``ask``)."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    from cranfield.cli.judges.combine import add_scale

    p = Parser(
        prog=PROG,
        description=(
            "Grade (query, passage) pairs with a model behind an OpenAI-compatible "
            "chat-completions endpoint: versioned prompts, strict grades, every answer kept, "
            "a content-addressed cache (a rerun sends nothing), bounded concurrency, rate and "
            "retries; or probe it with keyword-stuffed passages."
        ),
        out=out,
        err=err,
    )
    p.add_argument("--url", required=True, help="the API's base URL, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--llm", required=True, metavar="NAME", help="the model's name at the endpoint")
    p.add_argument(
        "--queries",
        dest="queries_file",
        required=True,
        metavar="FILE",
        help="query texts: TSV id<TAB>text or JSONL",
    )
    p.add_argument("--passages", metavar="FILE", help="passage texts: TSV id<TAB>text or JSONL")
    p.add_argument("--runs", nargs="+", metavar="RUN", help="runs whose pool is judged")
    p.add_argument(
        "--pool-depth",
        type=positive_int,
        default=10,
        metavar="K",
        help="each run's top K pooled (default 10)",
    )
    p.add_argument("--qrels", type=Path, help="pairs already judged: not asked again")
    p.add_argument("--all-pairs", action="store_true", help="ask about judged pool pairs too")
    p.add_argument(
        "--pairs", metavar="QRELS", help="ask about exactly these pairs (labels ignored)"
    )
    p.add_argument("--probe", action="store_true", help="keyword-stuffing probe instead of pairs")
    p.add_argument(
        "--prompt",
        default="umbrela",
        metavar="NAME|FILE",
        help="prompt template: umbrela (default), llmjudge, or a template file",
    )
    p.add_argument("--cache", metavar="DIR", help="folder of kept answers (default: none)")
    p.add_argument("--answers", metavar="FILE", help="write every answer, one JSON a line")
    p.add_argument("-o", "--output", metavar="FILE", help="write the graded pairs as qrels")
    p.add_argument(
        "--concurrency", type=int, default=4, metavar="N", help="requests at once (default 4)"
    )
    p.add_argument("--rate", type=float, metavar="R", help="most requests started a second")
    p.add_argument(
        "--retries",
        type=int,
        default=4,
        metavar="N",
        help="retries of a 429/5xx/time-out (default 4)",
    )
    p.add_argument(
        "--backoff",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="first wait before a retry, doubling (default 1)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="one request's time limit (default 120)",
    )
    p.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        metavar="NAME",
        help="environment variable holding the API key (default OPENAI_API_KEY)",
    )
    p.add_argument(
        "--temperature", type=float, default=0.0, help="sampling temperature (default 0)"
    )
    p.add_argument(
        "--max-tokens",
        type=int,
        default=512,
        metavar="N",
        help="longest answer, in tokens (default 512)",
    )
    p.add_argument(
        "--price",
        metavar="IN,OUT",
        help="prices per million prompt and completion tokens, for the cost",
    )
    add_seed(p, "the model's sampling, sent with every request")
    add_scale(p)
    add_format(p, FORMATS)
    return p


def _prices(text: str | None) -> tuple[float, float] | None:
    if text is None:
        return None
    try:
        a, b = (float(v) for v in text.split(","))
    except ValueError:
        raise UsageError(1, f"--price takes IN,OUT, two numbers, got {text!r}.") from None
    return a, b


def _run(  # noqa: PLR0912, PLR0915 -- one branch per source of pairs, per output
    args: argparse.Namespace, out: TextIO, err: TextIO
) -> int:
    import json

    from cranfield.cli.judges.combine import scale_of
    from cranfield.io.texts import read_texts
    from cranfield.judges.asking import judge_pairs, pairs_to_judge
    from cranfield.judges.endpoint import AnswerCache, ChatJudge
    from cranfield.judges.prompts import load_template
    from cranfield.judges.report import asked_text, probe_text

    scale = scale_of(args.scale)
    prices = _prices(args.price)
    sources = sum(
        x is not None and x is not False for x in (args.runs, args.pairs, args.probe or None)
    )
    if sources != 1:
        raise UsageError(1, "give the pairs one way: --runs (a pool), --pairs, or --probe.")
    if not args.probe and args.passages is None:
        raise UsageError(1, "give the passages' texts (--passages FILE).")
    for option in ("output", "answers"):
        target = getattr(args, option)
        if target is not None:
            from cranfield.io.sink import refuse_overwriting

            inputs = [args.queries_file, args.passages, args.qrels, args.pairs, *(args.runs or [])]
            refuse_overwriting(target, [i for i in inputs if i], option=option)
    template = load_template(args.prompt)
    queries = read_texts(args.queries_file)
    judge = ChatJudge(
        args.url,
        args.llm,
        api_key_env=args.api_key_env,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        seed=args.seed,
        timeout=args.timeout,
        retries=args.retries,
        backoff=args.backoff,
        rate=args.rate,
    )
    cache = None if args.cache is None else AnswerCache(args.cache)
    try:
        if args.probe:
            from cranfield.judges.probe import stuffing_probe

            probe = stuffing_probe(
                queries,
                judge=judge,
                template=template,
                cache=cache,
                scale=scale,
                concurrency=args.concurrency,
            )
            asked = probe.asked
        else:
            probe = None
            if args.pairs is not None:
                from cranfield.io.load import load_qrels

                frame = load_qrels(args.pairs).frame
                pairs = sorted(set(frame.select("query_id", "doc_id").iter_rows()))
            else:
                pairs = pairs_to_judge(
                    args.runs,
                    depth=args.pool_depth,
                    qrels=args.qrels,
                    unjudged_only=not args.all_pairs,
                )
            asked = judge_pairs(
                pairs,
                queries=queries,
                passages=read_texts(args.passages),
                judge=judge,
                template=template,
                cache=cache,
                scale=scale,
                concurrency=args.concurrency,
            )
    finally:
        judge.close()
    if args.answers is not None:
        from cranfield.io.sink import write_text

        write_text(args.answers, asked.answers_jsonl())
    if args.output is not None and probe is None:
        from cranfield.io.formats import format_of_suffix, write

        write(asked.to_qrels(), args.output, format_of_suffix(args.output) or "trec")
    if args.format == "json":
        data = {
            "model": asked.model,
            "template": asked.template,
            "pairs": len(asked.pairs),
            "graded": asked.graded,
            "malformed": asked.malformed,
            "failed": asked.failed,
            "cached": asked.cached,
            "requests": asked.requests,
            "prompt_tokens": asked.tokens()[0],
            "completion_tokens": asked.tokens()[1],
            "cost": asked.cost(prices),
            "probe": None if probe is None else probe.to_dict(),
        }
        out.write(json.dumps(data, indent=2, allow_nan=False) + "\n")
    else:
        out.write(asked_text(asked, prices) if probe is None else probe_text(probe))
    return 0
