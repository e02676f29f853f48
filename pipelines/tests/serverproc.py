"""Starting a server script as a Go test would: a subprocess whose stdout's
first line is its port."""
import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PY = sys.executable
CHROMA = os.path.join(os.environ.get("RAGBENCH_SHARED", os.path.join(ROOT, "..", "shared")),
                      "datasets", "chunking-chroma")


class Server:
    """A server script started with args; .port once its first stdout line
    arrived (within timeout seconds); stopped by SIGTERM on close."""

    def __init__(self, test, args, env=None):
        self.proc = subprocess.Popen([PY] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=dict(os.environ, **(env or {})))
        self.err = []
        self.drain = threading.Thread(target=lambda: self.err.extend(self.proc.stderr), daemon=True)
        self.drain.start()  # a full stderr pipe would block the server
        test.addCleanup(self.close)
        line = self.proc.stdout.readline()  # blocks until the server is ready (or dies)
        if not line.strip().isdigit():
            self.close()
            raise AssertionError(f"server {args} printed {line!r} first; stderr: {self.stderr()[-2000:]}")
        self.port = int(line)

    def stderr(self):
        return "".join(self.err)

    def close(self, timeout=10):
        """Sends SIGTERM and waits; returns how long the server took to exit
        (seconds), 0 when it had exited already."""
        took = 0.0
        if self.proc.poll() is None:
            t = time.monotonic()
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError("server did not stop within %s s of SIGTERM" % timeout)
            took = time.monotonic() - t
        self.drain.join(timeout)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return took

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"


def post(url, body, headers=None, timeout=30):
    """(status, headers, body bytes) of a POST of body (bytes, or an object
    sent as JSON)."""
    if not isinstance(body, bytes):
        body = json.dumps(body).encode()
    req = urllib.request.Request(url, data=body, method="POST",
                                 headers=dict({"Content-Type": "application/json"}, **(headers or {})))
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def get(url, timeout=30):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())
