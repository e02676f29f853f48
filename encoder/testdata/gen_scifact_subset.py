#!/usr/bin/env python3
"""Generates scifact_subset_minilm.json, the reference for
TestE2EMiniLMSciFactSubset: a 1,000-document SciFact sub-corpus (every
document judged in qrels/test.tsv, then the corpus's first other documents
in file order), the 300 test queries ranked by cosine with
all-MiniLM-L6-v2 (models/all-minilm-l6-v2 from scripts/fetch-models.sh),
computed independently of ragbench: ids by Hugging Face `tokenizers`
(truncation 256), Python onnxruntime, mean pooling and L2 normalisation in
numpy. Writes the doc ids, each query's top 10 and its nDCG@10 (trec_eval
ndcg_cut.10 formula).

    /tmp/hfvenv/bin/pip install tokenizers==0.23.3 onnxruntime==1.24.3 numpy
    /tmp/hfvenv/bin/python gen_scifact_subset.py ../../../shared/datasets/scifact ../../models/all-minilm-l6-v2
"""
import json
import math
import sys

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

here = sys.path[0]
data, model = sys.argv[1], sys.argv[2]
qrels = {}
for line in open(f"{data}/qrels/test.tsv"):
    q, d, g = line.rstrip("\n").split("\t")
    if q == "query-id":
        continue
    qrels.setdefault(q, {})[d] = int(g)
judged = {d for rel in qrels.values() for d in rel}
docs = {}
order = []
for line in open(f"{data}/corpus.jsonl"):
    d = json.loads(line)
    docs[d["_id"]] = (d["title"] + " " + d["text"]).strip()
    order.append(d["_id"])
ids = [d for d in order if d in judged]
ids += [d for d in order if d not in judged][: 1000 - len(ids)]
queries = {}
for line in open(f"{data}/queries.jsonl"):
    q = json.loads(line)
    queries[q["_id"]] = q["text"]

tok = Tokenizer.from_file(f"{model}/tokenizer.json")
tok.no_padding()
tok.enable_truncation(256)
sess = ort.InferenceSession(f"{model}/model.onnx", providers=["CPUExecutionProvider"])
opts = ort.SessionOptions()


def embed(text):
    e = tok.encode(text)
    x = np.array([e.ids], dtype=np.int64)
    h = sess.run(["last_hidden_state"], {"input_ids": x, "attention_mask": np.ones_like(x),
                                          "token_type_ids": np.zeros_like(x)})[0][0].astype(np.float64)
    v = h.mean(axis=0)
    return v / np.linalg.norm(v)


D = np.stack([embed(docs[d]) for d in ids])
out = {"generator": "gen_scifact_subset.py", "doc_ids": ids, "queries": []}
total = 0.0
for q in sorted(qrels):
    s = D @ embed(queries[q])
    ranked = sorted(range(len(ids)), key=lambda i: (-s[i], [-ord(c) for c in ids[i]]))[:10]
    top = [ids[i] for i in ranked]
    dcg = sum(qrels[q].get(d, 0) / math.log2(k + 2) for k, d in enumerate(top))
    ideal = sorted(qrels[q].values(), reverse=True)[:10]
    idcg = sum(g / math.log2(k + 2) for k, g in enumerate(ideal))
    n = dcg / idcg if idcg else 0.0
    total += n
    out["queries"].append({"id": q, "top10": top, "top10_scores": [round(float(s[i]), 6) for i in ranked], "ndcg10": n})
out["mean_ndcg10"] = total / len(qrels)
json.dump(out, open(f"{here}/scifact_subset_minilm.json", "w"))
print("nDCG@10 on the 1,000-doc subset:", out["mean_ndcg10"])
