#!/usr/bin/env python3
"""Independent reference (test-only, stdlib only): span and token measures
of a passage run against span labels, written from the definitions, for
ragbench's Go tests to compare with to 1e-9.

    python pipelines/reference/score.py --corpus DIR --labels questions.csv --run run.passages.jsonl [--ks 1,5,10] [--per-query]

Prints one JSON object on stdout: "means" (measure -> mean over the queries
with at least one gold span), the counts of the run's results by how they
were placed (offsets, exact text, white-space-normalised text, unmapped:
absent or ambiguous) and the unmapped rate, the queries missing from the
run, and with --per-query each query's values. Exit 0; 2 with a message
naming file:line on bad input.

Definitions (docs/spans.md, docs/pipelines.md; Chroma's "Evaluating
Chunking Strategies for Retrieval", Smith & Troynikov 2024, and its
chunking_evaluation base_evaluation.py; the covering rule of spans.Covers):
for a query with gold spans G1..Gm and its top k passages C1..Ck (the run's
results in score order, ties in list order; list order without scores),
lengths in code points,
  I = union of (Ci & Gj) over all i, j, merged per document;
  token_recall@k = |I| / sum |Gj|;  token_precision@k = |I| / sum |Ci|;
  token_iou@k = |I| / (sum |Gj| + sum |Ci| - |I|)  (0 when a denominator is 0);
  Ci covers Gj when |Ci & Gj| >= 0.5 |Gj| (the cover share);
  span_recall@k = (number of Gj covered by some Ci) / m;
  span_hit_rate@k = 1 if some Gj is covered, else 0;
  span_mrr@k = 1 / (rank of the first Ci covering some Gj), else 0.
An unmapped passage (text found nowhere, or in several places) keeps its
rank, meets no gold span, and counts its text's length in sum |Ci|. A query
absent from the run scores 0 everywhere; queries with no gold span are not
averaged.
"""
import argparse
import csv
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from ragbench_contract import load_corpus  # noqa: E402

CODE_POINTS, BYTES = "code_points", "bytes"
RESULT_KEYS = {"doc", "start", "end", "unit", "text", "score", "id"}
FAMILIES = ("token_recall", "token_precision", "token_iou", "span_recall", "span_hit_rate", "span_mrr")

# Unicode's White_Space property (PropList.txt), the set Go's unicode.IsSpace
# tests: what "white space normalised" collapses.
WHITE_SPACE = frozenset(
    [chr(c) for c in range(0x09, 0x0E)] + [" ", "\x85", "\xa0", "\u1680"]
    + [chr(c) for c in range(0x2000, 0x200B)] + ["\u2028", "\u2029", "\u202f", "\u205f", "\u3000"])


class InputError(Exception):
    pass


def fail(where, msg):
    raise InputError(f"{where}: {msg}")


# ---- loading JSON strictly ------------------------------------------------

def strict_object(pairs):
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise ValueError(f"key {k!r} given twice")
        obj[k] = v
    return obj


def no_constant(name):
    raise ValueError(f"{name} is not JSON")


def loads(line):
    return json.loads(line, object_pairs_hook=strict_object, parse_constant=no_constant)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def jsonl_lines(path):
    """(line number, text) of the non-blank lines of a UTF-8 JSONL file."""
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    text = data.decode("utf-8")
    for n, line in enumerate(text.split("\n"), 1):
        if line.strip():
            yield n, line


# ---- offsets ---------------------------------------------------------------

def to_code_points(doc_text, start, end, unit, where):
    """[start, end) in unit -> code points, checked: 0 <= start < end <= length,
    byte offsets on character boundaries."""
    if unit == BYTES:
        b = doc_text.encode("utf-8")
        if not 0 <= start < end <= len(b):
            fail(where, f"span [{start}, {end}) outside the document (0 to {len(b)} bytes), or empty")
        try:
            return len(b[:start].decode("utf-8")), len(b[:end].decode("utf-8"))
        except UnicodeDecodeError:
            fail(where, f"byte offset inside a character: [{start}, {end})")
    if not 0 <= start < end <= len(doc_text):
        fail(where, f"span [{start}, {end}) outside the document (0 to {len(doc_text)} code points), or empty")
    return start, end


