"""``judges ask``: the endpoint client against a scripted local server (issue 33, part 3).

The server (``chat_server.py``) listens on 127.0.0.1:0 and answers by markers in the passage:
well-formed, malformed, off-scale, busy (429), down (500), oversized, slow, not chat JSON.
Waits between retries go to a recorder, not to the clock: no test waits on wall-clock time
except the one slow answer, which the client gives up on after its time limit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cranfield.cli.main import main
from cranfield.errors import OptionError
from cranfield.judges.asking import judge_pairs, pairs_to_judge
from cranfield.judges.endpoint import AnswerCache, ChatJudge
from cranfield.judges.prompts import load_template, parse_grade
from tests.unit.judges.chat_server import ChatServer

QUERIES = {"q1": "what is wing flutter", "q2": "boundary layer transition"}
PASSAGES = {
    "d1": "Flutter is ... ANSWER=M=2, T=2\\n##final score: 3",
    "d2": "ANSWER=##final score: 2",
    "d3": "ANSWER=I think it is relevant, maybe 2 or 3",
    "d4": "ANSWER=##final score: 7",
    "d5": "BUSY ANSWER=##final score: 1",
    "d6": "DOWN",
    "d7": "HUGE",
    "d8": "NOTCHAT",
}
GOOD = [("q1", "d1"), ("q1", "d2"), ("q2", "d1")]


def _judge(server: ChatServer, waits: list[float], **kw: object) -> ChatJudge:
    settings: dict[str, object] = {
        "retries": 2,
        "backoff": 1.0,
        "max_response_bytes": 64 * 1024,
        "timeout": 5.0,
        "sleep": waits.append,
        **kw,
    }
    return ChatJudge(server.url, "test-model", api_key_env="", **settings)  # type: ignore[arg-type]


def _ask(judge: ChatJudge, pairs: list[tuple[str, str]], cache: AnswerCache | None) -> object:
    return judge_pairs(
        pairs,
        queries=QUERIES,
        passages=PASSAGES,
        judge=judge,
        template=load_template("umbrela"),
        cache=cache,
        concurrency=2,
    )


def test_every_kind_of_answer_is_kept_as_it_came(tmp_path: Path) -> None:
    waits: list[float] = []
    pairs = [("q1", d) for d in sorted(PASSAGES)]
    with ChatServer() as server:
        asked = _ask(_judge(server, waits), pairs, AnswerCache(tmp_path / "cache"))
    by = {p.doc_id: p for p in asked.pairs}  # type: ignore[attr-defined]
    assert {d: by[d].grade for d in by} == {
        "d1": 3,
        "d2": 2,
        "d3": None,  # malformed: recorded, not guessed
        "d4": None,  # 7 is off the scale
        "d5": 1,  # two 429s, then answered
        "d6": None,
        "d7": None,
        "d8": None,
    }
    assert by["d3"].answer == "I think it is relevant, maybe 2 or 3"
    assert by["d4"].answer == "##final score: 7"
    assert by["d5"].attempts == 3
    assert "answered HTTP 500" in (by["d6"].error or "")
    assert "over the limit of 65536 bytes" in (by["d7"].error or "")
    assert "did not answer as a chat-completions endpoint" in (by["d8"].error or "")
    # 429 twice then success; 500 three times (2 retries); oversized and not-chat: not retried
    assert (server.by_marker["BUSY"], server.by_marker["DOWN"]) == (3, 3)
    assert (server.by_marker["HUGE"], server.by_marker["NOTCHAT"]) == (1, 1)
    assert sorted(waits) == [1.0, 1.0, 2.0, 2.0]  # backoff 1 s, then 2 s, for d5 and d6
    assert (asked.graded, asked.malformed, asked.failed) == (3, 2, 3)  # type: ignore[attr-defined]
    assert asked.tokens() == (500, 35)  # type: ignore[attr-defined]
    assert server.most_in_flight <= 2
    assert server.bodies[0]["temperature"] == 0.0
    assert server.bodies[0]["model"] == "test-model"


def test_a_rerun_sends_nothing_and_gives_the_same_qrels(tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "cache")
    waits: list[float] = []
    with ChatServer() as server:
        first = _ask(_judge(server, waits), GOOD, cache)
        sent = server.requests
        second = _ask(_judge(server, waits), GOOD, cache)
        assert server.requests == sent == 3  # the second run sent zero requests
    assert second.cached == 3
    assert second.requests == 0
    assert (
        first.to_qrels().to_dict()
        == second.to_qrels().to_dict()
        == {  # type: ignore[attr-defined]
            "q1": {"d1": 3, "d2": 2},
            "q2": {"d1": 3},
        }
    )
    # another template version, model or parameter is another key: asked again
    with ChatServer() as server:
        _ask(_judge(server, waits, temperature=0.5), GOOD[:1], cache)
        assert server.requests == 1


def test_a_slow_answer_times_out_and_is_retried_within_limits() -> None:
    waits: list[float] = []
    with ChatServer(slow_seconds=5.0) as server:
        judge = _judge(server, waits, timeout=1.0, retries=1)
        asked = judge_pairs(
            [("q1", "d9")],
            queries=QUERIES,
            passages={"d9": "SLOW"},
            judge=judge,
            template=load_template("umbrela"),
            cache=None,
        )
    (pair,) = asked.pairs
    assert pair.grade is None
    assert "did not answer within 1 s" in (pair.error or "")
    assert judge.requests == 2  # (a loaded server may not have read the second one yet)
    assert waits == [1.0]


def test_the_rate_is_bounded_without_waiting() -> None:
    waits: list[float] = []
    now = [0.0]
    with ChatServer() as server:
        judge = _judge(server, waits, rate=4.0, clock=lambda: now[0])
        for _ in range(3):
            judge.ask("ANSWER=##final score: 1")
    assert waits == [0.25, 0.5]  # the clock stood still: 4 a second means 0.25 s apart


def test_strict_grades_and_shipped_templates() -> None:
    umbrela, sample = load_template("umbrela"), load_template("llmjudge")
    assert (umbrela.name, umbrela.version, sample.name) == ("umbrela", "1", "llmjudge")
    assert parse_grade(sample, " 2\n", (0, 3)) == 2
    assert parse_grade(sample, "Score: 2", (0, 3)) is None
    assert parse_grade(umbrela, "##final score: 1\n##final score: 2", (0, 3)) is None
    assert "[what is wing flutter]" in sample.render("what is wing flutter", "text")
    with pytest.raises(OptionError):
        load_template("no-such-template")


def test_only_unjudged_pool_documents_by_default(tmp_path: Path) -> None:
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq1 Q0 d3 3 1.0 r\n")
    other = tmp_path / "other.txt"
    other.write_text("q1 Q0 d4 1 3.0 s\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d1 2\nq1 0 d2 -1\n")
    runs = [str(run), str(other)]
    assert pairs_to_judge(runs, depth=2, qrels=qrels) == [("q1", "d2"), ("q1", "d4")]
    assert pairs_to_judge(runs, depth=2, qrels=qrels, unjudged_only=False) == [
        ("q1", "d1"),
        ("q1", "d2"),
        ("q1", "d4"),
    ]


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    queries = tmp_path / "queries.tsv"
    queries.write_text("".join(f"{q}\t{t}\n" for q, t in QUERIES.items()))
    passages = tmp_path / "passages.jsonl"
    passages.write_text(
        "".join(json.dumps({"id": d, "text": t}) + "\n" for d, t in PASSAGES.items())
    )
    pairs = tmp_path / "pairs.txt"
    pairs.write_text("q1 0 d1 0\nq1 0 d2 0\nq2 0 d1 0\nq1 0 d3 0\n")
    return queries, passages, pairs


def test_the_command_caches_counts_and_writes_no_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-test-0123456789-very-secret"
    monkeypatch.setenv("CRANFIELD_TEST_KEY", secret)
    queries, passages, pairs = _files(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    with ChatServer() as server:
        argv = [
            "judges", "ask", "--url", server.url, "--llm", "test-model",
            "--queries", str(queries), "--passages", str(passages), "--pairs", str(pairs),
            "--cache", str(out / "cache"), "--api-key-env", "CRANFIELD_TEST_KEY",
            "--answers", str(out / "answers.jsonl"), "-o", str(out / "model.qrels"),
            "--price", "1,2",
        ]  # fmt: skip
        assert main(argv) == 0
        first = capsys.readouterr()
        assert server.requests == 4
        assert set(server.authorizations) == {f"Bearer {secret}"}
        (out / "model.qrels").rename(out / "first.qrels")
        assert main([*argv[:-4], "-o", str(out / "model.qrels"), "-f", "json"]) == 0
        second = capsys.readouterr()
        assert server.requests == 4  # the rerun sent zero requests
    assert (
        (out / "model.qrels").read_text()
        == (out / "first.qrels").read_text()
        == ("q1 0 d1 3\nq1 0 d2 2\nq2 0 d1 3\n")
    )
    assert "4 graded" not in first.out
    assert "3 graded, 1 malformed" in first.out
    assert "cost:       0.0005" in first.out  # (400 prompt x 1 + 28 completion x 2) / 1e6
    data = json.loads(second.out)
    assert (data["requests"], data["cached"], data["malformed"]) == (0, 4, 1)
    lines = [json.loads(x) for x in (out / "answers.jsonl").read_text().splitlines()]
    assert [x["grade"] for x in lines] == [3, 2, None, 3]
    assert lines[2]["answer"] == "I think it is relevant, maybe 2 or 3"
    # the key is in no file written, nor in what the command printed
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(written) > 6
    for path in written:
        assert secret.encode() not in path.read_bytes(), path
    assert secret not in first.out + first.err + second.out + second.err


def test_the_keyword_stuffing_probe(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    queries, _, _ = _files(tmp_path)
    for answer, verdict in (
        ("##final score: 0", "Not gamed: no passage that only repeats the query was graded 2"),
        (
            "##final score: 3",
            "Gamed: a passage that only repeats the query was graded 2 or more for 2 of 2",
        ),
    ):
        with ChatServer(stuffed_answer=answer) as server:
            argv = [
                "judges",
                "ask",
                "--url",
                server.url,
                "--llm",
                "m",
                "--queries",
                str(queries),
                "--probe",
            ]
            assert main([*argv, "--api-key-env", ""]) == 0
            assert server.requests == 6  # 2 queries x (1, 5, 20 repeats)
            prompt = server.bodies[-1]["messages"][0]["content"]
        text = capsys.readouterr().out
        assert verdict in text
    assert prompt.count("boundary layer transition") in (2, 6, 21)  # the query, then the passage
