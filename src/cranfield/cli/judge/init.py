"""``cranfield judge init PROJECT --pool RUN... --topics FILE --docs FILE``: a judging project.

Pools the runs (depth ``--pool-depth``, :func:`cranfield.lab.pooling.pool`), reads the topics
(TREC SGML/XML, ``query_id<TAB>title`` lines or JSON Lines; or an ir_datasets id, whose
queries are read from ir_datasets' local cache, never downloaded) and the documents (JSON
Lines or TSV of ``doc_id``, ``title``, ``text``), and writes the project folder with its database
(SQLite in WAL mode, or ``--db postgresql://...``). Every pooled topic must be in the topics
file and every pooled document in the documents file.

Exit codes: 0 success, 1 usage error, 2 bad input (unreadable file, a pooled topic or document
missing, a folder that is not empty).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

from cranfield.cli.exits import run_command
from cranfield.cli.parser import Parser, add_seed, positive_int

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

PROG: Final = "cranfield judge init"


def main(argv: Sequence[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``cranfield judge init`` with ``argv``."""
    return run_command(PROG, _parser, _run, argv, stdout=stdout, stderr=stderr)


def _parser(out: TextIO, err: TextIO) -> Parser:
    p = Parser(
        prog=PROG,
        description="Make a judging project: the runs' depth-k pool, its topics and documents, "
        "and a database (SQLite in the folder, or PostgreSQL).",
        out=out,
        err=err,
    )
    p.add_argument("project", type=Path, metavar="PROJECT", help="the project folder to make")
    p.add_argument(
        "--pool", nargs="+", required=True, metavar="RUN", help="the runs to pool (any run format)"
    )
    p.add_argument(
        "--topics",
        required=True,
        metavar="FILE",
        help="topics: TREC SGML or XML, query_id<TAB>title lines, or JSON Lines; or an "
        "ir_datasets id (e.g. msmarco-passage/trec-dl-2019/judged), read from ir_datasets' "
        "local cache, never downloaded",
    )
    p.add_argument(
        "--docs",
        type=Path,
        required=True,
        metavar="FILE",
        help="documents: JSON Lines or TSV of doc_id, title, text",
    )
    p.add_argument(
        "--pool-depth",
        type=positive_int,
        default=100,
        metavar="K",
        help="pool depth: each run's top K documents of a topic are pooled (default 100)",
    )
    p.add_argument(
        "--grades",
        metavar="GRADES",
        help="the graded scale, 'DIGIT=wording,...' (default: 0=Not relevant,1=Related,"
        "2=Highly relevant,3=Perfectly relevant)",
    )
    add_seed(p, "the shuffle of each topic's pool")
    p.add_argument(
        "--db",
        metavar="URL",
        help="the database: postgresql://user@host/name (default: SQLite in the project folder)",
    )
    return p


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from cranfield.errors import OptionError
    from cranfield.workbench import DEFAULT_SCALE, create_project, parse_scale

    try:
        scale = DEFAULT_SCALE if args.grades is None else parse_scale(args.grades)
    except OptionError as exc:  # the library's 'scale' is this command's --grades
        raise OptionError("grades", exc.expected, exc.value, note=exc.note) from None
    project = create_project(
        args.project,
        runs=args.pool,
        topics=args.topics,
        documents=args.docs,
        pool_depth=args.pool_depth,
        scale=scale,
        seed=args.seed,
        db=args.db,
    )
    s = project.settings()
    order = project.order()
    out.write(
        f"{args.project}: {len(order)} topics, {s['pooled']} pooled documents from "
        f"{len(project.runs())} runs at pool depth {s['pool_depth']}, shuffled with seed "
        f"{s['seed']}; scale {', '.join(f'{g}={w}' for g, w in s['scale'])}; database "
        f"{project.engine.dialect.name}.\n"
    )
    if s["topics_left_out"] or s["documents_left_out"]:
        out.write(
            f"Left out: {_count(s['topics_left_out'], 'topic')} of {args.topics} that no run "
            f"answers, {_count(s['documents_left_out'], 'document')} of {args.docs} that no run "
            "pooled.\n"
        )
    out.write(
        f"Next: cranfield judge assessor add {args.project} NAME --query ID,...; "
        f"cranfield judge serve {args.project}\n"
    )
    project.close()
    return 0


def _count(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
