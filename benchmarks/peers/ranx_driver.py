"""ranx the way its users call it: ``Qrels.from_file`` / ``Run.from_file`` then ``evaluate``.

Usage: ``python ranx_driver.py QRELS RUN``. Prints a JSON object of the five means. ranx's
``map`` (no cut-off) is trec_eval's AP; ``mrr@10``, ``ndcg@10`` (gain = label, trec_eval's
formula), ``recall@1000`` and ``precision@10`` are the trec_eval measures, except that ranx
orders tied scores by numpy's ``argsort`` of negated scores rather than by docno descending.
Numba threads: ranx's default (all cores).
"""

import json
import sys

from ranx import Qrels, Run, evaluate

NAMES = {
    "map": "AP",
    "ndcg@10": "nDCG@10",
    "mrr@10": "RR@10",
    "recall@1000": "R@1000",
    "precision@10": "P@10",
}


def main() -> None:
    qrels = Qrels.from_file(sys.argv[1], kind="trec")
    run = Run.from_file(sys.argv[2], kind="trec")
    scores = evaluate(qrels, run, list(NAMES))
    out = {"num_queries": len(run.keys())}
    out.update({NAMES[k]: float(v) for k, v in scores.items()})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
