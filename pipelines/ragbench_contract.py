"""ragbench's side of a pipeline, stdlib only: read the corpus and questions as
bench reads them, write a passage run, and serve a retriever over HTTP.

The formats are docs/pipelines.md's; this module is what the reference
pipelines (pipelines/langchain, pipelines/llamaindex) and the fault server
share, and what a user may copy next to their own pipeline. It depends on
nothing but the standard library, so it runs in any Python >= 3.9.

    docs = load_corpus("corpora")            # doc id -> text, as bench reads a folder
    questions = read_questions("questions.csv")  # [(qid, question)]
    write_run("run.passages.jsonl", ((qid, search(q, 10)) for qid, q in questions))
    serve(search, port=0)                   # POST {"qid", "query", "k"} -> {"results"}
"""

import csv
import json
import os
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Folder corpora: the file extensions bench reads (corpus.FolderExts).
FOLDER_EXTS = (".md", ".txt")

# Largest request body a server reads (a request is a question: a few KB).
MAX_REQUEST_BYTES = 1 << 20
# DRAIN_BYTES: a body over MAX_REQUEST_BYTES but at most this long is read and dropped
# before the 413 (see read_body).
DRAIN_BYTES = 4 << 20


def load_corpus(folder):
    """Documents of a corpus folder, as bench's corpus.LoadFolder reads them:
    every .md or .txt file at any depth is one document whose id is its path
    inside folder without the extension, '/'-separated; text is UTF-8 read
    with universal newlines ("\\r\\n" and "\\r" become "\\n"), a byte order
    mark kept. Returns {doc id: text} in id order. Errors: OSError,
    UnicodeDecodeError, ValueError for two files with one id or none at all."""
    docs = {}
    for root, dirs, files in os.walk(folder, followlinks=True):
        dirs.sort()
        for name in sorted(files):
            stem, ext = os.path.splitext(name)
            if ext not in FOLDER_EXTS:
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(os.path.join(root, stem), folder).replace(os.sep, "/")
            if rel in docs:
                raise ValueError(f"{path}: doc id {rel!r} given by two files")
            with open(path, encoding="utf-8") as f:  # universal newlines, as bench reads
                docs[rel] = f.read()
    if not docs:
        raise ValueError(f"{folder}: empty corpus: no .md or .txt file")
    return dict(sorted(docs.items()))


def read_questions(path):
    """Questions as [(qid, question text)] in file order. A .csv file is
    Chroma's questions.csv (columns question, references, corpus_id): qids
    are the data rows' positions from 0, "0", "1", ..., as bench numbers
    them (spans.ParseChromaCSV). Any other file is labelled-query JSONL: "id"
    or "qid" (string or integer) and "question" or "text"."""
    out = []
    if path.endswith(".csv"):
        with open(path, encoding="utf-8", newline="") as f:
            for i, row in enumerate(csv.DictReader(f)):
                out.append((str(i), row["question"]))
        return out
    with open(path, encoding="utf-8-sig") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            obj = json.loads(line)
            qid = obj.get("id", obj.get("qid"))
            text = obj.get("question", obj.get("text"))
            if not isinstance(qid, (str, int)) or isinstance(qid, bool) or not isinstance(text, str):
                raise ValueError(f"{path}:{n}: want an id (or qid) and a question (or text)")
            out.append((str(qid), text))
    return out


def dumps_line(obj):
    """One JSONL line of obj (no newline): UTF-8 text as is, keys in the
    order given, floats in Python's shortest round-trip form, so the same
    results always give the same bytes."""
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


def write_run(path, rows):
    """Writes a passage run: rows are (qid, results) pairs, one JSONL line
    {"qid", "results"} each, in the order given. The file is replaced whole
    (written beside it, then renamed), so a crash never leaves half a run."""
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".run-", dir=d)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 is not what a user's open() gives
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            for qid, results in rows:
                f.write(dumps_line({"qid": qid, "results": results}) + "\n")
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def check_request(body):
    """The contract's request, {"qid": str, "query": str, "k": int >= 1}
    (other keys ignored), parsed from body bytes. Returns (qid, query, k),
    or raises ValueError saying what is wrong."""
    try:
        req = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ValueError(f"request is not JSON: {e}") from None
    if not isinstance(req, dict):
        raise ValueError("request is not a JSON object")
    qid, query, k = req.get("qid"), req.get("query"), req.get("k")
    if not isinstance(qid, str) or qid == "":
        raise ValueError('"qid": want a non-empty string')
    if not isinstance(query, str):
        raise ValueError('"query": want a string')
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError('"k": want an integer >= 1')
    return qid, query, k


