"""Time ranx and pytrec_eval on the synthetic benchmark files (see
docs/benchmarks/eval.md). Usage:

    python peers.py ranx|pytrec_eval QRELS RUN

Prints one JSON line: tool, phase timings in seconds (import, parse,
numba_compile for ranx, evaluate, total) and the means, so that the numbers
can be checked against 'bench eval' on the same files.
"""
import json
import sys
import time

T0 = time.perf_counter()
tool, qrels_path, run_path = sys.argv[1:4]
out = {"tool": tool}

if tool == "ranx":
    from ranx import Qrels, Run, evaluate

    t = time.perf_counter()
    out["import_s"] = t - T0
    # Numba compile (or cache load) time, shown apart: a one-query call.
    tiny_q = Qrels({"q": {"d1": 1, "d2": 2}})
    tiny_r = Run({"q": {"d1": 0.5, "d3": 0.4}})
    metrics = ["map", "ndcg@10", "precision@10", "recall@100", "mrr"]
    evaluate(tiny_q, tiny_r, metrics)
    t2 = time.perf_counter()
    out["numba_compile_s"] = t2 - t
    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    t3 = time.perf_counter()
    out["parse_s"] = t3 - t2
    means = evaluate(qrels, run, metrics, make_comparable=True)
    t4 = time.perf_counter()
    out["evaluate_s"] = t4 - t3
    out["means"] = {k: float(v) for k, v in means.items()}
elif tool == "pytrec_eval":
    import pytrec_eval

    t = time.perf_counter()
    out["import_s"] = t - T0
    with open(qrels_path) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(run_path) as f:
        run = pytrec_eval.parse_run(f)
    t3 = time.perf_counter()
    out["parse_s"] = t3 - t
    measures = {"map", "ndcg_cut.10", "P.10", "recall.100", "recip_rank"}
    ev = pytrec_eval.RelevanceEvaluator(qrels, measures)
    res = ev.evaluate(run)
    names = ["map", "ndcg_cut_10", "P_10", "recall_100", "recip_rank"]
    means = {n: sum(r[n] for r in res.values()) / len(res) for n in names}
    t4 = time.perf_counter()
    out["evaluate_s"] = t4 - t3
    out["means"] = means
else:
    sys.exit("usage: peers.py ranx|pytrec_eval QRELS RUN")
out["total_s"] = time.perf_counter() - T0
print(json.dumps(out))
