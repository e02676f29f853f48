"""Tests of pipelines/faultserver/server.py: each fault as a Go test will
meet it, against the real server process."""
import http.client
import json
import os
import socket
import sys
import threading
import time
import types
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from serverproc import ROOT, Server, get, post  # noqa: E402

SCRIPT = os.path.join(ROOT, "pipelines", "faultserver", "server.py")
CORPUS = os.path.join(ROOT, "spans", "testdata", "handbook")
REQ = {"qid": "q1", "query": "leave", "k": 3}


class FaultServer(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.token = "fault-token-" + os.urandom(4).hex()
        cls.srv = Server(types.SimpleNamespace(addCleanup=cls.addClassCleanup),
                         [SCRIPT, "--corpus", CORPUS, "--token-env", "FAULT_TEST_TOKEN"],
                         env={"FAULT_TEST_TOKEN": cls.token})

    @classmethod
    def tearDownClass(cls):
        cls.srv.close()
        assert cls.token not in cls.srv.stderr(), "the token reached the fault server's log"

    def call(self, path, body=REQ, headers=None, timeout=30):
        st, hdr, out = post(self.srv.url(path), body, headers, timeout)
        return st, hdr, out

    def test_ok(self):
        st, _, out = self.call("/ok")
        self.assertEqual(st, 200)
        res = json.loads(out)["results"]
        self.assertEqual(len(res), 3)
        self.assertEqual(res[0], {"doc": "policies/leave", "start": 0, "end": 100, "score": 3.0})
        self.assertEqual([r["score"] for r in res], [3.0, 2.0, 1.0])

    def test_flaky(self):
        body = dict(REQ, qid="flaky-1")
        got = [self.call("/flaky/2", body)[0] for _ in range(4)]
        self.assertEqual(got, [500, 500, 200, 200])
        self.assertEqual(self.call("/flaky/2", dict(REQ, qid="flaky-2"))[0], 500)  # counted per qid
        st, hdr, _ = self.call("/flaky/1/503?retry_after=2", dict(REQ, qid="flaky-3"))
        self.assertEqual((st, hdr["Retry-After"]), (503, "2"))
        self.assertEqual(get(self.srv.url("/stats"))["per_qid"]["/flaky/2"]["flaky-1"], 4)

    def test_status_and_echo(self):
        self.assertEqual(self.call("/status/401")[0], 401)
        st, _, out = self.call("/status/502?echo=auth", headers={"Authorization": "Bearer echo-me"})
        self.assertEqual(st, 502)
        self.assertEqual(json.loads(out)["request_authorization"], "Bearer echo-me")

    def test_slow(self):
        t = time.monotonic()
        self.assertEqual(self.call("/slow/0.5")[0], 200)
        self.assertGreaterEqual(time.monotonic() - t, 0.5)
        with self.assertRaises((socket.timeout, urllib.error.URLError)):
            self.call("/slow/3", timeout=0.5)
        self.assertEqual(self.call("/ok")[0], 200)  # a client that gave up does not hurt the server

    def test_malformed(self):
        for kind in ["notjson", "truncated", "schema", "badresult", "badspan", "unknowndoc", "nan", "mismatch", "toomany"]:
            st, _, out = self.call("/malformed/" + kind)
            self.assertEqual(st, 200, kind)
            try:
                obj = json.loads(out, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            except ValueError:
                self.assertIn(kind, ["notjson", "truncated", "nan"])
                continue
            if kind == "schema":
                self.assertNotIsInstance(obj["results"], list)
            elif kind == "mismatch":
                self.assertNotEqual(obj["qid"], REQ["qid"])
            elif kind == "badresult":
                self.assertNotIn("end", obj["results"][0])
            elif kind == "badspan":
                self.assertGreater(obj["results"][0]["end"], 275)
            elif kind == "toomany":
                self.assertEqual(len(obj["results"]), REQ["k"] + 1)
            elif kind == "unknowndoc":
                self.assertEqual(obj["results"][0]["doc"], "no/such/doc")
            else:
                self.fail(f"{kind} answered valid JSON")

    def test_unmapped_and_ambiguous(self):
        st, _, out = self.call("/unmapped/30", dict(REQ, k=10))
        res = json.loads(out)["results"]
        self.assertEqual([("text" in r) for r in res], [False] * 7 + [True] * 3)
        self.assertTrue(all("not in the corpus" in r["text"] for r in res[7:]))
        with open(os.path.join(CORPUS, "policies", "leave.md"), encoding="utf-8") as f:
            text = f.read()
        st, _, out = self.call("/ambiguous")
        word = json.loads(out)["results"][0]["text"]
        self.assertGreater(text.count(word), 1)

    def test_big(self):
        for path, length in [("/big/3", True), ("/big/2?length=none", False)]:
            st, hdr, out = self.call(path)
            self.assertEqual(st, 200)
            self.assertEqual("Content-Length" in hdr, length)
            self.assertEqual(len(out), int(path[5]) * 1_000_000)
            self.assertEqual(len(json.loads(out)["results"]), 1)

    def test_redirect(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.srv.port, timeout=10)
        self.addCleanup(conn.close)
        conn.request("POST", "/redirect", json.dumps(REQ), {"Content-Type": "application/json"})
        r = conn.getresponse()
        self.assertEqual((r.status, r.getheader("Location")), (307, "/ok"))

    def test_hangup(self):
        with self.assertRaises((urllib.error.URLError, ConnectionError, http.client.HTTPException)):
            self.call("/hangup")

    def test_auth(self):
        self.assertEqual(self.call("/auth")[0], 401)
        self.assertEqual(self.call("/auth", headers={"Authorization": "Bearer wrong"})[0], 401)
        self.assertEqual(self.call("/auth", headers={"Authorization": "Bearer " + self.token})[0], 200)

    def test_bad_request_counted(self):
        self.assertEqual(self.call("/ok", {"qid": "x", "query": "q"})[0], 400)
        self.assertIn('/ok: "k": want an integer >= 1', get(self.srv.url("/stats"))["bad_requests"])


class Refuse(unittest.TestCase):
    def test_refused_and_stops(self):
        srv = Server(self, [SCRIPT, "--refuse"])
        with self.assertRaises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", srv.port), timeout=5)
        srv.close()  # fails when the server outlives SIGTERM by 10 s (not a timing bound: the machine may be loaded)


class Stop(unittest.TestCase):
    def test_sigterm_mid_request(self):
        srv = Server(self, [SCRIPT, "--corpus", CORPUS])
        self.assertEqual(post(srv.url("/ok"), REQ)[0], 200)
        t = threading.Thread(target=lambda: self.assertRaises(Exception, post, srv.url("/slow/30"), REQ), daemon=True)
        t.start()
        time.sleep(0.3)  # the request is being answered
        srv.close()  # fails when the server outlives SIGTERM by 10 s (not a timing bound: the machine may be loaded)
        self.assertEqual(srv.proc.returncode, 0)
        t.join(5)


if __name__ == "__main__":
    unittest.main()
