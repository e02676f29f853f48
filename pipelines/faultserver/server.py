#!/usr/bin/env python3
"""A retriever service that misbehaves on request (test-only, stdlib only):
a real HTTP server for the Go tests of ragbench's `type: http` retriever
(docs/pipelines.md, "Fault server"). The behaviour is chosen by the path
the retriever's url names, so one server serves every fault:

    python pipelines/faultserver/server.py --corpus DIR [--port 0] [--token-env NAME]
    python pipelines/faultserver/server.py --refuse [--port 0]

The port is printed alone on stdout's first line once the server is ready.
Every POST is first checked against the contract's request ({"qid",
"query", "k"}); a bad one gets 400 and is counted (GET /stats).

  POST /ok                 200, k passages (doc + start/end), scores k..1
  POST /flaky/N[/CODE]     CODE (default 500) for the first N requests of each
                           qid, then as /ok; ?retry_after=S adds Retry-After: S
  POST /status/CODE        always CODE with {"error": ...}; ?echo=auth puts the
                           request's Authorization header into the body, as a
                           careless proxy would (redaction tests)
  POST /slow/SECONDS       waits SECONDS (a decimal), then as /ok
  POST /malformed/KIND     200 with a bad answer: notjson, truncated, schema
                           (results not a list), badresult (start without end),
                           badspan (end past the document), unknowndoc, nan
                           (a NaN score), mismatch (another qid), toomany (k + 1
                           results)
  POST /unmapped/P         k results, the last floor(k*P/100) of them text found
                           nowhere in the corpus, the others as /ok
  POST /ambiguous          k results whose text occurs several times in the corpus
  POST /big/MB             200, a valid answer of MB * 1,000,000 bytes (one huge
                           text); ?length=none sends no Content-Length (read
                           until the connection closes)
  POST /redirect           307 to /ok (a client must not follow it)
  POST /hangup             closes the connection without an answer
  POST /auth               401 unless "Authorization: Bearer $NAME" (--token-env
                           NAME), then as /ok
  GET  /stats              {"requests": {path: n}, "per_qid": {path: {qid: n}},
                           "bad_requests": [reasons], "authorization_headers": n}
  POST /reset              clears the counters (and /flaky's)

--refuse binds the port without listening: every connection is refused
(and the port stays taken, so nothing else answers there). Logs (stderr)
never hold a header's value.
"""
import argparse
import collections
import json
import os
import re
import socket
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from ragbench_contract import (ContractHandler, check_request, dumps_line, load_corpus,  # noqa: E402
                               make_server, serve_forever)


