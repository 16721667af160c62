"""pytrec_eval the way its users call it: parse_qrel/parse_run into dicts, RelevanceEvaluator.

Usage: ``python pytrec_eval_driver.py QRELS RUN [--all]``. Prints a JSON object of means over
the topics pytrec_eval evaluates (those in both the run and the qrels). pytrec_eval has no
cut-off reciprocal rank, so RR@10 is derived from its per-topic ``recip_rank`` (a first
relevant document at rank <= 10 is exactly ``recip_rank >= 0.1``). With ``--all``, every
measure of ``pytrec_eval.supported_measures`` is computed and each is summarised the way
trec_eval does (sums for ``num_*``, geometric mean for ``gm_*``, means otherwise).
"""

import json
import sys

import pytrec_eval

FIVE = {"map": "AP", "ndcg_cut_10": "nDCG@10", "recall_1000": "R@1000", "P_10": "P@10"}


def main() -> None:
    qrels_path, run_path = sys.argv[1], sys.argv[2]
    everything = "--all" in sys.argv[3:]
    with open(qrels_path) as f:
        qrel = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    if everything:
        measures = set(pytrec_eval.supported_measures)
    else:
        measures = {"map", "ndcg_cut.10", "recip_rank", "recall.1000", "P.10"}
    per_topic = pytrec_eval.RelevanceEvaluator(qrel, measures).evaluate(run)
    topics = list(per_topic.values())
    out: dict[str, float] = {"num_queries": len(topics)}
    if everything:
        for name in sorted(topics[0]):
            values = [t[name] for t in topics]
            out[name] = pytrec_eval.compute_aggregated_measure(name, values)
    else:
        for key, name in FIVE.items():
            out[name] = sum(t[key] for t in topics) / len(topics)
        rr10 = [t["recip_rank"] if t["recip_rank"] >= 0.1 else 0.0 for t in topics]
        out["RR@10"] = sum(rr10) / len(topics)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
