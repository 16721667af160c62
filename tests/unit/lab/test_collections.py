"""Collection readers: Cranfield's original format, TREC topics, ir_datasets."""

from __future__ import annotations

import gzip
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest

from cranfield.errors import InputError
from cranfield.lab import (
    CRANFIELD_GAINS,
    Collection,
    Document,
    Topic,
    from_ir_datasets,
    read_cranfield,
    read_topics,
    read_trec_documents,
)
from tests.conftest import SHARED, require

CRAN = SHARED / "data" / "cranfield"


def test_cranfield_counts(cranfield: Collection) -> None:
    docs = list(cranfield.iter_documents())
    assert len(docs) == 1400
    assert [d.doc_id for d in docs] == [str(i) for i in range(1, 1401)]
    assert len(cranfield.topics) == 225
    assert len(cranfield.qrels) == 1837
    assert cranfield.size_bytes == 1_644_706
    # README: 128 / 387 / 734 / 363 pairs with codes 1 / 2 / 3 / 4 and 225 with -1.
    gains = Counter(cranfield.qrels.frame.get_column("relevance").to_list())
    assert gains == {4: 128, 3: 387, 2: 734, 1: 363, 0: 225}


def test_cranfield_queries_are_numbered_by_position(cranfield: Collection) -> None:
    ids = [t.query_id for t in cranfield.topics]
    assert ids == [str(i) for i in range(1, 226)]
    assert [t.original_id for t in cranfield.topics[:4]] == ["1", "2", "4", "8"]
    assert cranfield.topics[2].title.startswith("what problems of heat conduction in composite")
    assert cranfield.topics[-1].original_id == "365"
    assert all("\r" not in t.title for t in cranfield.topics)
    # Judged query 3 is the third record (.I 004); its relevant documents share its words.
    assert set(cranfield.qrels.to_dict()["3"]) >= {"5", "6", "90", "91"}


def test_cranfield_document_oddities(cranfield: Collection) -> None:
    docs = {d.doc_id: d for d in cranfield.iter_documents()}
    assert docs["471"].text == ""
    assert docs["995"].text == ""
    assert ".A application to turbulent separations" in docs["240"].text
    assert "unity in low-speed flow" in docs["240"].text
    assert "compressor" in docs["576"].text  # the spliced second abstract is kept
    assert docs["1"].title.startswith("experimental investigation of the aerodynamics")


def test_cranfield_gain_mapping_can_drop_codes() -> None:
    c = read_cranfield(require(CRAN), gains={**CRANFIELD_GAINS, -1: None})
    assert len(c.qrels) == 1837 - 225
    assert min(c.qrels.frame.get_column("relevance")) == 1


def _copy(tmp_path: Path, **replace: str) -> Path:
    for name in ("cran.all.1400", "cran.qry", "cranqrel"):
        data = replace.get(name.replace(".", "_")) or (require(CRAN) / name).read_text()
        (tmp_path / name).write_text(data)
    return tmp_path


def test_cranfield_errors_name_file_and_line(tmp_path: Path) -> None:
    qrel = (CRAN / "cranqrel").read_text().replace("1 184 2", "1 184 7", 1)
    with pytest.raises(InputError, match=r"cranqrel:1: relevance code 7 has no gain"):
        read_cranfield(_copy(tmp_path, cranqrel=qrel))
    qrel = (CRAN / "cranqrel").read_text().replace("1 184 2", "226 184 2", 1)
    with pytest.raises(InputError, match=r"cranqrel:1: query 226 is not a position"):
        read_cranfield(_copy(tmp_path, cranqrel=qrel))
    docs = (CRAN / "cran.all.1400").read_text().replace(".I 2\n", ".I two\n", 1)
    with pytest.raises(InputError, match=r"cran.all.1400:\d+: expected '.I <number>'"):
        read_cranfield(_copy(tmp_path, cran_all_1400=docs))
    with pytest.raises(InputError, match="not a directory"):
        read_cranfield(tmp_path / "nowhere")


