"""Tests of the reference scorer (pipelines/reference/score.py) against values
worked by hand: docs/spans.md's worked example, and small cases of each
rule of docs/pipelines.md (placing text, ranking, unmapped passages, input
errors)."""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "pipelines", "reference"))
sys.path.insert(0, os.path.join(ROOT, "pipelines"))

import score  # noqa: E402
from ragbench_contract import load_corpus  # noqa: E402

HANDBOOK = os.path.join(ROOT, "spans", "testdata", "handbook")
HANDBOOK_LABELS = os.path.join(ROOT, "spans", "testdata", "handbook-labels.jsonl")
HANDBOOK_RUN = os.path.join(ROOT, "pipelines", "testdata", "handbook-run.jsonl")
LEAVE = "policies/leave"
# docs/spans.md: chunks #1, #2, #4 of the handbook cut at 100 characters.
C1, C2, C4 = (33, 129), (130, 163), (180, 274)


class Files:
    """Temporary run, label and corpus files for one test."""

    def __init__(self, test):
        self.dir = tempfile.mkdtemp()
        test.addCleanup(shutil.rmtree, self.dir)

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        return path

    def run(self, rows):
        return self.write("run.jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def handbook_text():
    return load_corpus(HANDBOOK)[LEAVE]


class WorkedExample(unittest.TestCase):
    """docs/spans.md's worked example, computed there by hand."""

    def test_means(self):
        out = score.score(HANDBOOK, HANDBOOK_LABELS, HANDBOOK_RUN, [1, 2])
        want = {"token_recall@1": 0.2763, "token_recall@2": 0.9934, "token_precision@1": 0.2188,
                "token_precision@2": 0.4679, "token_iou@1": 0.1615, "token_iou@2": 0.4656,
                "span_recall@1": 0.5, "span_recall@2": 1.0, "span_hit_rate@1": 0.5, "span_hit_rate@2": 1.0,
                "span_mrr@1": 0.5, "span_mrr@2": 0.75}
        for m, v in want.items():
            self.assertAlmostEqual(out["means"][m], v, places=4, msg=m)
        self.assertEqual(out["unanswerable"], ["parking"])
        self.assertEqual(out["queries"], 2)

    def test_per_query_fractions(self):
        pq = score.score(HANDBOOK, HANDBOOK_LABELS, HANDBOOK_RUN, [1, 2])["per_query"]
        self.assertAlmostEqual(pq["carry-over"]["token_recall@1"], 42 / 76, places=15)
        self.assertAlmostEqual(pq["carry-over"]["token_precision@1"], 42 / 96, places=15)
        self.assertAlmostEqual(pq["carry-over"]["token_iou@1"], 42 / (76 + 96 - 42), places=15)
        self.assertAlmostEqual(pq["carry-over"]["token_recall@2"], 75 / 76, places=15)
        self.assertAlmostEqual(pq["carry-over"]["token_precision@2"], 75 / 129, places=15)
        self.assertAlmostEqual(pq["sick-note"]["token_precision@2"], 45 / 127, places=15)
        self.assertEqual(pq["sick-note"]["span_mrr@2"], 0.5)

    def test_every_style_scores_the_same(self):
        """The same passages as offsets, byte offsets, doc + text, text alone,
        and text with white space collapsed give the same numbers."""
        t = handbook_text()
        base = score.score(HANDBOOK, HANDBOOK_LABELS, HANDBOOK_RUN, [1, 2])["means"]
        b = lambda i: len(t[:i].encode("utf-8"))  # noqa: E731
        styles = {
            "bytes": lambda s, e: {"doc": LEAVE, "start": b(s), "end": b(e), "unit": "bytes"},
            "offsets+text": lambda s, e: {"doc": LEAVE, "start": s, "end": e, "text": t[s:e]},
            "doc-text": lambda s, e: {"doc": LEAVE, "text": t[s:e]},
            "text": lambda s, e: {"text": t[s:e]},
            "text-ws": lambda s, e: {"text": "\n " + " ".join(t[s:e].split()) + "\t"},
        }
        for name, mk in styles.items():
            f = Files(self)
            run = f.run([{"qid": "carry-over", "results": [dict(mk(*C1), score=0.9), dict(mk(*C2), score=0.8)]},
                         {"qid": "sick-note", "results": [dict(mk(*C2), score=0.7), dict(mk(*C4), score=0.6)]}])
            out = score.score(HANDBOOK, HANDBOOK_LABELS, run, [1, 2])
            self.assertEqual(out["means"], base, name)
            self.assertEqual(out["unmapped"], {"absent": 0, "ambiguous": 0}, name)
        # C4 holds ’ (3 bytes): its byte offsets differ from its code points.
        self.assertNotEqual(b(C4[1]), C4[1])


class DocsExamples(unittest.TestCase):
    def test_pipelines_md(self):
        """docs/pipelines.md's four ways of writing the same passages place
        them all and score the same."""
        with open(os.path.join(ROOT, "docs", "pipelines.md"), encoding="utf-8") as f:
            lines = [x for x in f.read().splitlines() if x.startswith('{"qid": "sick-note"')]
        self.assertEqual(len(lines), 4)
        got = []
        for line in lines:
            out = score.score(HANDBOOK, HANDBOOK_LABELS, Files(self).write("run.jsonl", line + "\n"), [1, 2])
            self.assertEqual(out["unmapped"], {"absent": 0, "ambiguous": 0}, line)
            got.append((out["per_query"]["sick-note"], sum(out["placed"].values())))
        self.assertEqual(got, [got[0]] * 4)
        self.assertEqual(got[0][1], 2)
        self.assertAlmostEqual(got[0][0]["token_precision@2"], 45 / 127, places=15)


class Placing(unittest.TestCase):
    def setUp(self):
        f = Files(self)
        f.write("c/a.md", "one  two\nthree aaa four\u00a0five x\x1cy")
        f.write("c/b/c.txt", "one two three six\u2028seven")
        self.docs = load_corpus(os.path.join(f.dir, "c"))
        self.loc = score.Locator(self.docs)

    def test_ids(self):
        self.assertEqual(list(self.docs), ["a", "b/c"])

    def test_exact(self):
        self.assertEqual(self.loc.locate("three aaa"), ("exact", "a", 9, 18))
        self.assertEqual(self.loc.locate("six\u2028seven"), ("exact", "b/c", 14, 23))

    def test_exact_twice_is_ambiguous(self):
        self.assertEqual(self.loc.locate("aa")[0], "ambiguous")  # overlapping occurrences count
        self.assertEqual(self.loc.locate("three")[0], "ambiguous")  # in two documents
        self.assertEqual(self.loc.locate("three", "a"), ("exact", "a", 9, 14))  # doc given: one place

    def test_normalised(self):
        # "one two three" is exact in b/c only; in a it needs normalising, but
        # the exact hit wins and normalising is never tried.
        self.assertEqual(self.loc.locate("one two three"), ("exact", "b/c", 0, 13))
        self.assertEqual(self.loc.locate(" one two three ", "a"), ("normalised", "a", 0, 14))
        self.assertEqual(self.loc.locate("four five"), ("normalised", "a", 19, 28))  # U+00A0 is white space
        self.assertEqual(self.loc.locate("six seven"), ("normalised", "b/c", 14, 23))  # U+2028 too
        self.assertEqual(self.loc.locate("x y")[0], "absent")  # U+001C is not (Python's isspace says it is)

    def test_normalised_twice_is_ambiguous(self):
        self.assertEqual(self.loc.locate("one\ttwo")[0], "ambiguous")

    def test_absent(self):
        self.assertEqual(self.loc.locate("nowhere"), ("absent", None, None, None))


class Rules(unittest.TestCase):
    """Ranking, unmapped passages, missing queries, input errors."""

    def score(self, rows, ks=(1, 2)):
        return score.score(HANDBOOK, HANDBOOK_LABELS, Files(self).run(rows), list(ks))

    def test_score_order_and_ties(self):
        t = handbook_text()
        c = lambda iv, s: {"doc": LEAVE, "start": iv[0], "end": iv[1], "score": s}  # noqa: E731
        # listed out of order: ranked by score
        out = self.score([{"qid": "sick-note", "results": [c(C4, 1), c(C2, 2)]}])
        self.assertEqual(out["per_query"]["sick-note"]["span_mrr@2"], 0.5)
        # equal scores keep list order
        out = self.score([{"qid": "sick-note", "results": [c(C4, 1), c(C2, 1)]}])
        self.assertEqual(out["per_query"]["sick-note"]["span_mrr@1"], 1.0)
        # no scores: list order
        out = self.score([{"qid": "sick-note", "results": [{"text": t[C4[0]:C4[1]]}, {"text": t[C2[0]:C2[1]]}]}])
        self.assertEqual(out["per_query"]["sick-note"]["span_mrr@1"], 1.0)

    def test_unmapped_counts_its_length(self):
        out = self.score([{"qid": "carry-over", "results": [
            {"text": "0123456789"}, {"doc": LEAVE, "start": C1[0], "end": C1[1]}]}])
        pq = out["per_query"]["carry-over"]
        self.assertEqual(pq["token_precision@1"], 0.0)
        self.assertAlmostEqual(pq["token_precision@2"], 42 / (10 + 96), places=15)
        self.assertEqual(pq["span_mrr@2"], 0.5)
        self.assertEqual(out["unmapped"], {"absent": 1, "ambiguous": 0})
        self.assertEqual(out["unmapped_rate"], 0.5)
        self.assertEqual(out["missing_from_run"], ["sick-note"])
        self.assertEqual(out["means"]["span_recall@2"], 0.5)  # sick-note scores 0

    def test_ambiguous_text(self):
        out = self.score([{"qid": "carry-over", "results": [{"text": "leave"}]}])
        self.assertEqual(out["unmapped"], {"absent": 0, "ambiguous": 1})

    def test_empty_results_are_not_missing(self):
        out = self.score([{"qid": "carry-over", "results": []}, {"qid": 7, "results": []}])
        self.assertEqual(out["missing_from_run"], ["sick-note"])
        self.assertEqual(out["not_in_labels"], ["7"])

    def test_errors(self):
        ok = {"doc": LEAVE, "start": 0, "end": 5}
        bad = {
            "unknown key": [{"qid": "a", "results": [dict(ok, begin=1)]}],
            "start and end": [{"qid": "a", "results": [{"doc": LEAVE, "start": 0}]}],
            "start and end: want both, integers": [{"qid": "a", "results": [dict(ok, end=5.0)]}],
            "outside the document": [{"qid": "a", "results": [dict(ok, end=276)]}],
            "or empty": [{"qid": "a", "results": [dict(ok, end=0)]}],
            "inside a character": [{"qid": "a", "results": [dict(ok, start=0, end=267, unit="bytes")]}],
            "want 'code_points'": [{"qid": "a", "results": [dict(ok, unit="chars")]}],
            "differs from the document": [{"qid": "a", "results": [dict(ok, text="Leave")]}],
            "no such document": [{"qid": "a", "results": [dict(ok, doc="leave")]}],
            "offsets need their document": [{"qid": "a", "results": [{"start": 0, "end": 5}]}],
            "non-blank text": [{"qid": "a", "results": [{"text": " \n"}]}],
            "only with start and end": [{"qid": "a", "results": [{"text": "Leave", "unit": "bytes"}]}],
            "every result of a line or for none": [{"qid": "a", "results": [dict(ok, score=1), ok]}],
            "finite number": [{"qid": "a", "results": [dict(ok, score=True)]}],
            "given twice": [{"qid": "a", "results": []}, {"qid": "a", "results": []}],
            "qid: missing": [{"results": []}],
            "results: missing": [{"qid": "a"}],
        }
        for want, rows in bad.items():
            with self.assertRaises(score.InputError, msg=want) as cm:
                self.score(rows)
            self.assertIn(want, str(cm.exception))
            self.assertIn("run.jsonl:", str(cm.exception))
        for text in ['{"qid": "a", "results": [], "qid": "b"}\n',
                     '{"qid": "a", "results": [{"doc": "policies/leave", "start": 0, "end": 5, "score": NaN}]}\n']:
            with self.assertRaises(score.InputError, msg=text):
                score.score(HANDBOOK, HANDBOOK_LABELS, Files(self).write("run.jsonl", text), [1])


if __name__ == "__main__":
    unittest.main()
