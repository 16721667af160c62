"""Run PyClick (the oracle of ``test_pyclick_agreement.py``) on the Yandex WSCD sample.

Not a test: a driver run once, by hand, under a private Python 3 virtualenv with PyClick's
sources on the path (PyClick is not on PyPI and is not a dependency). It reads the sample
with its own parser (independent of cranfield's), builds PyClick's ``SearchSession``s, trains
each model on the train file and prints, as JSON, PyClick's perplexity, perplexity per rank and
log-likelihood on the test file. The exact command is in ``test_pyclick_agreement.py``.

Usage: ``python pyclick_oracle.py PYCLICK_SOURCES CLICKS_FOLDER [EM_ITERATIONS [MODEL,...]]``
(PBM and UBM run ``EM_ITERATIONS``, 50 by default as PyClick's ``EMInference``; every model
unless some are named).
"""

import gzip
import json
import sys


def sessions(path, SearchSession, SearchResult):
    """The sessions of one sample file: ``QUERY<TAB>DOC,...,DOC : CLICKED , ...`` split on
    ``;``; a click on a document not shown is left out, a repeated click counts once."""
    with gzip.open(path, "rt", encoding="ascii") as f:
        text = f.read()
    out = []
    for piece in text.split(";"):
        chunk = piece.strip()
        if not chunk:
            continue
        head, _, clicks = chunk.partition(" : ") if " : " in chunk else chunk.partition(" :")
        query, _, docs = head.partition("\t")
        shown = docs.strip().split(",")
        clicked = {c.strip() for c in clicks.split(",") if c.strip()}
        session = SearchSession(query.strip())
        for doc in shown:
            session.web_results.append(SearchResult(doc, 1 if doc in clicked else 0))
        out.append(session)
    return out


def main():
    sys.path.insert(0, sys.argv[1])
    folder = sys.argv[2]
    iterations = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    only = sys.argv[4].split(",") if len(sys.argv) > 4 else None
    from pyclick.click_models.CM import CM
    from pyclick.click_models.CTR import DCTR, GCTR, RCTR
    from pyclick.click_models.DCM import DCM
    from pyclick.click_models.Evaluation import LogLikelihood, Perplexity
    from pyclick.click_models.Inference import EMInference
    from pyclick.click_models.PBM import PBM
    from pyclick.click_models.SDBN import SDBN
    from pyclick.click_models.UBM import UBM
    from pyclick.search_session.SearchResult import SearchResult
    from pyclick.search_session.SearchSession import SearchSession

    train = sessions(f"{folder}/yandex-wscd-sample.train.txt.gz", SearchSession, SearchResult)
    test = sessions(f"{folder}/yandex-wscd-sample.test.txt.gz", SearchSession, SearchResult)
    models = {
        "GlobalCTR": GCTR,
        "RankCTR": RCTR,
        "DocumentCTR": DCTR,
        "Cascade": CM,
        "DCM": DCM,
        "SDBN": SDBN,
        "PBM": PBM,
        "UBM": UBM,
    }
    out = {"train_sessions": len(train), "test_sessions": len(test), "em_iterations": iterations}
    for name, cls in models.items():
        if only is not None and name not in only:
            continue
        model = cls()
        if name in ("PBM", "UBM"):
            model._inference = EMInference(iterations)
        model.train(train)
        perplexity, at_rank = Perplexity().evaluate(model, test)
        out[name] = {
            "perplexity": perplexity,
            "perplexity_at_rank": at_rank,
            "mean_log_likelihood": LogLikelihood().evaluate(model, test),
        }
        print(name, perplexity, file=sys.stderr, flush=True)
    json.dump(out, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