class ContractHandler(BaseHTTPRequestHandler):
    """The HTTP contract's server side (docs/pipelines.md): POST on
    server.path with a JSON request; 200 with {"qid", "results"}; 400 for a
    bad request, 401 without the bearer token (when server.token is set),
    404 for another path, 405 for another method, 413 for a body over
    MAX_REQUEST_BYTES, 500 when the search raises. Errors are
    {"error": "..."}. Logs go to stderr, never the token."""

    protocol_version = "HTTP/1.1"
    server_version = "ragbench-pipeline/1"

    def log_message(self, format, *args):  # noqa: A002 (the stdlib's name)
        if not self.server.quiet:
            sys.stderr.write("%s %s\n" % (self.address_string(), format % args))

    def answer(self, status, obj, headers=()):
        body = (dumps_line(obj) + "\n").encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        for k, v in headers:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def read_body(self):
        """The request body, or None after answering an error."""
        try:
            n = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self.answer(411, {"error": "Content-Length required"})
            return None
        if n < 0 or n > MAX_REQUEST_BYTES:
            self.close_connection = True
            # Read (and drop) a body up to DRAIN_BYTES first, so that the
            # client, still sending it, reads the 413 rather than a broken
            # pipe; a larger one is cut off unread.
            left = n if 0 < n <= DRAIN_BYTES else 0
            while left > 0:
                chunk = self.rfile.read(min(left, 64 << 10))
                if not chunk:
                    break
                left -= len(chunk)
            self.answer(413, {"error": f"request body over {MAX_REQUEST_BYTES} bytes"})
            return None
        return self.rfile.read(n)

    def authorised(self):
        token = self.server.token
        if token is None or self.headers.get("Authorization") == "Bearer " + token:
            return True
        self.answer(401, {"error": "missing or wrong bearer token"}, [("WWW-Authenticate", "Bearer")])
        return False

    def do_GET(self):
        self.answer(405, {"error": "POST a JSON request"}, [("Allow", "POST")])

    def do_POST(self):
        body = self.read_body()
        if body is None:
            return
        if self.path != self.server.path:
            self.answer(404, {"error": f"no such path {self.path!r}; POST to {self.server.path}"})
            return
        if not self.authorised():
            return
        try:
            qid, query, k = check_request(body)
        except ValueError as e:
            self.answer(400, {"error": str(e)})
            return
        try:
            results = self.server.search(query, k, qid)
        except Exception as e:  # the service's failure is a 500, not a dead server
            sys.stderr.write(f"search failed for qid {qid!r}: {type(e).__name__}: {e}\n")
            self.answer(500, {"error": f"search failed: {type(e).__name__}"})
            return
        self.answer(200, {"qid": qid, "results": results})


def make_server(search, port=0, host="127.0.0.1", path="/search", token_env=None, quiet=True,
                handler=ContractHandler):
    """A ThreadingHTTPServer on host:port (0: a free port) answering the
    contract with search(query, k, qid) -> results list. search must be safe
    to call from several threads (wrap it in a lock otherwise) and keep no
    state between requests. token_env names the environment variable holding
    a bearer token that requests must carry; unset or empty is an error."""
    srv = ThreadingHTTPServer((host, port), handler)
    srv.daemon_threads = True
    srv.search = search
    srv.path = path
    srv.quiet = quiet
    srv.token = None
    if token_env:
        tok = os.environ.get(token_env, "")
        if not tok:
            srv.server_close()
            raise ValueError(f"environment variable {token_env} is unset or empty")
        srv.token = tok
    return srv


def serve_forever(srv):
    """Prints the bound port alone on stdout's first line (flushed: a caller
    that started the server with port 0 reads it there, and knows the
    server is ready), then serves until SIGTERM or Ctrl-C."""
    import signal

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    print(srv.server_address[1], flush=True)
    try:
        srv.serve_forever(poll_interval=0.1)
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()


def locked(search):
    """search serialised by a lock, for libraries not known to be
    thread-safe; it keeps no state between requests."""
    lock = threading.Lock()

    def f(query, k, qid):
        with lock:
            return search(query, k, qid)

    return f


STYLES = ("offsets", "bytes", "doc-text", "text", "text-ws")