# ---- locating text ---------------------------------------------------------

def occurrences(hay, needle, limit=2):
    """Start positions of needle in hay, overlapping ones included, at most limit."""
    out, i = [], hay.find(needle)
    while i >= 0 and len(out) < limit:
        out.append(i)
        i = hay.find(needle, i + 1)
    return out


def normalise(s):
    """s with each maximal run of WHITE_SPACE replaced by one space, and the
    position in s of every character of the result (a run maps to its first
    character)."""
    chars, pos, prev_ws = [], [], False
    for i, c in enumerate(s):
        if c in WHITE_SPACE:
            if not prev_ws:
                chars.append(" ")
                pos.append(i)
            prev_ws = True
        else:
            chars.append(c)
            pos.append(i)
            prev_ws = False
    return "".join(chars), pos


class Locator:
    """Places passage text in the corpus: exactly (one occurrence), else
    with white space normalised (one occurrence); otherwise unmapped."""

    def __init__(self, docs):
        self.docs = docs
        self.norm = {}
        self.cache = {}

    def normalised(self, doc):
        if doc not in self.norm:
            self.norm[doc] = normalise(self.docs[doc])
        return self.norm[doc]

    def locate(self, text, doc=None):
        """(how, doc, start, end): how is "exact", "normalised", "absent" or
        "ambiguous" (doc, start, end None then). doc None searches every
        document."""
        key = (text, doc)
        if key not in self.cache:
            self.cache[key] = self._locate(text, doc)
        return self.cache[key]

    def _locate(self, text, doc):
        names = [doc] if doc is not None else list(self.docs)
        hits = []
        for d in names:
            hits += [(d, i) for i in occurrences(self.docs[d], text)]
            if len(hits) > 1:
                return "ambiguous", None, None, None
        if hits:
            d, i = hits[0]
            return "exact", d, i, i + len(text)
        t, _ = normalise(text)
        t = t.strip(" ")
        for d in names:
            nd, pos = self.normalised(d)
            hits += [(d, i, pos) for i in occurrences(nd, t)]
            if len(hits) > 1:
                return "ambiguous", None, None, None
        if hits:
            d, i, pos = hits[0]
            return "normalised", d, pos[i], pos[i + len(t) - 1] + 1
        return "absent", None, None, None


# ---- the passage run -------------------------------------------------------

def read_run(path, docs, locator, counts, unmapped_list):
    """qid -> ranked passages [(doc, start, end, length)], doc None for an
    unmapped passage (length = its text's code points)."""
    run = {}
    for n, line in jsonl_lines(path):
        where = f"{path}:{n}"
        try:
            obj = loads(line)
        except ValueError as e:
            fail(where, f"not JSON: {e}")
        if not isinstance(obj, dict):
            fail(where, "want a JSON object")
        qid = obj.get("qid")
        if is_int(qid):
            qid = str(qid)
        if not isinstance(qid, str) or qid == "":
            fail(where + ": qid", "missing (want a non-empty string or an integer)")
        if qid in run:
            fail(where + ": qid", f"query {qid!r} given twice (first at line {run[qid][0]})")
        results = obj.get("results")
        if not isinstance(results, list):
            fail(where + ": results", "missing (want a list, [] for none)")
        placed, scores = [], []
        for i, r in enumerate(results):
            w = f"{where}: results[{i}]"
            if not isinstance(r, dict):
                fail(w, "want a JSON object")
            extra = sorted(set(r) - RESULT_KEYS)
            if extra:
                fail(w, f"unknown key {extra[0]!r} (want {', '.join(sorted(RESULT_KEYS))})")
            score = r.get("score")
            if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))
                                      or not math.isfinite(score)):
                fail(w + ".score", "want a finite number")
            scores.append(score)
            doc, text = r.get("doc"), r.get("text")
            if doc is not None and (not isinstance(doc, str) or doc not in docs):
                fail(w + ".doc", f"no such document in the corpus: {doc!r}")
            if text is not None and not isinstance(text, str):
                fail(w + ".text", "want a string")
            if "id" in r and not isinstance(r["id"], str):
                fail(w + ".id", "want a string")
            counts["results"] += 1
            if "start" in r or "end" in r:
                s, e, unit = r.get("start"), r.get("end"), r.get("unit", CODE_POINTS)
                if not is_int(s) or not is_int(e):
                    fail(w, "start and end: want both, integers")
                if unit not in (CODE_POINTS, BYTES):
                    fail(w + ".unit", f"want {CODE_POINTS!r} (the default) or {BYTES!r}, got {unit!r}")
                if doc is None:
                    fail(w + ".doc", "missing (offsets need their document)")
                s, e = to_code_points(docs[doc], s, e, unit, w)
                if text is not None and docs[doc][s:e] != text:
                    fail(w + ".text", f"differs from the document at [{s}, {e}) code points")
                counts["offsets"] += 1
                placed.append((doc, s, e, e - s))
                continue
            if "unit" in r:
                fail(w + ".unit", "only with start and end")
            if text is None or text.strip("".join(WHITE_SPACE)) == "":
                fail(w, "want doc, start and end, or a non-blank text")
            how, d, s, e = locator.locate(text, doc)
            counts[how] += 1
            if d is None:
                unmapped_list.append({"qid": qid, "index": i, "reason": how, "text": text[:80]})
                placed.append((None, 0, 0, len(text)))
            else:
                placed.append((d, s, e, e - s))
        if any(s is None for s in scores) and any(s is not None for s in scores):
            fail(where + ": results", "score: give it for every result of a line or for none")
        if scores and scores[0] is not None:
            order = sorted(range(len(placed)), key=lambda j: -scores[j])  # stable: ties keep list order
            placed = [placed[j] for j in order]
        run[qid] = (n, placed)
    return {q: p for q, (_, p) in run.items()}


