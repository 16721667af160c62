"""ir_measures the way its users call it: ``read_trec_qrels`` / ``read_trec_run``, ``calc_aggregate``.

Usage: ``python ir_measures_driver.py QRELS RUN``. Prints a JSON object of the five means with
ir_measures' default providers: pytrec_eval (float32 scores) for AP, nDCG@10, R@1000 and P@10,
the msmarco provider for RR@10 (it breaks score ties by docno ascending, trec_eval descending).
"""

import json
import sys

import ir_measures
from ir_measures import AP, RR, P, R, nDCG

MEASURES = {AP: "AP", nDCG @ 10: "nDCG@10", RR @ 10: "RR@10", R @ 1000: "R@1000", P @ 10: "P@10"}


def main() -> None:
    qrels = ir_measures.read_trec_qrels(sys.argv[1])
    run = ir_measures.read_trec_run(sys.argv[2])
    agg = ir_measures.calc_aggregate(list(MEASURES), qrels, run)
    print(json.dumps({MEASURES[m]: float(v) for m, v in agg.items()}))


if __name__ == "__main__":
    main()
