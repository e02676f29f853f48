package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/internal/plural"
	"github.com/ragbench/ragbench/sweep"
	"github.com/ragbench/ragbench/workbench"
)

const labelUsage = `usage: bench label [flags] CONFIG

Opens the labelling workbench (docs/labelling.md): a web app served on this
machine over the config's corpus and its span labels. Write a question,
search with the config's own retrievers (BM25 always; dense, hybrid and
rerank when their models are present; indexes from the config's cache
folder), open a result, select the passage with the mouse and press a;
grade it, add passages from other documents, mark questions with no answer
in the corpus, and save. Work lists: all questions, unlabelled, stale
(labels bench labels check refuses, with their repair), missed by the last
run, and the pool of unjudged passages the retrievers returned.

The labels are written as JSONL span labels (offsets in code points, the
quote, its context), checked with the rules bench run uses, atomically; a
second session on the same file is read-only (LABELS.lock). The page needs
the session token printed in its URL; the server binds 127.0.0.1 unless
--addr says otherwise. Ctrl-C stops it (edits not saved are lost: Save, or
Ctrl+S in the page, writes them).

Examples:
  bench label configs/chunking.yaml
  bench label --labels my-labels.jsonl --data-dir examples/sotu examples/sotu/try.yaml
  bench label --addr 127.0.0.1:8765 --results out/try configs/try.yaml

Flags:
`

// labelFlags are bench label's flags.
type labelFlags struct {
	labels, addr, results, dataDir, cacheDir, ortLib string
	modelsDirs                                       measureList
}

// cmdLabel implements 'bench label CONFIG': it serves the workbench until
// the first Ctrl-C (or SIGTERM), then stops it and exits 0.
func cmdLabel(stdout, stderr io.Writer, args []string) error {
	ctx, stop := interruptContext("stopping the workbench (" + quitAgain + " quits now)")
	defer stop()
	return serveLabel(ctx, stdout, stderr, args, nil)
}

// serveLabel is bench label: it serves until ctx is done. ready, when set
// (tests), is called with the page's URL once the server listens.
func serveLabel(ctx context.Context, stdout, stderr io.Writer, args []string, ready func(url string, s *workbench.Server)) error {
	fs := newFlagSet("label")
	var f labelFlags
	fs.StringVar(&f.labels, "labels", "", "the JSONL span-labels `file` to write (default: the config's dataset.queries; a new file is created on the first save)")
	fs.StringVar(&f.addr, "addr", "127.0.0.1:0", "the `host:port` to serve on (port 0: a free one)")
	fs.StringVar(&f.results, "results", "", "the output `folder` of the config's last run, for the missed and pool lists (default: the config's output, when it holds results.json)")
	fs.StringVar(&f.dataDir, "data-dir", "", "data root for relative dataset paths (as bench run's)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "cache folder of the retrievers' indexes (default: the config's, as bench run's)")
	fs.Var(&f.modelsDirs, "models-dir", "a model root `DIR` searched first for relative model folders (as bench run's)")
	fs.StringVar(&f.ortLib, "onnxruntime", "", "ONNX Runtime shared library for dense and rerank retrievers (as bench run's)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return flagErr(fs, stdout, stderr, labelUsage, err)
	}
	if len(pos) != 1 {
		return usagef("want exactly one CONFIG file, got %d argument(s); see 'bench label --help'", len(pos))
	}
	cfg, err := config.Load(pos[0], config.LoadOptions{DataDir: f.dataDir, CacheDir: f.cacheDir,
		ModelsDir: strings.Join(f.modelsDirs, string(os.PathListSeparator))})
	if err != nil {
		return err
	}
	if err := sweep.ValidateDataset(cfg, false); err != nil { // bench run's check and --data-dir hint; the labels file may be new
		return err
	}
	corpusPath := cfg.Dataset.Corpus
	if cfg.Dataset.BEIR != "" {
		corpusPath = filepath.Join(cfg.Dataset.BEIR, "corpus.jsonl")
	}
	labelsPath := cmp.Or(f.labels, cfg.Dataset.Queries)
	if labelsPath == "" {
		return usagef("the config names no labels file (dataset.queries): give --labels FILE.jsonl")
	}
	docs, err := corpus.Load(corpusPath)
	if err != nil {
		return err
	}
	results := f.results
	if results == "" {
		if _, err := os.Stat(filepath.Join(cfg.Output, "results.json")); err == nil {
			results = cfg.Output
		}
	}
	srv, err := workbench.New(workbench.Options{Config: cfg, Docs: docs, Labels: labelsPath, Results: results, ONNXRuntime: f.ortLib})
	if err != nil {
		return err
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return fmt.Errorf("--addr %s: %w", f.addr, err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	addr := ln.Addr().String()
	url := srv.URL(addr)
	fmt.Fprintf(stdout, "bench label: %s over %s (%s)", labelsPath, corpusPath, plural.Count(len(docs), "document", "documents"))
	if results != "" {
		fmt.Fprintf(stdout, "; last run: %s", results)
	}
	fmt.Fprintln(stdout)
	if why := srv.ReadOnly(); why != "" {
		fmt.Fprintf(stdout, "read-only: %s\n", why)
	}
	if host, _, _ := net.SplitHostPort(addr); !net.ParseIP(host).IsLoopback() {
		fmt.Fprintf(stderr, "bench label: warning: serving on %s, reachable from other machines (the token still guards every request)\n", addr)
	}
	fmt.Fprintf(stdout, "open %s\nCtrl-C stops it (Save in the page writes the labels first)\n", url)
	if ready != nil {
		ready(url, srv)
	}
	select {
	case <-ctx.Done():
	case err := <-served:
		return err
	}
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if n := srv.Dirty(); n > 0 {
		fmt.Fprintf(stderr, "bench label: stopped with %d edits not saved (they are not written)\n", n)
		return nil
	}
	fmt.Fprintln(stderr, "bench label: stopped")
	return nil
}