def test_trec_topics_sgml(tmp_path: Path) -> None:
    p = tmp_path / "topics.301"
    p.write_text(
        "<top>\n<num> Number: 301\n<title> International Organized Crime\n\n<desc> Description:\n"
        "Identify organizations that participate in\ninternational criminal activity.\n\n"
        "<narr> Narrative:\nA relevant document must name the organization.\n</top>\n\n"
        "<top>\n<num> Number: 302 </num>\n<title> Poliomyelitis and Post-Polio </title>\n</top>\n"
    )
    t = read_topics(p)
    assert [x.query_id for x in t] == ["301", "302"]
    assert t[0].title == "International Organized Crime"
    assert t[0].description == (
        "Identify organizations that participate in international criminal activity."
    )
    assert t[0].narrative == "A relevant document must name the organization."
    assert t[0].query("title+description").startswith("International Organized Crime Identify")
    assert t[1].title == "Poliomyelitis and Post-Polio"


def test_trec_topics_xml_and_tsv(tmp_path: Path) -> None:
    x = tmp_path / "topics.xml"
    x.write_text(
        '<topics><topic number="1"><query>coronavirus origin</query>'
        "<question>what is the origin of COVID-19</question>"
        "<narrative>seeking range of information</narrative></topic></topics>"
    )
    assert read_topics(x) == (
        Topic(
            "1",
            "coronavirus origin",
            "what is the origin of COVID-19",
            "seeking range of information",
        ),
    )
    t = tmp_path / "queries.tsv"
    t.write_text("1048585\twhat is paula deen's brother\n2\t  two  words \n")
    assert [(q.query_id, q.title) for q in read_topics(t)] == [
        ("1048585", "what is paula deen's brother"),
        ("2", "two words"),
    ]


def test_trec_topic_errors(tmp_path: Path) -> None:
    p = tmp_path / "bad.txt"
    p.write_text("<top>\n<title> no number\n</top>\n")
    with pytest.raises(InputError, match=r"bad.txt:1: topic has no single-word <num>"):
        read_topics(p)
    p.write_text("1\tfirst\n2 second\n")
    with pytest.raises(InputError, match=r"bad.txt:2: expected 'query_id<TAB>query text'"):
        read_topics(p)
    p.write_text("<top><num> 1 <title> a </top><top><num> 1 <title> b </top>")
    with pytest.raises(InputError, match="topic 1 occurs more than once"):
        read_topics(p)


def test_ir_datasets_adapter_with_a_stand_in_dataset() -> None:
    """The adapter reads ir_datasets' interface (docs_iter, queries_iter, qrels_iter).

    A stand-in object is used: downloading a real dataset needs network access.
    """
    doc = SimpleNamespace
    ds = SimpleNamespace(
        docs_iter=lambda: iter(
            [doc(doc_id="a", default_text=lambda: "wing flutter"), doc(doc_id="b", text="heat")]
        ),
        queries_iter=lambda: iter([SimpleNamespace(query_id="1", text="flutter  of wings")]),
        qrels_iter=lambda: iter(
            [
                SimpleNamespace(query_id="1", doc_id="a", relevance=4, iteration="0"),
                SimpleNamespace(query_id="1", doc_id="b", relevance=-1, iteration="0"),
            ]
        ),
    )
    c = from_ir_datasets(ds, name="stand-in")
    assert [(d.doc_id, d.text) for d in c.iter_documents()] == [
        ("a", "wing flutter"),
        ("b", "heat"),
    ]
    assert c.queries() == {"1": "flutter of wings"}
    assert c.qrels.to_dict() == {"1": {"a": 4, "b": -1}}
    mapped = from_ir_datasets(ds, gains={4: 1, -1: None})
    assert mapped.qrels.to_dict() == {"1": {"a": 1}}
    with pytest.raises(InputError, match="relevance value -1 has no gain"):
        from_ir_datasets(ds, gains={4: 1})


