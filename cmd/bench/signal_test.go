package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptPolicy: the exit codes of the interrupt policy, by hand:
// SIGINT is signal 2 → 128+2 = 130, SIGTERM is 15 → 143.
func TestInterruptPolicy(t *testing.T) {
	newIn := func(graceful bool) (*interrupts, *[]int, *bytes.Buffer) {
		var exits []int
		var buf bytes.Buffer
		return &interrupts{stderr: &buf, exit: func(c int) { exits = append(exits, c) }, name: "x", graceful: graceful}, &exits, &buf
	}
	// No signal: codes pass through.
	in, exits, _ := newIn(true)
	for _, c := range []int{0, 1, 2} {
		if got := in.exitCode(c); got != c {
			t.Errorf("no signal: exitCode(%d) = %d", c, got)
		}
	}
	if len(*exits) != 0 {
		t.Errorf("no signal: exits %v, want none", *exits)
	}
	// A command without a graceful stop ends at the first signal.
	in, exits, buf := newIn(false)
	in.handle(os.Interrupt)
	if len(*exits) != 1 || (*exits)[0] != 130 || !strings.Contains(buf.String(), "bench x: interrupted (exit 130)") {
		t.Errorf("SIGINT, not graceful: exits %v, stderr %q; want [130] and a message", *exits, buf)
	}
	in, exits, _ = newIn(false)
	in.handle(syscall.SIGTERM)
	if len(*exits) != 1 || (*exits)[0] != 143 {
		t.Errorf("SIGTERM, not graceful: exits %v, want [143]", *exits)
	}
	// A graceful command: the first signal only records; its failure
	// exits 130, its success 0; a second signal exits 130 at once.
	in, exits, buf = newIn(true)
	in.handle(os.Interrupt)
	if len(*exits) != 0 || buf.Len() != 0 {
		t.Errorf("first SIGINT, graceful: exits %v, stderr %q; want none", *exits, buf)
	}
	if a, b := in.exitCode(1), in.exitCode(0); a != 130 || b != 0 {
		t.Errorf("after SIGINT: exitCode(1) = %d, exitCode(0) = %d; want 130, 0", a, b)
	}
	in.handle(os.Interrupt)
	if len(*exits) != 1 || (*exits)[0] != 130 || !strings.Contains(buf.String(), "interrupted again; quitting now (exit 130)") {
		t.Errorf("second SIGINT: exits %v, stderr %q; want [130]", *exits, buf)
	}
}

// TestHelperBench is the bench process of TestInterruptExitCodes: it runs
// main's code path with the arguments in $BENCH_HELPER_ARGS.
func TestHelperBench(t *testing.T) {
	args := os.Getenv("BENCH_HELPER_ARGS")
	if args == "" {
		t.Skip("helper process only")
	}
	os.Exit(runInterruptible(os.Stdout, os.Stderr, strings.Split(args, "\x1f"), os.Exit))
}

// startBench starts the helper process with args and returns it with its
// stderr.
func startBench(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBench$")
	cmd.Env = append(os.Environ(), "BENCH_HELPER_ARGS="+strings.Join(args, "\x1f"))
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, &errOut
}

// openWhenRead opens the FIFO p for writing once a reader has it open
// (the helper is then blocked reading it, its signal handling installed).
func openWhenRead(t *testing.T, p string) *os.File {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			return f
		}
		if !errors.Is(err, syscall.ENXIO) {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no reader opened %s in 60s", p)
	return nil
}

func exitCodeOf(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err == nil {
			return 0
		}
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		t.Fatal(err)
	case <-time.After(60 * time.Second):
		t.Fatal("bench did not exit within 60s")
	}
	return -1
}