# ---- labels ----------------------------------------------------------------

def read_labels(path, docs):
    """[(qid, [(doc, start, end)])] in file order, code points."""
    out = []
    if path.endswith(".csv"):
        with open(path, encoding="utf-8", newline="") as f:
            rd = csv.reader(f)
            header = [h.lstrip("\ufeff") for h in next(rd)]
            col = {h: i for i, h in enumerate(header)}
            for i, row in enumerate(rd):
                where = f"{path}: row {i + 1}"
                doc = row[col["corpus_id"]]
                if doc not in docs:
                    fail(where, f"corpus_id {doc!r}: no such document")
                gold = []
                for j, ref in enumerate(json.loads(row[col["references"]])):
                    s, e = ref["start_index"], ref["end_index"]
                    if docs[doc][s:e] != ref["content"] or not 0 <= s < e:
                        fail(f"{where}: references[{j}]", "content differs from the document")
                    gold.append((doc, s, e))
                out.append((str(i), gold))
        return out
    for n, line in jsonl_lines(path):
        where = f"{path}:{n}"
        obj = loads(line)
        qid = obj.get("id", obj.get("qid"))
        if is_int(qid):
            qid = str(qid)
        if not isinstance(qid, str) or not isinstance(obj.get("gold_spans"), list):
            fail(where, "want an id (or qid) and gold_spans")
        gold = []
        for j, g in enumerate(obj["gold_spans"]):
            w = f"{where}: gold_spans[{j}]"
            doc, text = g.get("doc"), g.get("text")
            if doc not in docs:
                fail(w, f"no such document {doc!r}")
            if "start" in g:
                s, e = to_code_points(docs[doc], g["start"], g["end"], g.get("unit", CODE_POINTS), w)
                if text is not None and docs[doc][s:e] != text:
                    fail(w, "text differs from the document")
            else:
                hits = occurrences(docs[doc], text)
                if len(hits) != 1:
                    fail(w, f"text found {len(hits)} times (want exactly once)")
                s, e = hits[0], hits[0] + len(text)
            gold.append((doc, s, e))
        out.append((qid, gold))
    return out


# ---- measures --------------------------------------------------------------

def overlap(a, b):
    """|a & b| for (doc, start, end[, ...]) tuples; 0 across documents."""
    if a[0] is None or a[0] != b[0]:
        return 0
    return max(0, min(a[2], b[2]) - max(a[1], b[1]))