def test_collection_from_documents_fingerprint_tracks_content() -> None:
    a = Collection.from_documents("x", [Document("d", "text")], [Topic("q", "t")], {"q": {"d": 1}})
    b = Collection.from_documents("x", [Document("d", "text")], [Topic("q", "t")], {"q": {"d": 1}})
    c = Collection.from_documents("x", [Document("d", "text!")], [Topic("q", "t")], {"q": {"d": 1}})
    assert a.fingerprint == b.fingerprint != c.fingerprint
    with pytest.raises(ValueError, match="The 'field' option must be one of 'title', 'desc"):
        Topic("q", "t").query("body")  # type: ignore[arg-type]


def test_topics_are_read_by_the_file_opener(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compressed topic files read as plain ones; a form feed in a topic's text is text, not
    a line end; the line limit of every reader holds here too."""
    plain = tmp_path / "topics.tsv"
    plain.write_bytes(b"1\twing\x0cflutter\n2\theat transfer in wings\n")
    packed = tmp_path / "topics.tsv.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    assert read_topics(packed) == read_topics(plain)
    assert [t.title for t in read_topics(plain)] == ["wing flutter", "heat transfer in wings"]
    monkeypatch.setenv("CRANFIELD_MAX_LINE_BYTES", "16")
    with pytest.raises(InputError, match=r"topics.tsv:2: .*longer than"):
        read_topics(plain)


TREC_DOCS = """<DOC>
<DOCNO> FT911-1 </DOCNO>
<PROFILE>_AN-BEOA7AAIFT</PROFILE>
<HEADLINE>
FT  14 MAY 91 / Swept <B>wings</B>
</HEADLINE>
<TEXT>
Swept wings delay the rise
of drag at high speed.
</TEXT>
<TEXT>Second section.</TEXT>
</DOC>
<DOC><DOCNO>LA010189-0001</DOCNO><TEXT><P>Heat transfer.</P></TEXT></DOC>

<DOC>
<DOCNO>GX000-00-0000000</DOCNO>
<DOCHDR>http://example.org/ HTTP/1.1 200 OK</DOCHDR>
<html><title>Boundary</title><body>Boundary layer.</body></html>
</DOC>
"""


def test_trec_sgml_documents(tmp_path: Path) -> None:
    path = tmp_path / "docs.sgml.gz"
    path.write_bytes(gzip.compress(TREC_DOCS.encode()))
    assert list(read_trec_documents(path)) == [
        Document(
            "FT911-1",
            "Swept wings delay the rise of drag at high speed. Second section.",
            "FT 14 MAY 91 / Swept wings",
        ),
        Document("LA010189-0001", "Heat transfer."),
        Document("GX000-00-0000000", "Boundary layer.", "Boundary"),
    ]


@pytest.mark.parametrize(
    ("text", "line", "problem"),
    [
        ("<DOC>\n<TEXT>x</TEXT>\n</DOC>\n", 1, "starts a document without a <DOCNO>"),
        ("<DOC>\n<DOCNO>a b</DOCNO>\n</DOC>\n", 1, "has a <DOCNO> that is empty or holds a blank"),
        ("<DOC>\n<DOCNO>a</DOCNO>\n", 1, "opens a <DOC> that is never closed"),
        ("<DOC><DOCNO>a</DOCNO>\n<DOC>\n", 2, "opens a <DOC> inside the one of line 1"),
        ("<DOC><DOCNO>a</DOCNO></DOC>\nstray\n", 2, "has text outside <DOC>...</DOC>"),
    ],
)
def test_trec_sgml_document_errors(tmp_path: Path, text: str, line: int, problem: str) -> None:
    path = tmp_path / "docs.sgml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        list(read_trec_documents(path))
    assert (info.value.source, info.value.line) == (str(path), line)
    assert info.value.problem == problem
