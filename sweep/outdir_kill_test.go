package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/fileutil"
)

// killAtEnv, in a child process of TestOutputKilledMidCommit, is the move
// of the commit (0-based) before which the child dies, as under SIGKILL:
// os.Exit runs no deferred cleanup and no rollback.
const killAtEnv = "RAGBENCH_TEST_KILL_AT_MOVE"

// TestOutputKilledMidCommitChild is the child: a 2-cell sweep into the
// folder of $RAGBENCH_TEST_OUT, killed before move $RAGBENCH_TEST_KILL_AT_MOVE.
func TestOutputKilledMidCommitChild(t *testing.T) {
	at, err := strconv.Atoi(os.Getenv(killAtEnv))
	if err != nil {
		t.Skip("run by TestOutputKilledMidCommit")
	}
	exchangeOK := os.Getenv("RAGBENCH_TEST_EXCHANGE") == "1"
	moves := 0
	die := func() {
		if moves == at {
			os.Exit(137)
		}
		moves++
	}
	rename = func(a, b string) error { die(); return os.Rename(a, b) }
	exchange = func(a, b string) error {
		if !exchangeOK {
			return errors.New("no exchange here")
		}
		die()
		return fileutil.Exchange(a, b)
	}
	cfg := loadSmall(t, os.Getenv("RAGBENCH_TEST_OUT"))
	cfg.Retrievers = cfg.Retrievers[:1]
	cfg.K = []int{1, 2, 3}
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err != nil {
		t.Fatal(err)
	}
	os.Exit(0) // every move done: not killed
}

// killedMidCommit runs the 2-cell small sweep into a fresh folder dir,
// snapshots its outputs (before), then runs the child sweep into it, killed
// before move at of its commit (withExchange "1": the atomic exchange
// path, "0": two renames). killed is false when the child made every move.
func killedMidCommit(t *testing.T, at int, withExchange string) (dir string, cfg *Config, before map[string][]byte, killed bool) {
	t.Helper()
	dir = t.TempDir()
	cfg = loadSmall(t, dir)
	if _, err := Run(t.Context(), cfg, Options{NoHistory: true}); err != nil {
		t.Fatal(err)
	}
	before = outputSnapshot(t, cfg.Output)
	child := exec.Command(os.Args[0], "-test.run=^TestOutputKilledMidCommitChild$")
	child.Env = append(os.Environ(), killAtEnv+"="+strconv.Itoa(at), "RAGBENCH_TEST_OUT="+dir, "RAGBENCH_TEST_EXCHANGE="+withExchange)
	out, err := child.CombinedOutput()
	if err == nil {
		return dir, cfg, before, false
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 137 {
		t.Fatalf("child (exchange %s, kill at %d): %v\n%s", withExchange, at, err, out)
	}
	return dir, cfg, before, true
}

// TestOutputKilledMidCommit: a run killed (SIGKILL, power loss) between
// any two moves of its commit leaves a staging folder holding what it
// had replaced; the next run into the folder first puts those earlier
// outputs back, so that, when it is itself stopped before its own commit
// (Ctrl-C), the folder holds the earlier run's outputs byte for byte and
// no staging folder: never a mix of two runs. Before, the next run
// deleted that staging folder, and with it the only copy of the earlier
// runs/ (or results.json ...), leaving the mix. Both commit paths (the
// atomic exchange, and two renames per entry without it).
func TestOutputKilledMidCommit(t *testing.T) {
	for _, withExchange := range []string{"1", "0"} {
		for at := 0; ; at++ {
			dir, cfg, before, killed := killedMidCommit(t, at, withExchange)
			if !killed {
				break // the child made every move: all kill points tried
			}
			name := fmt.Sprintf("exchange %s, killed before move %d", withExchange, at)
			// The next run, stopped while it stages.
			ctx, cancel := context.WithCancel(t.Context())
			testHookStaged = func(string) { cancel() }
			_, err := Run(ctx, loadSmall(t, dir), Options{NoHistory: true})
			testHookStaged = nil
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: next run: %v, want it cancelled", name, err)
			}
			after := outputSnapshot(t, cfg.Output)
			sameOutputs(t, name, before, after)
			if tmp, _ := filepath.Glob(filepath.Join(cfg.Output, stagePrefix+"*")); len(tmp) > 0 {
				t.Errorf("%s: staging folders left: %v", name, tmp)
			}
		}
	}
}

// TestOutputKilledMidCommitBeforeWork (issue 26): after a run killed
// between two moves of its commit, the folder mixes two runs' outputs;
// the next bench run --check (the preflight, Check) puts the earlier
// outputs back and says so, and so does a run stopped before its first
// cell (its context cancelled before any work), so that neither leaves
// the mix: the folder holds the earlier run's outputs byte for byte and no
// staging folder. Before, --check said nothing (exit 0) and only a run
// that reached its write stage restored the folder, while docs/config.md
// said the next run first puts the earlier outputs back. A kill before
// the first move leaves nothing to put back, and nothing is said.
func TestOutputKilledMidCommitBeforeWork(t *testing.T) {
	for _, viaCheck := range []bool{true, false} {
		for at := 0; ; at++ {
			dir, cfg, before, killed := killedMidCommit(t, at, "1")
			if !killed {
				break // the child made every move: all kill points tried
			}
			name := fmt.Sprintf("killed before move %d, then --check %v", at, viaCheck)
			var note string
			if viaCheck {
				rep, err := Check(t.Context(), loadSmall(t, dir), CheckOptions{Chunkings: true})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				note = rep.Recovered
			} else {
				var stderr syncBuffer
				ctx, cancel := context.WithCancel(t.Context())
				cancel() // stopped before the first cell
				if _, err := Run(ctx, loadSmall(t, dir), Options{NoHistory: true, Stderr: &stderr}); !errors.Is(err, context.Canceled) {
					t.Fatalf("%s: run: %v, want it cancelled", name, err)
				}
				note = stderr.String()
			}
			if want := "the outputs it was replacing were put back whole"; (at > 0) != strings.Contains(note, want) {
				t.Errorf("%s: said %q; want %q exactly when a move was made", name, note, want)
			}
			sameOutputs(t, name, before, outputSnapshot(t, cfg.Output))
			if tmp, _ := filepath.Glob(filepath.Join(cfg.Output, stagePrefix+"*")); len(tmp) > 0 {
				t.Errorf("%s: staging folders left: %v", name, tmp)
			}
		}
	}
}
