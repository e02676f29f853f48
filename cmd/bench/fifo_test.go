package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunFolderCorpusFIFO (issue 26): a FIFO named *.md in a folder corpus
// made bench run and --check hang reading it, and SIGTERM then printed
// "stopping after the current step" and never stopped. Both now exit 1 at
// once naming the FIFO (corpus.LoadFolder reads regular files only); were
// either to wait, SIGTERM must still end it within 2 seconds.
func TestRunFolderCorpusFIFO(t *testing.T) {
	dir := t.TempDir()
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	os.WriteFile(filepath.Join(docs, "ok.md"), []byte("The Eiffel tower stands in Paris."), 0o644)
	fifo := filepath.Join(docs, "pipe.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "q.jsonl"), []byte(`{"id": "q1", "question": "eiffel tower", "gold": ["ok.md"]}`+"\n"), 0o644)
	cfg := writeConfig(t, dir, "dataset: {corpus: docs, queries: q.jsonl}\nretrievers:\n  - {name: bm25, type: bm25}\n")
	for _, extra := range [][]string{{"--check"}, nil} {
		args := append([]string{"run", "--progress", "none", "--no-history", "--data-dir", dir, "--output", filepath.Join(dir, "out"), "--cache-dir", filepath.Join(dir, "cache")}, extra...)
		cmd, errOut := startBench(t, append(args, cfg)...)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
				t.Errorf("%v: hung on the FIFO (stopped by SIGTERM)", extra)
			case <-time.After(2 * time.Second):
				t.Fatalf("%v: hung on the FIFO, and SIGTERM did not stop it in 2 s", extra)
			}
		}
		if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(errOut.String(), fifo+": a named pipe (FIFO), not a regular file") {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 naming the FIFO", extra, code, errOut)
		}
	}
}
