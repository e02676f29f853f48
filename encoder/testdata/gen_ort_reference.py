#!/usr/bin/env python3
"""Generates ort_reference.json: embeddings of a few texts by the standard
Hugging Face BERT exports that scripts/fetch-models.sh installs, computed
independently of ragbench: ids by Hugging Face `tokenizers`, the graph run by
Python onnxruntime, pooling and L2 normalisation in numpy, as
sentence-transformers defines them (mean over attention_mask = 1 positions,
or the first position for CLS pooling).

    /tmp/hfvenv/bin/pip install tokenizers==0.23.3 onnxruntime numpy
    /tmp/hfvenv/bin/python gen_ort_reference.py ../../models

onnxruntime's int8 kernels (e5-small-v2-q) depend on the CPU's instruction
sets: the e5-small-v2-q case's "embeddings_alt" are this script's
"embeddings" for that case run on a second CPU (an AVX2 machine without
AVX-512; "embeddings_alt_cpu" says which), copied in by hand. The Go test
accepts either.
"""
import json
import sys

import numpy as np
import onnxruntime as ort
import tokenizers
from tokenizers import Tokenizer

here = sys.path[0]
models = sys.argv[1]
texts = [
    "The cat sits on the mat.",
    "Café naïve résumé: accents are stripped by BERT uncased.",
    "What is the role of IL-6 in inflammation?",
    "Ελληνικά and 中文 and emoji 😀 in one line",
    "x " * 10,
    # Over 256 and 512 tokens: truncated, [SEP] kept last.
    "Retrieval augmented generation combines a retriever with a generator. " * 60,
]

cases = [
    # (folder, prefix, pooling, max_length)
    ("all-minilm-l6-v2", "", "mean", 256),
    ("all-minilm-l6-v2", "", "cls", 256),
    ("e5-small-v2-q", "query: ", "mean", 512),
]
out = {"generator": "gen_ort_reference.py", "tokenizers_version": tokenizers.__version__,
       "onnxruntime_version": ort.__version__, "cases": []}
for folder, prefix, pooling, max_len in cases:
    tok = Tokenizer.from_file(f"{models}/{folder}/tokenizer.json")
    tok.no_padding()
    tok.enable_truncation(max_len)
    sess = ort.InferenceSession(f"{models}/{folder}/model.onnx", providers=["CPUExecutionProvider"])
    vecs, all_ids = [], []
    for t in texts:
        e = tok.encode(prefix + t)
        ids = np.array([e.ids], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": np.ones_like(ids), "token_type_ids": np.zeros_like(ids)}
        h = sess.run(["last_hidden_state"], feeds)[0][0].astype(np.float64)
        v = h.mean(axis=0) if pooling == "mean" else h[0]
        v = v / np.linalg.norm(v)
        vecs.append([round(float(x), 7) for x in v])
        all_ids.append(e.ids)
    out["cases"].append({"model": folder, "query_prefix": prefix, "pooling": pooling, "max_length": max_len,
                         "texts": texts, "ids": all_ids, "embeddings": vecs})
json.dump(out, open(f"{here}/ort_reference.json", "w"), ensure_ascii=False)
print("wrote", len(out["cases"]), "cases")
