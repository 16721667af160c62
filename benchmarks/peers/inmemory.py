"""In-memory evaluation: ``cranfield.evaluate`` vs ranx's (and pytrec_eval's) warm evaluate.

Usage: ``python inmemory.py QRELS RUN [--repeat N] [--warmup N] [--tools a,b]``.

Everything is loaded once (cranfield ``load_qrels``/``load_run``; ranx ``Qrels.from_file`` /
``Run.from_file``; pytrec_eval ``parse_qrel``/``parse_run`` and one prebuilt
``RelevanceEvaluator``), then the evaluate calls alternate round-robin in this one process:
``warmup`` untimed rounds (Numba compilation, caches), then ``repeat`` timed rounds. Prints a
JSON object ``{tool: {"load_seconds", "times", "values"}}``. What each call does:

* cranfield: ``cranfield.evaluate(qrels, run, measures)`` on ``Qrels``/``Run`` objects
  (ranking against the qrels and all five measures, every call; the run's own facts, its
  query stretches and the order of its tied lines, were learnt once when it was read);
* ranx: ``ranx.evaluate(qrels, run, metrics)`` on ``Qrels``/``Run`` objects (it converts them
  to Numba typed lists inside every call, then runs its kernels on all cores);
* pytrec_eval: ``evaluator.evaluate(run_dict)`` on a prebuilt evaluator, plus the means.
"""

import argparse
import json
import statistics
import time
from collections.abc import Callable

MEASURES = ["AP", "nDCG@10", "RR@10", "R@1000", "P@10"]
RANX = {
    "map": "AP",
    "ndcg@10": "nDCG@10",
    "mrr@10": "RR@10",
    "recall@1000": "R@1000",
    "precision@10": "P@10",
}


def cranfield_call(qrels_path: str, run_path: str) -> Callable[[], dict[str, float]]:
    import cranfield

    qrels, run = cranfield.load_qrels(qrels_path), cranfield.load_run(run_path)

    def call() -> dict[str, float]:
        res = cranfield.evaluate(qrels, run, MEASURES)
        return {m: float(res[m]) for m in MEASURES}

    return call


def ranx_call(qrels_path: str, run_path: str) -> Callable[[], dict[str, float]]:
    from ranx import Qrels, Run, evaluate

    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")

    def call() -> dict[str, float]:
        scores = evaluate(qrels, run, list(RANX))
        return {RANX[k]: float(v) for k, v in scores.items()}

    return call


def pytrec_eval_call(qrels_path: str, run_path: str) -> Callable[[], dict[str, float]]:
    import pytrec_eval

    with open(qrels_path) as f:
        qrel = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrel, {"map", "ndcg_cut.10", "recip_rank", "recall.1000", "P.10"}
    )
    keys = {"map": "AP", "ndcg_cut_10": "nDCG@10", "recall_1000": "R@1000", "P_10": "P@10"}

    def call() -> dict[str, float]:
        topics = list(evaluator.evaluate(run).values())
        out = {name: sum(t[k] for t in topics) / len(topics) for k, name in keys.items()}
        rr10 = [t["recip_rank"] if t["recip_rank"] >= 0.1 else 0.0 for t in topics]
        out["RR@10"] = sum(rr10) / len(topics)
        return out

    return call


BUILDERS = {"cranfield": cranfield_call, "ranx": ranx_call, "pytrec_eval": pytrec_eval_call}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("qrels")
    parser.add_argument("run")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--tools", default=",".join(BUILDERS))
    args = parser.parse_args()
    calls: dict[str, Callable[[], dict[str, float]]] = {}
    out: dict[str, dict[str, object]] = {}
    for name in args.tools.split(","):
        start = time.perf_counter()
        calls[name] = BUILDERS[name](args.qrels, args.run)
        out[name] = {"load_seconds": time.perf_counter() - start, "times": [], "values": {}}
    names = list(calls)
    for round_ in range(args.warmup + args.repeat):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter()
            values = calls[name]()
            elapsed = time.perf_counter() - start
            if round_ >= args.warmup:
                out[name]["times"].append(elapsed)  # type: ignore[union-attr]
            out[name]["values"] = values
    for entry in out.values():
        entry["median"] = statistics.median(entry["times"])  # type: ignore[arg-type]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
