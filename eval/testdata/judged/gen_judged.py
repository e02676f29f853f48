"""Writes the judged@k fixture of eval's TestJudgedIRMeasures and its reference.

qrels.txt and run.trec: 12 queries of a TREC run over 60 docs with
incomplete qrels (about a third of what a query retrieves is judged, grades
0 to 2), scores all distinct (ir_measures breaks ties by doc id ascending,
trec_eval by doc id descending: judged@k is compared where no tie decides).
Some queries retrieve fewer than k docs (ir_measures divides by the results
there), one is judged but not retrieved (q11), one retrieved but not judged
(q12), one judged with grade 0 only (q03). judged_ref.tsv: query, measure,
value as ir_measures 0.4.3 computes Judged@k (iter_calc per query, then
calc_aggregate as "all").

Run with the test venv: third_party/python/bin/python gen_judged.py
"""
import random

import ir_measures
from ir_measures import Judged

rng = random.Random(20)
docs = [f"d{i:02d}" for i in range(60)]
qrels, run = [], []
for q in range(1, 13):
    qid = f"q{q:02d}"
    n = {2: 3, 5: 1, 7: 7}.get(q, rng.randint(12, 25))
    retrieved = rng.sample(docs, n)
    scores = sorted(rng.sample(range(1000, 99999), n), reverse=True)
    if q != 11:
        for rank, (d, s) in enumerate(zip(retrieved, scores)):
            run.append((qid, d, rank + 1, s / 1000))
    if q == 12:
        continue
    judged = set(rng.sample(retrieved, max(1, n // 3)))
    judged |= set(rng.sample(docs, 4))  # judged but maybe not retrieved
    for d in sorted(judged):
        grade = 0 if q == 3 else rng.choice([0, 0, 1, 2])
        qrels.append((qid, d, grade))

with open("qrels.txt", "w") as f:
    for qid, d, g in qrels:
        f.write(f"{qid} 0 {d} {g}\n")
with open("run.trec", "w") as f:
    for qid, d, rank, s in run:
        f.write(f"{qid} Q0 {d} {rank} {s:.3f} gen\n")

measures = [Judged @ k for k in (1, 3, 5, 10, 20)]
qr = list(ir_measures.read_trec_qrels("qrels.txt"))
rn = list(ir_measures.read_trec_run("run.trec"))
with open("judged_ref.tsv", "w") as f:
    f.write("# ir_measures %s Judged@k (gen_judged.py)\n" % ir_measures.__version__)
    for m in sorted(ir_measures.iter_calc(measures, qr, rn), key=lambda m: (m.query_id, str(m.measure))):
        f.write(f"{m.query_id}\t{m.measure}\t{m.value!r}\n")
    for measure, value in sorted(ir_measures.calc_aggregate(measures, qr, rn).items(), key=lambda x: str(x[0])):
        f.write(f"all\t{measure}\t{value!r}\n")
