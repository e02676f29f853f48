#!/usr/bin/env python3
"""REFERENCE GENERATOR, not product code: writes ranx-fused.json.gz, the fused
runs that ranx 0.3.21's fuse() makes of bm25.trec.gz and dense.trec.gz, for
TestFuseMatchesRanx (retrievers/hybrid) and the `bench fuse` ranx test
(cmd/bench). ragbench never runs this; it is kept so the reference can be
remade and audited.

    python3 -m venv /tmp/fusion-venv && /tmp/fusion-venv/bin/pip install ranx==0.3.21
    cd retrievers/hybrid/testdata/scifact && /tmp/fusion-venv/bin/python ranx_reference.py

Inputs: SciFact test, 60 of its 300 queries (every fifth query id in byte
order), whole documents, depth 100: BM25 and all-MiniLM-L6-v2 dense runs of
ragbench's main job at commit 702537e. The reference fuses 30 of them (every
other query id in byte order), and prints scores to 13 significant digits
(error ≤ 5e-13, far below the test's 1e-9), to keep testdata under 2 MB.

Ties. ranx ranks a run by numpy argsort of the negated scores (quicksort, so
equal scores come in no defined order); ragbench ranks equal scores by doc
id descending (trec_eval's order). Rank-based fusions (rrf, and the rank and
borda normalisations) depend on that order, so for them this script gives
ranx tie-free scores, len(list) - rank, ranks taken in trec_eval's order; the
score-based normalisations (min-max, max, sum, zmuv) get the raw scores,
whose ties do not change any normalised value. ranx's fused runs are sorted
the same way, so the output lists each query's documents with ranx's scores
and the test compares order only between different scores.

Output: {"<config>": {"method", "norm", "weights", "run": {qid: [[doc, score], ...]}}}.
"""

import gzip
import json
from collections import defaultdict

from importlib.metadata import version
from ranx import Run, fuse

assert version("ranx") == "0.3.21", version("ranx")


def read_trec(path):
    run = defaultdict(dict)
    with gzip.open(path, "rt") as f:
        for line in f:
            q, _, doc, _, score, _ = line.split()
            run[q][doc] = float(score)
    return run


def trec_order(results):
    """Doc ids in trec_eval's order: score descending, doc id descending."""
    return sorted(results, key=lambda d: (results[d], d), reverse=True)


def tie_free(run):
    return {q: {d: float(len(r) - i) for i, d in enumerate(trec_order(r))} for q, r in run.items()}


bm25, dense = read_trec("bm25.trec.gz"), read_trec("dense.trec.gz")
assert bm25.keys() == dense.keys()
subset = sorted(bm25)[::2]
bm25, dense = {q: bm25[q] for q in subset}, {q: dense[q] for q in subset}
raw = [Run.from_dict(bm25, "bm25"), Run.from_dict(dense, "dense")]
ranked = [Run.from_dict(tie_free(bm25), "bm25"), Run.from_dict(tie_free(dense), "dense")]

# (config name, ranx method, ranx norm, params, ragbench method, ragbench norm, weights)
configs = [("rrf", "rrf", None, {"k": 60}, "rrf", "", None)]
for norm, ours in [("min-max", "minmax"), ("max", "max"), ("sum", "sum"), ("zmuv", "zscore"), ("rank", "rank"), ("borda", "borda")]:
    configs.append((f"combsum-{ours}", "sum", norm, {}, "combsum", ours, None))
    configs.append((f"combmnz-{ours}", "mnz", norm, {}, "combmnz", ours, None))
    configs.append((f"wsum-{ours}", "wsum", norm, {"weights": [0.7, 0.3]}, "combsum", ours, [0.7, 0.3]))

out = {}
for name, method, norm, params, our_method, our_norm, weights in configs:
    rank_based = method == "rrf" or norm in ("rank", "borda")
    fused = fuse(ranked if rank_based else raw, norm=norm, method=method, params=params)
    out[name] = {
        "method": our_method,
        "norm": our_norm,
        "weights": weights,
        "run": {q: [[d, float(f"{s:.13g}")] for d, s in fused.run[q].items()] for q in sorted(fused.run.keys())},
    }

with gzip.GzipFile("ranx-fused.json.gz", "wb", mtime=0) as f:
    f.write(json.dumps(out, sort_keys=True).encode())
print(f"wrote ranx-fused.json.gz: {len(out)} fused runs, {len(bm25)} queries")
