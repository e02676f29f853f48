"""An independent reference of bench labels pool (docs/labelling.md, "Pooling"),
written from the documented rule, stdlib only: TestLabelsPoolPython runs it
on this folder's fixture and compares its review file with bench's.

usage: pool_ref.py RESULTS_DIR CORPUS.jsonl LABELS.jsonl DEPTH

Chunk places are computed here, not read from bench: a "fixed" chunking of
size n and overlap o is windows of n whitespace words (maximal runs of
non-space characters) starting every n - o words, the last window ending at
the document's last word; a chunk spans from its first word's first
character to its last word's end, in code points (Python str indexing).
"""
import json
import os
import re
import sys

CONTEXT = 32  # code points of prefix and suffix


def fixed_windows(text, size, overlap):
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    out, first = [], 0
    while first < len(words):
        last = min(first + size, len(words)) - 1
        out.append((words[first][0], words[last][1]))
        if last == len(words) - 1:
            break
        first += size - overlap
    return out


def read_run(path):
    run = {}
    for line in open(path, encoding="utf-8"):
        qid, _, docid, _, score, _ = line.split()
        run.setdefault(qid, []).append((docid, float(score)))
    for qid, results in run.items():
        # trec_eval's order: score descending, ties by doc id descending
        results.sort(key=lambda r: r[0], reverse=True)
        results.sort(key=lambda r: -r[1])
    return run


def main():
    results_dir, corpus_path, labels_path, depth = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    docs = {}
    for line in open(corpus_path, encoding="utf-8"):
        d = json.loads(line)
        docs[d["_id"]] = d["text"]
    queries, order = {}, []
    for line in open(labels_path, encoding="utf-8"):
        if not line.strip():
            continue
        row = json.loads(line)
        judged = []
        for g in row["gold_spans"]:
            for p in g.get("any_of", [g]):
                text = docs[p["doc"]]
                start = p["start"] if "start" in p else text.find(p["text"])
                end = p["end"] if "end" in p else start + len(p["text"])
                judged.append((p["doc"], start, end))
        queries[row["id"]] = {"question": row.get("question", ""), "judged": judged}
        order.append(row["id"])
    res = json.load(open(os.path.join(results_dir, "results.json"), encoding="utf-8"))
    items = {}
    for cell in res["cells"]:
        ch = cell["chunking"]
        assert ch["strategy"] == "fixed", ch
        chunks = {}
        for doc in docs:  # chunk ids are doc#i
            for i, (s, e) in enumerate(fixed_windows(docs[doc], ch["size"], ch["overlap"])):
                chunks["%s#%d" % (doc, i)] = (doc, s, e)
        run = read_run(os.path.join(results_dir, "runs", cell["name"].replace("/", "__") + ".trec"))
        for qid in sorted(run):
            if qid not in queries:
                continue
            for rank, (chunk, _) in enumerate(run[qid][:depth], start=1):
                doc, s, e = chunks[chunk]
                if e == s or any(jd == doc and min(je, e) > max(js, s) for jd, js, je in queries[qid]["judged"]):
                    continue
                key = (doc, s, e)
                if key not in items:
                    text = docs[doc]
                    items[key] = {"doc": doc, "start": s, "end": e, "returned": 0, "text": text[s:e],
                                  "prefix": text[max(0, s - CONTEXT):s], "suffix": text[e:e + CONTEXT], "queries": {}}
                it = items[key]
                it["returned"] += 1
                q = it["queries"].setdefault(qid, {"id": qid, "question": queries[qid]["question"], "hits": [], "grade": None})
                q["hits"].append({"cell": cell["name"], "chunk": chunk, "rank": rank})
    out = []
    for it in items.values():
        qs = list(it["queries"].values())
        qs.sort(key=lambda q: (-len(q["hits"]), min(h["rank"] for h in q["hits"]), q["id"]))
        it["queries"] = qs
        out.append(it)
    best = lambda it: min(h["rank"] for q in it["queries"] for h in q["hits"])
    out.sort(key=lambda it: (-it["returned"], best(it), it["doc"], it["start"], it["end"]))
    for it in out:
        print(json.dumps(it, ensure_ascii=False))


main()