def union_length(ivs):
    total = 0
    by_doc = {}
    for d, s, e in ivs:
        by_doc.setdefault(d, []).append((s, e))
    for spans in by_doc.values():
        spans.sort()
        cur_s, cur_e = spans[0]
        for s, e in spans[1:]:
            if s > cur_e:
                total += cur_e - cur_s
                cur_s, cur_e = s, e
            else:
                cur_e = max(cur_e, e)
        total += cur_e - cur_s
    return total


def measures(gold, passages, k, share):
    top = passages[:k]
    inter = [(c[0], max(c[1], g[1]), min(c[2], g[2])) for c in top for g in gold if overlap(c, g) > 0]
    i_len = union_length(inter) if inter else 0
    g_sum = sum(e - s for _, s, e in gold)
    c_sum = sum(c[3] for c in top)
    covered = [any(overlap(c, g) >= share * (g[2] - g[1]) for c in top) for g in gold]
    first = next((r for r, c in enumerate(top, 1)
                  if any(overlap(c, g) >= share * (g[2] - g[1]) for g in gold)), None)
    return {
        "token_recall": i_len / g_sum if g_sum else 0.0,
        "token_precision": i_len / c_sum if c_sum else 0.0,
        "token_iou": i_len / (g_sum + c_sum - i_len) if g_sum + c_sum - i_len else 0.0,
        "span_recall": sum(covered) / len(gold),
        "span_hit_rate": 1.0 if any(covered) else 0.0,
        "span_mrr": 1.0 / first if first else 0.0,
    }


def score(corpus, labels, run_path, ks, share=0.5):
    docs = load_corpus(corpus)
    queries = read_labels(labels, docs)
    counts = dict.fromkeys(["results", "offsets", "exact", "normalised", "absent", "ambiguous"], 0)
    unmapped = []
    run = read_run(run_path, docs, Locator(docs), counts, unmapped)
    per_query, missing, unanswerable = {}, [], []
    for qid, gold in queries:
        if not gold:
            unanswerable.append(qid)
            continue
        if qid not in run:
            missing.append(qid)
        passages = run.get(qid, [])
        per_query[qid] = {f"{fam}@{k}": v for k in ks for fam, v in measures(gold, passages, k, share).items()}
    names = [f"{fam}@{k}" for fam in FAMILIES for k in ks]
    n = len(per_query)
    means = {m: (sum(v[m] for v in per_query.values()) / n if n else 0.0) for m in names}
    labelled = {q for q, _ in queries}
    n_unmapped = counts["absent"] + counts["ambiguous"]
    return {
        "corpus": corpus, "labels": labels, "run": run_path, "ks": ks, "cover_share": share,
        "queries": n, "unanswerable": unanswerable, "missing_from_run": missing,
        "not_in_labels": sorted(q for q in run if q not in labelled),
        "results": counts["results"],
        "placed": {"offsets": counts["offsets"], "exact": counts["exact"], "normalised": counts["normalised"]},
        "unmapped": {"absent": counts["absent"], "ambiguous": counts["ambiguous"]},
        "unmapped_rate": n_unmapped / counts["results"] if counts["results"] else 0.0,
        "unmapped_results": unmapped,
        "means": means,
        "per_query": per_query,
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", required=True, help="corpus folder (.md/.txt; doc id = path without extension)")
    ap.add_argument("--labels", required=True, help="Chroma questions.csv, or JSONL span labels (gold_spans)")
    ap.add_argument("--run", required=True, help="passage run (JSONL)")
    ap.add_argument("--ks", default="1,5,10", help="cutoffs [1,5,10]")
    ap.add_argument("--cover-share", type=float, default=0.5, help="share of a gold span a passage must hold [0.5]")
    ap.add_argument("--per-query", action="store_true", help="include every query's values")
    a = ap.parse_args(argv)
    ks = [int(k) for k in a.ks.split(",")]
    if any(k < 1 for k in ks) or not 0 < a.cover_share <= 1:
        ap.error("ks must be >= 1 and the cover share in (0, 1]")
    try:
        out = score(a.corpus, a.labels, a.run, ks, a.cover_share)
    except (InputError, OSError, UnicodeDecodeError, ValueError, KeyError) as e:
        sys.stderr.write(f"score: {e}\n")
        return 2
    if not a.per_query:
        del out["per_query"]
    json.dump(out, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
