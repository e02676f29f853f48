package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/ragbench/ragbench/compare"
	"github.com/ragbench/ragbench/gate"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/sweep"
)

// gateFlags are the baseline gate's flags, shared by bench run and bench
// compare (bench run adds --gate-metric, --gate-map and --equivalence:
// bench compare has -m and its own --equivalence).
type gateFlags struct {
	metrics measureList
	maxDrop float64
	useDrop bool
	summary string
	maps    []gate.Mapping
	// equivalence is bench run's --equivalence (set: useEquiv), which
	// overrides the config's significance.equivalence.
	equivalence float64
	useEquiv    bool
}

// registerRun adds bench run's own gate flags to fs: --gate-metric,
// --gate-map and --equivalence.
func (g *gateFlags) registerRun(fs *flag.FlagSet) {
	fs.Var(&g.metrics, "gate-metric", "gate: also gate on this metric `M` (e.g. recall@100, or a family at prompt_k; repeatable)")
	fs.Func("gate-map", "gate: compare the baseline's cells of chunking (or cell) `OLD=NEW` with this run's (e.g. fixed-128=fixed-256, a chunk-size change: fixed-128/bm25 against fixed-256/bm25, …; or fixed-128/bm25=fixed-256/bm25); repeatable", func(s string) error {
		m, err := gate.ParseMapping(s)
		if err != nil {
			return err
		}
		g.maps = append(g.maps, m)
		return nil
	})
	fs.Func("equivalence", "gate: equivalence margin `δ` (metric units, e.g. 0.02): a cell whose two one-sided tests put it within ±δ of its baseline is \"equivalent\", no regression shown (default: the config's significance.equivalence; 0: none)", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("want a finite number ≥ 0 (a margin in the metric's units, e.g. 0.02), got %q", s)
		}
		g.equivalence, g.useEquiv = v, true
		return nil
	})
}

// register adds --max-drop and --gate-summary to fs (bench run adds
// --gate-metric itself: bench compare gates its -m measures).
func (g *gateFlags) register(fs *flag.FlagSet) {
	fs.Func("max-drop", "gate: a fall of the mean larger than `X` (metric units, e.g. 0.01) regresses even when not significant (default: only significant falls regress)", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("want a finite number ≥ 0, got %q", s)
		}
		if err := gate.CheckMaxDrop(v); err != nil {
			return err
		}
		g.maxDrop, g.useDrop = v, true
		return nil
	})
	fs.StringVar(&g.summary, "gate-summary", "", "gate: also write the Markdown summary to `FILE` (for a pull-request comment)")
}

// report writes the gate's Markdown summary to stdout, to --gate-summary
// and appended to $GITHUB_STEP_SUMMARY when that is set, and returns the
// verdict as an error for the exit status (docs/ci.md):
//
//   - a cell regressed: an exitError with gate.ExitRegressed (3) naming the
//     regressed cells, whether or not the summary files could be written
//     (a failed write is added to the message): 3 always means "worse";
//   - no cell regressed but a summary file could not be written: an error
//     naming the flag or variable and the path (exit 1: the check did not
//     complete, never read as a pass);
//   - otherwise nil (exit 0).
//
// The verdict is on stdout before any file is written, so it is never
// lost to a bad path.
func (g *gateFlags) report(stdout io.Writer, res *gate.Result) error {
	var buf bytes.Buffer
	if err := res.Markdown(&buf); err != nil {
		return err
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	var werrs []error
	if g.summary != "" {
		if err := fileutil.WriteAtomic(g.summary, buf.Bytes()); err != nil {
			werrs = append(werrs, fmt.Errorf("--gate-summary: %w", err))
		}
	}
	if p := os.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
		if err := appendStepSummary(p, append(buf.Bytes(), '\n')); err != nil {
			werrs = append(werrs, err)
		}
	}
	werr := errors.Join(werrs...)
	if cells := res.RegressedCells(); len(cells) > 0 {
		err := fmt.Errorf("gate: regressed against the baseline: %s (exit %d)", strings.Join(cells, ", "), gate.ExitRegressed)
		if werr != nil {
			err = fmt.Errorf("%w; also, the summary was not saved: %w", err, werr)
		}
		return exitError{gate.ExitRegressed, err}
	}
	if werr != nil {
		return fmt.Errorf("gate: no regression (verdict on stdout), but the summary was not saved: %w", werr)
	}
	return nil
}

// appendStepSummary appends data to the file $GITHUB_STEP_SUMMARY names
// (p), creating it; errors name the variable and the path.
func appendStepSummary(p string, data []byte) error {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		return fmt.Errorf("GITHUB_STEP_SUMMARY=%s: is a directory, want a file path (GitHub Actions sets it to a file; unset it or point it at a file)", p)
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return fmt.Errorf("GITHUB_STEP_SUMMARY=%s: cannot append the summary: %w", p, err)
	}
	return nil
}

// options applies the flags to the gate's options.
func (g *gateFlags) options(opt gate.Options) gate.Options {
	opt.UseMaxDrop, opt.MaxDrop = g.useDrop, g.maxDrop
	if g.useEquiv {
		opt.Equivalence = g.equivalence
	}
	return opt
}

// runGate gates the run just written to cfg.Output against base.
func runGate(stdout io.Writer, base *gate.Run, cfg *sweep.Config, gf gateFlags) error {
	cur, err := gate.ReadRun(cfg.Output)
	if err != nil {
		return err
	}
	texts, err := sweep.QueryTexts(cfg)
	if err != nil {
		return err
	}
	in, opt, err := gate.FromRuns(base, cur, gate.RunOptions{Metrics: gf.metrics, Texts: texts, Map: gf.maps})
	if err != nil {
		return err
	}
	res, err := gate.Compare(in, gf.options(opt))
	if err != nil {
		return err
	}
	return gf.report(stdout, res)
}

// compareGate is bench compare --gate: every run of in but baseline is a
// gate cell compared with the baseline run on in.Metrics. Each cell names
// the baseline run as its From, so the pair (run, baseline) draws from the
// same streams as bench compare --baseline (docs/compare.md, Seeding):
// the same p-values and intervals.
func compareGate(stdout io.Writer, in compare.Input, baseline string, texts map[string]string, gf gateFlags, opt gate.Options) error {
	gin := gate.Input{Metrics: in.Metrics, Texts: texts, Baseline: baseline, Unit: "run"}
	var others []string
	for _, sys := range in.Systems {
		if sys == baseline {
			continue
		}
		others = append(others, sys)
		gin.Cells = append(gin.Cells, gate.Cell{Name: sys, From: baseline, Baseline: in.Scores[baseline], Current: in.Scores[sys]})
	}
	gin.Current = strings.Join(others, ", ")
	res, err := gate.Compare(gin, gf.options(opt))
	if err != nil {
		return err
	}
	return gf.report(stdout, res)
}
