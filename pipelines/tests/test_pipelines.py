"""The reference pipelines for real, on the shared chunking-chroma corpus:
deterministic run files (byte-identical), the HTTP server giving the same
results as the run file, and every style of naming passages giving the
same numbers in the reference scorer. About a minute (LlamaIndex imports in
about 5 s and splits in about 2 s per start)."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import shutil
import time
import unittest
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ragbench_contract import dumps_line, read_questions  # noqa: E402
from serverproc import CHROMA, PY, ROOT, Server, post  # noqa: E402

SCORE = os.path.join(ROOT, "pipelines", "reference", "score.py")
CORPUS = os.path.join(CHROMA, "corpora")
QUESTIONS = os.path.join(CHROMA, "questions.csv")


def need(*modules):
    """Skips (fails under CI=true) when the shared corpus or a module is missing."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if not os.path.isdir(CORPUS):
        missing.append(CORPUS)
    if missing:
        if os.environ.get("CI") == "true":
            raise AssertionError(f"missing under CI: {missing} (scripts/setup-python.sh, RAGBENCH_SHARED)")
        raise unittest.SkipTest(f"missing: {missing}")


class Pipeline:
    """Tests of one pipeline script; subclasses set NAME and MODULES."""

    NAME = ""
    MODULES = ()

    @classmethod
    def setUpClass(cls):
        need(*cls.MODULES)
        cls.script = os.path.join(ROOT, "pipelines", cls.NAME, "pipeline.py")
        cls.dir = tempfile.mkdtemp()
        cls.addClassCleanup(shutil.rmtree, cls.dir)
        cls.questions = read_questions(QUESTIONS)
        cls.runs = {}

    @classmethod
    def run_files(cls, styles, tag=""):
        """Runs the pipeline once, writing a run per style; returns {style: path}."""
        out = os.path.join(cls.dir, "{style}" + tag + ".jsonl")
        t = time.monotonic()
        subprocess.run([PY, cls.script, "run", "--corpus", CORPUS, "--questions", QUESTIONS, "--out", out,
                        "--style", ",".join(styles)], check=True, capture_output=True)
        sys.stderr.write(f"\n{cls.NAME} run --style {','.join(styles)}: {time.monotonic() - t:.1f} s ")
        return {st: out.replace("{style}", st) for st in styles}

    @classmethod
    def passage_run(cls, style):
        if not cls.runs:
            cls.runs = cls.run_files(["offsets", "bytes", "text", "text-ws"])
        return cls.runs[style]

    def read(self, path):
        with open(path, "rb") as f:
            return f.read()

    def score(self, run):
        out = subprocess.run([PY, SCORE, "--corpus", CORPUS, "--labels", QUESTIONS, "--run", run],
                             check=True, capture_output=True, text=True).stdout
        return json.loads(out)

    def test_deterministic(self):
        again = self.run_files(["offsets"], "-again")["offsets"]
        self.assertEqual(self.read(self.passage_run("offsets")), self.read(again))
        lines = self.read(again).decode().splitlines()
        self.assertEqual(len(lines), 276)
        self.assertEqual([json.loads(x)["qid"] for x in lines], [str(i) for i in range(276)])
        self.assertTrue(all(len(json.loads(x)["results"]) == 10 for x in lines))

    def test_styles_score_the_same(self):
        base = self.score(self.passage_run("offsets"))
        self.assertEqual(base["queries"], 276)
        self.assertGreater(base["means"]["span_recall@10"], 0.5)  # a working BM25, not noise
        for style in ["bytes", "text", "text-ws"]:
            got = self.score(self.passage_run(style))
            self.assertEqual(got["means"], base["means"], style)
            self.assertEqual(got["unmapped"], {"absent": 0, "ambiguous": 0}, style)
            if style == "text-ws":
                self.assertGreater(got["placed"]["normalised"], 0)

    def test_server_matches_run(self):
        env = {"PIPELINE_TEST_TOKEN": "tok-" + os.urandom(6).hex()}
        t = time.monotonic()
        srv = Server(self, [self.script, "serve", "--corpus", CORPUS, "--port", "0",
                            "--token-env", "PIPELINE_TEST_TOKEN"], env=env)
        sys.stderr.write(f"\n{self.NAME} serve ready in {time.monotonic() - t:.1f} s ")
        auth = {"Authorization": "Bearer " + env["PIPELINE_TEST_TOKEN"]}

        def ask(q, k=10):
            st, _, body = post(srv.url("/search"), {"qid": q[0], "query": q[1], "k": k}, auth)
            self.assertEqual(st, 200, body)
            obj = json.loads(body)
            self.assertEqual(obj["qid"], q[0])
            return obj["results"]

        t = time.monotonic()
        with ThreadPoolExecutor(4) as ex:  # concurrent, as the sweep asks
            answers = list(ex.map(ask, self.questions))
        sys.stderr.write(f"\n{self.NAME} serve: 276 questions in {time.monotonic() - t:.1f} s ")
        served = "".join(dumps_line({"qid": q[0], "results": r}) + "\n" for q, r in zip(self.questions, answers))
        self.assertEqual(served.encode(), self.read(self.passage_run("offsets")))
        for q, r in zip(self.questions[:20], answers):
            self.assertEqual(ask(q, 3), r[:3])
        self.assertEqual(post(srv.url("/search"), {"qid": "0", "query": "x", "k": 1})[0], 401)
        srv.close()  # fails when the server outlives SIGTERM by 10 s (not a timing bound: the machine may be loaded)
        self.assertNotIn(env["PIPELINE_TEST_TOKEN"], srv.stderr())


class LangChain(Pipeline, unittest.TestCase):
    NAME = "langchain"
    MODULES = ("langchain_text_splitters", "langchain_core", "rank_bm25")


class LlamaIndex(Pipeline, unittest.TestCase):
    NAME = "llamaindex"
    MODULES = ("llama_index.core", "llama_index.retrievers.bm25")


if __name__ == "__main__":
    unittest.main()