def make_result(style, docs, doc, start, end, score):
    """One result of a passage run, in one of the styles of
    docs/pipelines.md, for the chunk at code points [start, end) of
    docs[doc]: "offsets" {doc, start, end}; "bytes" {doc, start, end,
    unit: "bytes"} (UTF-8 offsets); "doc-text" {doc, text}; "text" {text};
    "text-ws" {text with each run of white space collapsed to one space},
    as a pipeline that cleans its chunks would send it. Each has "score"
    unless score is None."""
    text = docs[doc][start:end]
    if style == "offsets":
        r = {"doc": doc, "start": start, "end": end}
    elif style == "bytes":
        b0 = len(docs[doc][:start].encode("utf-8"))
        r = {"doc": doc, "start": b0, "end": b0 + len(text.encode("utf-8")), "unit": "bytes"}
    elif style == "doc-text":
        r = {"doc": doc, "text": text}
    elif style == "text":
        r = {"text": text}
    elif style == "text-ws":
        r = {"text": " ".join(text.split())}
    else:
        raise ValueError(f"unknown style {style!r} (want one of {', '.join(STYLES)})")
    if score is not None:
        r["score"] = score
    return r


def pipeline_main(description, build, chunk_size, chunk_overlap, argv=None):
    """The command line of a reference pipeline: `run` writes a passage run
    of every question, `serve` answers the HTTP contract. build(docs,
    chunk_size, chunk_overlap) indexes docs ({doc id: text}) and returns
    rank(query) -> [(doc, start, end, score)], the whole ranking (every
    chunk, best first, start/end in code points), deterministic and
    stateless; both subcommands cut it at k, so a run file and the server
    give the same top k for any k."""
    import argparse
    import time

    ap = argparse.ArgumentParser(description=description)
    sub = ap.add_subparsers(dest="cmd", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--corpus", required=True, help="corpus folder (.md/.txt files; doc id = path without extension)")
    common.add_argument("--style", default="offsets",
                        help=f"how each result names its passage: {', '.join(STYLES)} [offsets]; "
                             "run takes several, comma-separated, with {style} in --out")
    common.add_argument("--chunk-size", type=int, default=chunk_size, help=f"splitter chunk size [{chunk_size}]")
    common.add_argument("--chunk-overlap", type=int, default=chunk_overlap, help=f"splitter chunk overlap [{chunk_overlap}]")
    common.add_argument("--no-score", action="store_true", help="leave out scores (rank = list order)")
    r = sub.add_parser("run", parents=[common], help="write a passage run (JSONL) of every question")
    r.add_argument("--questions", required=True, help="Chroma questions.csv or labelled-query JSONL")
    r.add_argument("--k", type=int, default=10, help="results per question [10]")
    r.add_argument("--out", required=True, help="passage run to write (replaced whole); {style} is replaced by the style")
    s = sub.add_parser("serve", parents=[common], help="answer the HTTP contract on 127.0.0.1")
    s.add_argument("--port", type=int, default=0, help="port; 0 picks a free one [0]; the port is printed on stdout's first line")
    s.add_argument("--host", default="127.0.0.1", help="address to bind [127.0.0.1]")
    s.add_argument("--path", default="/search", help="path answering POST [/search]")
    s.add_argument("--token-env", help="environment variable holding a bearer token requests must carry")
    s.add_argument("--log", action="store_true", help="log each request on stderr")
    a = ap.parse_args(argv)
    styles = a.style.split(",")
    bad = [x for x in styles if x not in STYLES]
    if bad or len(set(styles)) != len(styles):
        ap.error(f"--style: want one or more of {', '.join(STYLES)}, each once")
    if len(styles) > 1 and (a.cmd != "run" or "{style}" not in a.out):
        ap.error("--style: several styles only with run and an --out holding {style}")
    if a.cmd == "run" and a.k < 1:
        ap.error("--k: want >= 1")

    t0 = time.perf_counter()
    docs = load_corpus(a.corpus)
    rank = build(docs, a.chunk_size, a.chunk_overlap)
    t1 = time.perf_counter()
    sys.stderr.write(f"indexed {len(docs)} documents in {t1 - t0:.2f} s\n")

    def results(style, ranked):
        return [make_result(style, docs, d, s0, e0, None if a.no_score else sc) for d, s0, e0, sc in ranked]

    if a.cmd == "run":
        questions = read_questions(a.questions)
        ranked = [(qid, rank(q)[:a.k]) for qid, q in questions]
        t2 = time.perf_counter()
        for style in styles:
            out = a.out.replace("{style}", style)
            write_run(out, ((qid, results(style, r)) for qid, r in ranked))
            sys.stderr.write(f"wrote {out}\n")
        sys.stderr.write(f"{len(questions)} questions in {t2 - t1:.2f} s\n")
        return

    def search(query, k, qid):
        return results(a.style, rank(query)[:k])
    try:
        srv = make_server(locked(search), port=a.port, host=a.host, path=a.path, token_env=a.token_env, quiet=not a.log)
    except ValueError as e:
        ap.error(str(e))
    serve_forever(srv)
