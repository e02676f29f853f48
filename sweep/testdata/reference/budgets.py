"""Independent reference of ragbench's prompt-budget measures.

Written from the definitions of docs/spans.md ("Prompt budgets", "The
measures") and Chroma's token-level measures, with tiktoken's cl100k_base;
it shares no code with ragbench. sweep's TestPromptBudgetsMatchPython runs it.

    python budgets.py INPUT.json > OUTPUT.json

INPUT: {"corpus": folder of <doc>.md files, "questions": Chroma's
questions.csv, "budgets": [...], "k": prompt k, "share": cover share,
"chunkings": {name: {"chunks": {id: [doc, start, end]} (code points),
"ranking": {query id: [chunk ids, best first]}}}}.

OUTPUT: {name: {"budgets": {budget: {query id: {family: value, "chunks": n}}},
"prompt_tokens": {query id: tokens of the top k chunks}}}.

tiktoken reads its BPE file from TIKTOKEN_CACHE_DIR (no network here).
"""

import csv
import json
import os
import sys

import tiktoken


def read_docs(folder):
    docs = {}
    for name in os.listdir(folder):
        if name.endswith(".md") or name.endswith(".txt"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                docs[os.path.splitext(name)[0]] = f.read()
    return docs


def read_questions(path):
    """Query id (row number from 0) -> list of (doc, start, end)."""
    out = {}
    with open(path, encoding="utf-8", newline="") as f:
        for i, row in enumerate(csv.DictReader(f)):
            refs = json.loads(row["references"])
            out[str(i)] = [(row["corpus_id"], r["start_index"], r["end_index"]) for r in refs]
    return out


def union_len(ivs):
    n = 0
    by_doc = {}
    for d, s, e in ivs:
        by_doc.setdefault(d, []).append((s, e))
    for spans in by_doc.values():
        spans.sort()
        cs, ce = spans[0]
        for s, e in spans[1:]:
            if s <= ce:
                ce = max(ce, e)
            else:
                n += max(0, ce - cs)
                cs, ce = s, e
        n += max(0, ce - cs)
    return n


def overlap(a, b):
    if a[0] != b[0]:
        return 0
    return max(0, min(a[2], b[2]) - max(a[1], b[1]))


def measures(gold, prompt, share):
    inter = []
    for c in prompt:
        for g in gold:
            if overlap(c, g) > 0:
                inter.append((c[0], max(c[1], g[1]), min(c[2], g[2])))
    i = union_len(inter)
    sg = sum(e - s for _, s, e in gold)
    sc = sum(e - s for _, s, e in prompt)
    recall = i / sg if sg else 0.0
    precision = i / sc if sc else 0.0
    iou = i / (sg + sc - i) if sg + sc - i else 0.0
    covered, first = 0, 0
    for g in gold:
        for rank, c in enumerate(prompt, 1):
            n = overlap(c, g)
            if n > 0 and n >= share * (g[2] - g[1]):
                covered += 1
                first = rank if first == 0 else min(first, rank)
                break
    return {
        "token_recall": recall,
        "token_precision": precision,
        "token_iou": iou,
        "span_recall": covered / len(gold),
        "span_hit_rate": 1.0 if first else 0.0,
        "span_mrr": 1.0 / first if first else 0.0,
    }


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        inp = json.load(f)
    enc = tiktoken.get_encoding("cl100k_base")
    docs = read_docs(inp["corpus"])
    questions = read_questions(inp["questions"])
    out = {}
    for name, ch in inp["chunkings"].items():
        chunks = {cid: tuple(v) for cid, v in ch["chunks"].items()}
        tokens = {}

        def toks(cid):
            if cid not in tokens:
                d, s, e = chunks[cid]
                tokens[cid] = enc.encode_ordinary(docs[d][s:e])
            return tokens[cid]

        res = {"budgets": {}, "prompt_tokens": {}}
        for budget in inp["budgets"]:
            per = {}
            for qid, gold in questions.items():
                if not gold:
                    continue
                prompt, left = [], budget
                for cid in ch["ranking"].get(qid, []):
                    if left <= 0:
                        break
                    t = toks(cid)
                    d, s, e = chunks[cid]
                    if len(t) <= left:
                        prompt.append((d, s, e))
                        left -= len(t)
                        continue
                    kept = len(enc.decode_bytes(t[:left]).decode("utf-8", errors="ignore"))
                    if kept > 0:
                        prompt.append((d, s, min(s + kept, e)))
                    break
                m = measures(gold, prompt, inp["share"])
                m["chunks"] = len(prompt)
                per[qid] = m
            res["budgets"][str(budget)] = per
        for qid, gold in questions.items():
            if gold:
                res["prompt_tokens"][qid] = sum(len(toks(c)) for c in ch["ranking"].get(qid, [])[: inp["k"]])
        out[name] = res
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
