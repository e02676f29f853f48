"""Reference per-query values for TestTrecEvalDifferential.

Usage: python trec_eval_ref.py QRELS RUN  ->  JSON {qid: {measure: value}}

Every measure of pytrec_eval-terrier's all_trec (trec_eval's own C code,
95 measures) per query, plus rbp (p = 0.9 and p = 0.5), which that build of
trec_eval lacks: computed here from trec_eval 10's definition (m_rbp.c with
setup_gains of gain_init.c): the gain table has one row per level from 0 to
the highest judged grade of the query (gain = level), the gains are rescaled
by (gain - min) / (max - min) over that table when any lies outside [0, 1],
and rbp = (1 - p) * sum_i gain(rank i) * p^(i-1) over the ranking sorted by
score descending, ties by doc id descending (strcmp). Written from the C
source, not from ragbench's Go code.
"""
import json
import sys

import pytrec_eval

qrels_path, run_path = sys.argv[1:3]
qrels, run = {}, {}
with open(qrels_path) as f:
    for line in f:
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
with open(run_path) as f:
    for line in f:
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {})[d] = float(s)

out = pytrec_eval.RelevanceEvaluator(qrels, {"all_trec"}).evaluate(run)


def rbp(judg, results, p):
    top = max((g for g in judg.values() if g >= 0), default=-1)
    gains = list(range(0, top + 1))  # gain = level, one row per level
    lo, hi = (min(gains), max(gains)) if gains else (0.0, 0.0)
    scale = lo < 0 or hi > 1
    # trec_eval's order: score descending, then doc id descending (strcmp).
    ranked = sorted(results.items(), key=lambda x: (x[1], x[0].encode()), reverse=True)
    total, cur = 0.0, 1.0
    for d, _ in ranked:
        g = judg.get(d, -1)
        gain = float(g) if 0 <= g <= top else 0.0
        if 0 <= g <= top and scale:
            gain = (gain - lo) / (hi - lo)
        total += gain * cur
        cur *= p
    return (1 - p) * total


for q, vals in out.items():
    vals["rbp"] = rbp(qrels[q], run[q], 0.9)
    vals["rbp_p=0.5"] = rbp(qrels[q], run[q], 0.5)
json.dump(out, sys.stdout)
