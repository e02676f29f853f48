"""Tests of pipelines/ragbench_contract.py: the server side of the HTTP
contract (docs/pipelines.md) with a toy search, the run writer, the corpus
and question readers."""
import json
import os
import shutil
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import ragbench_contract as rc  # noqa: E402
from serverproc import post  # noqa: E402


def toy_search(query, k, qid):
    if query == "boom":
        raise RuntimeError("the index is gone")
    return [{"text": f"{qid}:{query}:{i}", "score": float(k - i)} for i in range(k)]


class ContractServer(unittest.TestCase):
    def start(self, token_env=None):
        srv = rc.make_server(toy_search, port=0, token_env=token_env)
        t = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        t.start()
        self.addCleanup(lambda: (srv.shutdown(), srv.server_close(), t.join()))
        return f"http://127.0.0.1:{srv.server_address[1]}"

    def test_answer(self):
        base = self.start()
        st, hdr, body = post(base + "/search", {"qid": "q-1", "query": "héllo", "k": 2, "extra": True})
        self.assertEqual(st, 200)
        self.assertTrue(hdr["Content-Type"].startswith("application/json"))
        self.assertEqual(json.loads(body), {"qid": "q-1", "results": [
            {"text": "q-1:héllo:0", "score": 2.0}, {"text": "q-1:héllo:1", "score": 1.0}]})

    def test_bad_requests(self):
        base = self.start()
        for body, want in [(b"not json", "not JSON"), (b"[]", "not a JSON object"),
                           ({"query": "x", "k": 1}, '"qid"'), ({"qid": 1, "query": "x", "k": 1}, '"qid"'),
                           ({"qid": "a", "k": 1}, '"query"'), ({"qid": "a", "query": "x", "k": 0}, '"k"'),
                           ({"qid": "a", "query": "x", "k": True}, '"k"'), ({"qid": "a", "query": "x", "k": 1.5}, '"k"')]:
            st, _, out = post(base + "/search", body)
            self.assertEqual(st, 400, body)
            self.assertIn(want, json.loads(out)["error"])

    def test_statuses(self):
        base = self.start()
        req = {"qid": "a", "query": "x", "k": 1}
        self.assertEqual(post(base + "/other", req)[0], 404)
        st, _, out = post(base + "/search", dict(req, query="boom"))
        self.assertEqual(st, 500)
        self.assertNotIn("the index is gone", out.decode())  # no internals in the answer
        st, _, _ = post(base + "/search", b"x" * (rc.MAX_REQUEST_BYTES + 1))
        self.assertEqual(st, 413)

    def test_bearer_token(self):
        os.environ["RC_TEST_TOKEN"] = "tok-123"
        self.addCleanup(os.environ.pop, "RC_TEST_TOKEN")
        base = self.start(token_env="RC_TEST_TOKEN")
        req = {"qid": "a", "query": "x", "k": 1}
        st, hdr, _ = post(base + "/search", req)
        self.assertEqual(st, 401)
        self.assertEqual(hdr["WWW-Authenticate"], "Bearer")
        self.assertEqual(post(base + "/search", req, {"Authorization": "Bearer nope"})[0], 401)
        self.assertEqual(post(base + "/search", req, {"Authorization": "Bearer tok-123"})[0], 200)

    def test_token_env_unset(self):
        with self.assertRaisesRegex(ValueError, "RC_TEST_UNSET is unset or empty"):
            rc.make_server(toy_search, token_env="RC_TEST_UNSET")


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def test_write_run_is_deterministic_and_whole(self):
        path = os.path.join(self.dir, "run.jsonl")
        rows = [("q1", [{"doc": "a", "start": 0, "end": 3, "score": 0.1 + 0.2}]), ("q2", [{"text": "é"}])]
        rc.write_run(path, rows)
        with open(path, "rb") as f:
            data = f.read()
        self.assertEqual(data, '{"qid": "q1", "results": [{"doc": "a", "start": 0, "end": 3, "score": '
                               '0.30000000000000004}]}\n{"qid": "q2", "results": [{"text": "é"}]}\n'.encode())
        umask = os.umask(0)
        os.umask(umask)
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o666 & ~umask)  # as open() makes it, not mkstemp's 0600

        def broken():
            yield "q3", []
            raise RuntimeError("pipeline died")

        with self.assertRaises(RuntimeError):
            rc.write_run(path, broken())
        with open(path, "rb") as f:
            self.assertEqual(f.read(), data)  # the old run is intact
        self.assertEqual(sorted(os.listdir(self.dir)), ["run.jsonl"])  # no temporary left

    def test_questions(self):
        csv_path = os.path.join(self.dir, "q.csv")
        with open(csv_path, "w", encoding="utf-8", newline="") as f:
            f.write('question,references,corpus_id\n"a, b?","[]",d\nc?,"[]",d\n')
        self.assertEqual(rc.read_questions(csv_path), [("0", "a, b?"), ("1", "c?")])
        jl = os.path.join(self.dir, "q.jsonl")
        with open(jl, "w", encoding="utf-8") as f:
            f.write('\ufeff{"id": "x", "question": "q1"}\n\n{"qid": 2, "text": "q2"}\n')
        self.assertEqual(rc.read_questions(jl), [("x", "q1"), ("2", "q2")])

    def test_corpus_newlines(self):
        os.makedirs(os.path.join(self.dir, "c", "sub"))
        with open(os.path.join(self.dir, "c", "sub", "a.md"), "wb") as f:
            f.write(b"\xef\xbb\xbfx\r\ny\rz\n")
        with open(os.path.join(self.dir, "c", "skip.json"), "w") as f:
            f.write("{}")
        self.assertEqual(rc.load_corpus(os.path.join(self.dir, "c")), {"sub/a": "\ufeffx\ny\nz\n"})

    def test_styles(self):
        docs = {"d": "a’b\n\nc  d"}
        self.assertEqual(rc.make_result("offsets", docs, "d", 1, 6, 2.5), {"doc": "d", "start": 1, "end": 6, "score": 2.5})
        self.assertEqual(rc.make_result("bytes", docs, "d", 1, 6, None), {"doc": "d", "start": 1, "end": 8, "unit": "bytes"})
        self.assertEqual(rc.make_result("doc-text", docs, "d", 1, 6, None), {"doc": "d", "text": "’b\n\nc"})
        self.assertEqual(rc.make_result("text", docs, "d", 0, 9, None), {"text": "a’b\n\nc  d"})
        self.assertEqual(rc.make_result("text-ws", docs, "d", 0, 9, None), {"text": "a’b c d"})


if __name__ == "__main__":
    unittest.main()