// runSetup writes the small sweep with its corpus as a FIFO, so the run
// blocks while loading it (inside the run, signal handling set up).
func runSetup(t *testing.T) (fifo string, args []string, out string) {
	t.Helper()
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	os.MkdirAll(data, 0o755)
	q, err := os.ReadFile("../../sweep/testdata/small/queries.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(data, "queries.jsonl"), q, 0o644)
	fifo = filepath.Join(data, "corpus.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	out = filepath.Join(tmp, "out")
	return fifo, []string{"run", "--data-dir", data, "--output", out, "--cache-dir", filepath.Join(tmp, "cache"),
		"--no-history", "--progress", "none", "../../sweep/testdata/small.yaml"}, out
}

// TestInterruptExitCodes runs bench in a child process and interrupts it:
// a command without a graceful stop (eval) exits 130 at the first SIGINT;
// 'bench run' stops after its current step and exits 130 without writing a
// report; a second SIGINT ends 'bench run' at once with 130.
func TestInterruptExitCodes(t *testing.T) {
	t.Run("eval", func(t *testing.T) {
		fifo := filepath.Join(t.TempDir(), "run.trec")
		if err := syscall.Mkfifo(fifo, 0o644); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		cmd, errOut := startBench(t, "eval", "../../eval/testdata/queries.jsonl", fifo)
		f := openWhenRead(t, fifo)
		defer f.Close()
		cmd.Process.Signal(os.Interrupt)
		if code := exitCodeOf(t, cmd); code != 130 || !strings.Contains(errOut.String(), "interrupted (exit 130)") {
			t.Errorf("exit %d, stderr %q; want 130 and the interrupt message", code, errOut)
		}
	})
	corpus, err := os.ReadFile("../../sweep/testdata/small/corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	t.Run("run once", func(t *testing.T) {
		fifo, args, out := runSetup(t)
		cmd, errOut := startBench(t, args...)
		f := openWhenRead(t, fifo)
		cmd.Process.Signal(os.Interrupt)
		time.Sleep(300 * time.Millisecond) // let the run see it, then let loading finish
		f.Write(corpus)
		f.Close()
		// The corpus is read again to hash it: serve it until bench exits.
		stop := make(chan struct{})
		served := make(chan struct{})
		go func() {
			defer close(served)
			for {
				select {
				case <-stop:
					return
				default:
				}
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Write(corpus)
					f.Close()
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		code := exitCodeOf(t, cmd)
		close(stop)
		<-served
		if code != 130 || !strings.Contains(errOut.String(), "bench run: interrupted after") || strings.Contains(errOut.String(), "quitting now") {
			t.Errorf("exit %d, stderr %q; want 130 after a clean stop ('bench run: interrupted after')", code, errOut)
		}
		if _, err := os.Stat(filepath.Join(out, "report.md")); err == nil {
			t.Error("an interrupted run wrote report.md")
		}
	})
	t.Run("run twice", func(t *testing.T) {
		fifo, args, _ := runSetup(t)
		cmd, errOut := startBench(t, args...)
		f := openWhenRead(t, fifo) // the run now waits for the corpus
		defer f.Close()
		cmd.Process.Signal(os.Interrupt)
		time.Sleep(300 * time.Millisecond)
		cmd.Process.Signal(os.Interrupt)
		if code := exitCodeOf(t, cmd); code != 130 || !strings.Contains(errOut.String(), "quitting now (exit 130)") {
			t.Errorf("exit %d, stderr %q; want 130 and 'quitting now'", code, errOut)
		}
	})
}

// TestInterruptContext: inside interruptContext the first signal cancels
// the context and prints the note instead of ending the process; a signal
// received before the command got there cancels the context at once; with
// no policy installed (run called directly) only stop cancels it.
func TestInterruptContext(t *testing.T) {
	var exits []int
	var buf bytes.Buffer
	in := &interrupts{stderr: &buf, exit: func(c int) { exits = append(exits, c) }, name: "x"}
	processInterrupts.Store(in)
	defer processInterrupts.Store(nil)
	ctx, stop := interruptContext("stopping")
	in.handle(os.Interrupt)
	if ctx.Err() == nil || len(exits) != 0 || !strings.Contains(buf.String(), "bench x: interrupted; stopping") {
		t.Errorf("first SIGINT: ctx.Err %v, exits %v, stderr %q; want cancelled, no exit, the note", ctx.Err(), exits, buf.String())
	}
	if got := in.exitCode(1); got != 130 {
		t.Errorf("exitCode(1) = %d after SIGINT, want 130", got)
	}
	in.handle(os.Interrupt)
	if !slices.Equal(exits, []int{130}) {
		t.Errorf("second SIGINT: exits %v, want [130]", exits)
	}
	stop()

	in = &interrupts{stderr: &buf, exit: func(c int) { exits = append(exits, c) }, name: "run", graceful: true}
	processInterrupts.Store(in)
	in.handle(syscall.SIGTERM) // before the command reached interruptContext
	ctx, stop = interruptContext("stopping")
	if ctx.Err() == nil {
		t.Error("signal received earlier: context not cancelled")
	}
	stop()

	processInterrupts.Store(nil)
	ctx, stop = interruptContext("stopping")
	if ctx.Err() != nil {
		t.Error("no policy installed: context cancelled before stop")
	}
	stop()
	if ctx.Err() == nil {
		t.Error("stop did not cancel the context")
	}
}
