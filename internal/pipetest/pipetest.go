// Package pipetest runs the test-only Python side of issue 22 for Go
// tests (pipelines/, docs/pipelines.md): the reference LangChain and
// LlamaIndex pipelines writing passage runs or serving the HTTP contract,
// the independent reference scorer (pipelines/reference/score.py), and the
// fault server. Everything runs in the pinned venv (testenv.Python: the
// test is skipped without it, and fails under CI) over the shared
// chunking-chroma corpus (testenv.Shared).
package pipetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ragbench/ragbench/internal/testenv"
)

// Chroma returns the shared chunking-chroma dataset's corpus folder and
// questions.csv.
func Chroma(t testing.TB) (corpusDir, questions string) {
	t.Helper()
	d := testenv.Shared(t, "datasets/chunking-chroma")
	return filepath.Join(d, "corpora"), filepath.Join(d, "questions.csv")
}

// Script is the path of a script under pipelines/ ("langchain/pipeline.py").
func Script(rel string) string {
	return filepath.Join(testenv.RepoRoot(), "pipelines", filepath.FromSlash(rel))
}

// Python runs the venv's Python with args, failing the test with its
// stderr when it fails; it returns stdout.
func Python(t testing.TB, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(testenv.Python(t), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("python %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.Bytes()
}

// runs caches the reference pipelines' run files of a test process:
// pipeline and styles → the files (the pipelines take seconds to build).
var runs struct {
	sync.Mutex
	dir   string
	files map[string]map[string]string
}

// Runs returns the passage runs of the reference pipeline name
// ("langchain" or "llamaindex") on chunking-chroma's 276 questions, top 10,
// one file per style (offsets, bytes, doc-text, text, text-ws), written
// once per test process into a temporary folder.
func Runs(t testing.TB, name string, styles ...string) map[string]string {
	t.Helper()
	runs.Lock()
	defer runs.Unlock()
	key := name + " " + strings.Join(styles, ",")
	if f, ok := runs.files[key]; ok {
		return f
	}
	if runs.dir == "" {
		d, err := os.MkdirTemp("", "pipetest-")
		if err != nil {
			t.Fatal(err)
		}
		runs.dir, runs.files = d, map[string]map[string]string{}
	}
	corpusDir, questions := Chroma(t)
	out := filepath.Join(runs.dir, name+"."+strings.Join(styles, "_")+".{style}.jsonl")
	Python(t, Script(name+"/pipeline.py"), "run", "--corpus", corpusDir, "--questions", questions,
		"--style", strings.Join(styles, ","), "--out", out)
	files := map[string]string{}
	for _, s := range styles {
		files[s] = strings.ReplaceAll(out, "{style}", s)
	}
	runs.files[key] = files
	return files
}

// Scores is the reference scorer's output (score.py's JSON).
type Scores struct {
	Queries        int                           `json:"queries"`
	Unanswerable   []string                      `json:"unanswerable"`
	MissingFromRun []string                      `json:"missing_from_run"`
	Results        int                           `json:"results"`
	Placed         map[string]int                `json:"placed"`
	Unmapped       map[string]int                `json:"unmapped"`
	UnmappedRate   float64                       `json:"unmapped_rate"`
	Means          map[string]float64            `json:"means"`
	PerQuery       map[string]map[string]float64 `json:"per_query"`
}

// Score runs the reference scorer on run against labels (Chroma's
// questions.csv or JSONL span labels) over corpusDir at the cutoffs ks,
// with every query's values.
func Score(t testing.TB, corpusDir, labels, run string, ks ...int) Scores {
	t.Helper()
	var k []string
	for _, v := range ks {
		k = append(k, strconv.Itoa(v))
	}
	out := Python(t, Script("reference/score.py"), "--corpus", corpusDir, "--labels", labels, "--run", run, "--ks", strings.Join(k, ","), "--per-query")
	var s Scores
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("score.py: %v\n%s", err, out)
	}
	return s
}

// Server is a started server script: its port, and its stderr so far.
type Server struct {
	Port int
	cmd  *exec.Cmd
	mu   sync.Mutex
	errb bytes.Buffer
	done chan struct{}
}

// URL is http://127.0.0.1:PORT + path.
func (s *Server) URL(path string) string { return "http://127.0.0.1:" + strconv.Itoa(s.Port) + path }

// Stderr is what the server wrote on stderr so far.
func (s *Server) Stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.errb.String()
}

type lockedWriter struct{ s *Server }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.errb.Write(p)
}

// Serve starts the venv's Python on args (a server script and its flags,
// with --port 0) with env added to the environment, and waits (at most
// 120 s) for the port on its stdout's first line. The server is stopped
// with SIGTERM when the test ends.
func Serve(t testing.TB, env []string, args ...string) *Server {
	t.Helper()
	s := &Server{done: make(chan struct{})}
	s.cmd = exec.Command(testenv.Python(t), args...)
	s.cmd.Env = append(os.Environ(), env...)
	s.cmd.Stderr = lockedWriter{s}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
		}
	})
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		l, _ := r.ReadString('\n')
		line <- strings.TrimSpace(l)
		for { // drain: a full pipe would block the server
			if _, err := r.ReadByte(); err != nil {
				return
			}
		}
	}()
	select {
	case l := <-line:
		if s.Port, err = strconv.Atoi(l); err != nil {
			t.Fatalf("server %v printed %q first; stderr:\n%s", args, l, s.Stderr())
		}
	case <-time.After(120 * time.Second):
		t.Fatalf("server %v: no port within 120 s; stderr:\n%s", args, s.Stderr())
	}
	return s
}

// Pipeline starts the reference pipeline name's server over the
// chunking-chroma corpus, with extra flags (--token-env NAME, --style).
func Pipeline(t testing.TB, env []string, name string, flags ...string) *Server {
	t.Helper()
	corpusDir, _ := Chroma(t)
	return Serve(t, env, append([]string{Script(name + "/pipeline.py"), "serve", "--corpus", corpusDir, "--port", "0"}, flags...)...)
}

// FaultServer starts the fault server over the chunking-chroma corpus,
// with extra flags (--token-env NAME, --refuse).
func FaultServer(t testing.TB, env []string, flags ...string) *Server {
	t.Helper()
	corpusDir, _ := Chroma(t)
	return Serve(t, env, append([]string{Script("faultserver/server.py"), "--corpus", corpusDir, "--port", "0"}, flags...)...)
}

// Cleanup removes the run files Runs wrote; a package using Runs calls it
// from its TestMain after m.Run.
func Cleanup() {
	runs.Lock()
	defer runs.Unlock()
	if runs.dir != "" {
		os.RemoveAll(runs.dir)
		runs.dir, runs.files = "", nil
	}
}
