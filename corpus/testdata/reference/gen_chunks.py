#!/usr/bin/env python3
"""REFERENCE GENERATOR, not part of ragbench: writes chunks_reference.json,
the independent reference corpus/chunkers_test.go checks the "tokens" and
"recursive" chunkers against. It runs the real libraries, in a throw-away
venv (never a product dependency):

    python3 -m venv /tmp/spans-venv
    /tmp/spans-venv/bin/pip install tiktoken==0.14.0 langchain-text-splitters==1.1.3
    # tiktoken reads the BPE file from TIKTOKEN_CACHE_DIR (no network): copy
    # tiktoken-go-loader's assets/cl100k_base.tiktoken there under the name
    # sha1("https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken").
    TIKTOKEN_CACHE_DIR=/tmp/tiktoken-cache /tmp/spans-venv/bin/python gen_chunks.py ../../../../shared/datasets/chunking-chroma/corpora

encode: tiktoken's ids of 20 hand strings. tokens: tiktoken cl100k_base ids of each corpus (count and SHA-256 of the
comma-joined ids), and Chroma's FixedTokenChunker windows (split_text_on_tokens:
windows of size tokens every size-overlap tokens, each decoded) with the
code-point span of each window's first occurrence (str.find), -1 if absent.
recursive: LangChain's RecursiveCharacterTextSplitter at its defaults, with
add_start_index=True, by characters (len) and by cl100k_base tokens
(from_tiktoken_encoder), on hand texts and the start of each corpus.
"""
import hashlib
import json
import os
import sys

import tiktoken
from langchain_text_splitters import RecursiveCharacterTextSplitter

corpora = sys.argv[1]
enc = tiktoken.get_encoding("cl100k_base")
out = {"tiktoken": tiktoken.__version__, "tokens": [], "recursive": []}

for name in sorted(os.listdir(corpora)):
    with open(os.path.join(corpora, name)) as f:  # universal newlines, as Python reads
        text = f.read()
    doc = name[: -len(".md")]
    ids = enc.encode(text, disallowed_special=())
    h = hashlib.sha256(",".join(map(str, ids)).encode()).hexdigest()
    out["tokens"].append({"doc": doc, "kind": "ids", "count": len(ids), "sha256": h})
    for size, overlap in [(100, 0), (200, 0), (200, 100), (300, 150), (400, 0), (400, 150), (50, 25)]:
        spans, missing = [], []
        start = 0
        while start < len(ids):
            end = min(start + size, len(ids))
            chunk = enc.decode(ids[start:end])
            i = text.find(chunk)
            spans.append([i, i + len(chunk) if i >= 0 else -1])
            if i < 0:
                missing.append(chunk)
            if end == len(ids):
                break
            start += size - overlap
        out["tokens"].append({"doc": doc, "kind": "windows", "size": size, "overlap": overlap, "spans": spans,
                              "missing_texts": missing})

# tiktoken's ids of hand strings where its regex and tiktoken-go's could part:
# runs and ends of white space, CRLF, digits, contractions, special-token text
# (encoded as ordinary text: disallowed_special=()), scripts and emoji.
out["encode"] = [[t, enc.encode(t, disallowed_special=())] for t in [
    "hello  world", "a \n\n b", "trailing   ", "x\r\ny", "  \n  \n", "1234567", "don't I'M we'LL",
    "<|endoftext|> special", "tab\t\tx", "a\u00a0b", "emoji \U0001F600\U0001F44D\U0001F3FD ok",
    "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8", "   leading", "line\n\n\n\nend", "x  \n",
    "a\n \nb", " \t\n", "e\u0301\u0303 combining", "\u0391\u0392\u0393 \u03b1\u03b2\u03b3", "$12.50, 3.14%"]]

hand = [
    "",
    "   ",
    "one",
    "Hello world.\n\nThis is a test of the recursive splitter.\nIt has lines.\n\n\nAnd paragraphs, with  double  spaces.",
    "a" * 37 + " " + "b" * 5 + "\n" + "c" * 12,
    "It’s — a café naïve façade. " * 6 + "\n\n" + "Über straße " * 8,
    "word " * 40,
    "\n\n\nleading and trailing\n\n\n",
]
texts = [("hand-%d" % i, t, None) for i, t in enumerate(hand)]
PREFIX = 3000  # code points of each corpus's start (the test reads the corpus)
for name in sorted(os.listdir(corpora)):
    with open(os.path.join(corpora, name)) as f:
        texts.append((name[: -len(".md")], f.read()[:PREFIX], PREFIX))

for label, text, prefix in texts:
    configs = [("chars", 100, 20), ("chars", 400, 0), ("chars", 200, 100), ("cl100k_base", 50, 10), ("cl100k_base", 100, 0)]
    if prefix is None:
        configs = [("chars", 10, 0), ("chars", 10, 3)] + configs
    for unit, size, overlap in configs:
        kw = dict(chunk_size=size, chunk_overlap=overlap, add_start_index=True)
        if unit == "chars":
            sp = RecursiveCharacterTextSplitter(**kw)
        else:
            sp = RecursiveCharacterTextSplitter.from_tiktoken_encoder(encoding_name=unit, **kw)
        docs = sp.create_documents([text])
        row = {"unit": unit, "size": size, "overlap": overlap,
               "chunks": [[d.metadata["start_index"], d.page_content] for d in docs]}
        if prefix is None:
            row["text"] = text
        else:
            row["corpus"], row["prefix"] = label, prefix
        out["recursive"].append(row)

json.dump(out, open("chunks_reference.json", "w"), ensure_ascii=False, separators=(",", ":"))