class Faults:
    """The server's counters and corpus-derived answers."""

    def __init__(self, docs):
        self.docs = docs
        self.ids = list(docs)
        self.lock = threading.Lock()
        self.reset()
        words = collections.Counter(w for t in docs.values() for w in t.split() if len(w) >= 3)
        self.common = words.most_common(1)[0][0] if words else None

    def reset(self):
        with self.lock:
            self.requests = collections.Counter()
            self.per_qid = collections.defaultdict(collections.Counter)
            self.bad = []
            self.auth_headers = 0

    def count(self, path, qid):
        """Counts a request; returns how many requests path has had for qid (this one included)."""
        with self.lock:
            self.requests[path] += 1
            if qid is not None:
                self.per_qid[path][qid] += 1
                return self.per_qid[path][qid]
            return 0

    def stats(self):
        with self.lock:
            return {"requests": dict(self.requests), "per_qid": {p: dict(c) for p, c in self.per_qid.items()},
                    "bad_requests": list(self.bad), "authorization_headers": self.auth_headers}

    def ok(self, qid, k):
        """k passages: windows of 100 code points, document i mod n, scores k..1."""
        out = []
        for i in range(k):
            doc = self.ids[i % len(self.ids)]
            n = len(self.docs[doc])
            start = min((i // len(self.ids)) * 100, max(0, n - 1))
            out.append({"doc": doc, "start": start, "end": min(start + 100, n), "score": float(k - i)})
        return out


class FaultHandler(ContractHandler):
    server_version = "ragbench-faults/1"

    def log_message(self, format, *args):  # noqa: A002
        sys.stderr.write("faults: %s\n" % (format % args))

    def do_GET(self):
        if urlsplit(self.path).path == "/stats":
            self.answer(200, self.server.faults.stats())
            return
        self.answer(405, {"error": "POST a JSON request (GET /stats for the counters)"}, [("Allow", "POST")])

    def do_POST(self):
        f = self.server.faults
        body = self.read_body()
        if body is None:
            return
        url = urlsplit(self.path)
        path, query = url.path, parse_qs(url.query)
        if path == "/reset":
            f.reset()
            self.answer(200, {"reset": True})
            return
        if "Authorization" in self.headers:
            with f.lock:
                f.auth_headers += 1
        try:
            qid, _, k = check_request(body)
        except ValueError as e:
            with f.lock:
                f.bad.append(f"{path}: {e}")
            f.count(path, None)
            self.answer(400, {"error": str(e)})
            return
        attempt = f.count(path, qid)
        sys.stderr.write(f"faults: {path} qid={qid} k={k} attempt={attempt} "
                         f"authorization={'present' if 'Authorization' in self.headers else 'absent'}\n")
        try:
            self.fault(path, query, qid, k, attempt)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout): nothing to answer

    def fault(self, path, query, qid, k, attempt):
        f = self.server.faults
        parts = path.strip("/").split("/")
        head, args = parts[0], parts[1:]
        if head == "ok" and not args:
            self.answer(200, {"qid": qid, "results": f.ok(qid, k)})
        elif head == "flaky" and 1 <= len(args) <= 2 and all(a.isdigit() for a in args):
            code = int(args[1]) if len(args) == 2 else 500
            if attempt <= int(args[0]):
                hdr = [("Retry-After", query["retry_after"][0])] if "retry_after" in query else []
                self.answer(code, {"error": f"flaky: failure {attempt} of {args[0]} for qid {qid}"}, hdr)
            else:
                self.answer(200, {"qid": qid, "results": f.ok(qid, k)})
        elif head == "status" and len(args) == 1 and args[0].isdigit():
            err = {"error": f"status {args[0]} as asked"}
            if query.get("echo") == ["auth"]:
                err["request_authorization"] = self.headers.get("Authorization", "")
            self.answer(int(args[0]), err)
        elif head == "slow" and len(args) == 1 and re.fullmatch(r"\d+(\.\d+)?", args[0]):
            time.sleep(float(args[0]))
            self.answer(200, {"qid": qid, "results": f.ok(qid, k)})
        elif head == "malformed" and len(args) == 1:
            self.malformed(args[0], qid, k)
        elif head == "unmapped" and len(args) == 1 and args[0].isdigit() and int(args[0]) <= 100:
            res = f.ok(qid, k)
            n = k * int(args[0]) // 100
            for i in range(k - n, k):
                res[i] = {"text": f"not in the corpus: qid {qid}, result {i}", "score": res[i]["score"]}
            self.answer(200, {"qid": qid, "results": res})
        elif head == "ambiguous" and not args and f.common:
            self.answer(200, {"qid": qid, "results": [{"text": f.common, "score": float(k - i)} for i in range(k)]})
        elif head == "big" and len(args) == 1 and args[0].isdigit():
            self.big(int(args[0]) * 1_000_000, qid, query.get("length") != ["none"])
        elif head == "redirect" and not args:
            self.answer(307, {"error": "moved"}, [("Location", "/ok")])
        elif head == "hangup" and not args:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif head == "auth" and not args:
            tok = self.server.token
            if tok is None:
                self.answer(500, {"error": "start the fault server with --token-env for /auth"})
            elif self.headers.get("Authorization") != "Bearer " + tok:
                self.answer(401, {"error": "missing or wrong bearer token"}, [("WWW-Authenticate", "Bearer")])
            else:
                self.answer(200, {"qid": qid, "results": f.ok(qid, k)})
        else:
            self.answer(404, {"error": f"no fault {path!r} (see the server's --help)"})

    def raw(self, status, body, length=True):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if length:
            self.send_header("Content-Length", str(len(body)))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def malformed(self, kind, qid, k):
        f = self.server.faults
        doc = f.ids[0]
        n = len(f.docs[doc])
        bodies = {
            "notjson": b"<html><body>502 Bad Gateway</body></html>\n",
            "truncated": dumps_line({"qid": qid, "results": f.ok(qid, k)}).encode()[:-7],
            "schema": dumps_line({"qid": qid, "results": "none"}).encode(),
            "badresult": dumps_line({"qid": qid, "results": [{"doc": doc, "start": 10, "score": 1.0}]}).encode(),
            "badspan": dumps_line({"qid": qid, "results": [{"doc": doc, "start": n - 5, "end": n + 5}]}).encode(),
            "unknowndoc": dumps_line({"qid": qid, "results": [{"doc": "no/such/doc", "start": 0, "end": 5}]}).encode(),
            "nan": ('{"qid": %s, "results": [{"doc": %s, "start": 0, "end": 5, "score": NaN}]}'
                    % (json.dumps(qid), json.dumps(doc))).encode(),
            "mismatch": dumps_line({"qid": qid + "-other", "results": f.ok(qid, k)}).encode(),
            "toomany": dumps_line({"qid": qid, "results": f.ok(qid, k + 1)}).encode(),
        }
        if kind not in bodies:
            self.answer(404, {"error": f"no malformed kind {kind!r} (want {', '.join(bodies)})"})
            return
        self.raw(200, bodies[kind])

    def big(self, size, qid, length):
        head = ('{"qid": %s, "results": [{"text": "' % json.dumps(qid)).encode()
        tail = b'", "score": 1.0}]}\n'
        fill = max(0, size - len(head) - len(tail))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        if length:
            self.send_header("Content-Length", str(len(head) + fill + len(tail)))
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(head)
        block = b"x" * (1 << 20)
        while fill > 0:
            self.wfile.write(block[:fill])
            fill -= min(fill, len(block))
        self.wfile.write(tail)


def refuse(port):
    """Binds 127.0.0.1:port without listening (connections are refused),
    prints the port, waits for SIGTERM or Ctrl-C."""
    import signal

    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", port))
    print(s.getsockname()[1], flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        s.close()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="\n".join(__doc__.split("\n\n")[2:]),
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", help="corpus folder the answers point into (required unless --refuse)")
    ap.add_argument("--port", type=int, default=0, help="port; 0 picks a free one [0]")
    ap.add_argument("--token-env", help="environment variable holding the bearer token /auth requires")
    ap.add_argument("--refuse", action="store_true", help="take the port but refuse every connection")
    a = ap.parse_args(argv)
    if a.refuse:
        refuse(a.port)
        return
    if not a.corpus:
        ap.error("--corpus is required (the answers point into it)")
    srv = make_server(None, port=a.port, path=None, quiet=False, handler=FaultHandler)
    srv.faults = Faults(load_corpus(a.corpus))
    if a.token_env:
        tok = os.environ.get(a.token_env, "")
        if not tok:
            ap.error(f"environment variable {a.token_env} is unset or empty")
        srv.token = tok
    serve_forever(srv)


if __name__ == "__main__":
    main()
