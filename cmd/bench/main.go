// Command bench is ragbench's command line: it evaluates retrieval runs with
// trec_eval-exact measures, compares systems with paired significance tests,
// checks ONNX model folders, and sweeps chunkings × retrievers × k over one
// set of qrels.
//
// Usage:
//
//	bench <command> [flags] [args]
//
// Commands:
//
//	run        sweep a config (chunkings × retrievers × k) and write a report
//	eval       score a run against qrels (trec_eval-compatible)
//	compare    paired significance tests between runs
//	fuse       fuse runs into one (RRF, CombSUM, CombMNZ, DBSF, ...)
//	model      check an ONNX model folder, embed or score texts with it
//	attribute  join retrieval hits with answer verdicts (RAG failure attribution)
//	history    show the history CSV written by bench run
//	labels     check, repair, record, convert, pool and merge labels files
//	label      the labelling workbench: write and review gold passages in the browser
//
// Exit codes: 0 success, 1 error (bad input, failed run), 2 usage error,
// 3 regression found by the baseline gate (bench run --baseline, bench
// compare --gate; see docs/ci.md), 130 interrupted (Ctrl-C, SIGINT; 143 for SIGTERM). An interrupted 'bench
// run' first stops after its current step and cleans up (temporary index
// folders removed, finished embedding batches kept in the cache), then
// exits 130; a second Ctrl-C exits 130 at once. Other commands exit 130 at
// the first Ctrl-C.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// command is one subcommand: it parses its own flags from args and writes
// results to stdout, diagnostics to stderr.
type command struct {
	summary string
	run     func(stdout, stderr io.Writer, args []string) error
}

func commands() map[string]command {
	return map[string]command{
		"run":       {"sweep a config (chunkings × retrievers × k) and write a report", cmdRun},
		"eval":      {"score a run against qrels (trec_eval-compatible)", cmdEval},
		"compare":   {"paired significance tests between runs", cmdCompare},
		"fuse":      {"fuse runs into one (RRF, CombSUM, CombMNZ, DBSF, ...)", cmdFuse},
		"model":     {"check an ONNX model folder, embed or score texts with it", cmdModel},
		"attribute": {"join retrieval hits with answer verdicts", cmdAttribute},
		"history":   {"show the history CSV written by bench run", cmdHistory},
		"labels":    {"check, repair, record, convert, pool and merge labels files", cmdLabels},
		"label":     {"the labelling workbench: write and review gold passages in the browser", cmdLabel},
	}
}

// usageError marks errors caused by how the command was called (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitError is an error with its own exit code (gate.ExitRegressed: the
// baseline gate found a regression).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }

func main() {
	os.Exit(runInterruptible(os.Stdout, os.Stderr, os.Args[1:], os.Exit))
}

// gracefulStop names the commands that stop cleanly on their own at the
// first SIGINT or SIGTERM (they cancel their work's context and return an
// error after cleaning up): 'bench run'. Any other command is ended at once,
// unless it is inside an interruptContext.
var gracefulStop = map[string]bool{"run": true}

// runInterruptible is run under the process's interrupt policy: the first
// SIGINT or SIGTERM ends a command not in gracefulStop at once with exit
// 128+signal (130 for SIGINT, 143 for SIGTERM); a command in gracefulStop
// stops by itself and its failure exits 128+signal instead of 1 (a command
// that completes anyway exits 0); a second signal ends any command at
// once with 128+signal of the first. exit is os.Exit (tests replace it).
func runInterruptible(stdout, stderr io.Writer, args []string, exit func(int)) int {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(ch)
	in := &interrupts{stderr: stderr, exit: exit, graceful: len(args) > 0 && gracefulStop[args[0]]}
	if len(args) > 0 {
		in.name = args[0]
	}
	processInterrupts.Store(in)
	defer processInterrupts.Store(nil)
	go func() {
		for sig := range ch {
			in.handle(sig)
		}
	}()
	return in.exitCode(run(stdout, stderr, args))
}

// interrupts applies runInterruptible's policy to the signals received.
type interrupts struct {
	stderr   io.Writer
	exit     func(int)
	name     string // the command, for messages
	graceful bool   // the command stops by itself at the first signal

	mu     sync.Mutex
	code   int                // 128+signal of the first signal; 0 before any
	cancel context.CancelFunc // set by interruptContext: the command's graceful stop
	note   string             // printed when cancel is called
}

// processInterrupts is the policy runInterruptible installed (nil when run
// is called directly, as in tests).
var processInterrupts atomic.Pointer[interrupts]

// interruptContext returns a context that the first SIGINT or SIGTERM
// cancels, printing "bench <command>: interrupted; <note>" on stderr,
// instead of ending the process: for a command that cleans up and returns
// an error when its context is cancelled (its exit status is then 130, or
// 143 for SIGTERM); a second signal still ends the process at once. When
// run is not under runInterruptible (tests) the context is only cancelled
// by stop. Call stop when the work is done.
func interruptContext(note string) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	in := processInterrupts.Load()
	if in == nil {
		return ctx, cancel
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.code != 0 { // interrupted before the command got here
		cancel()
	}
	in.cancel, in.note = cancel, note
	return ctx, func() {
		in.mu.Lock()
		in.cancel = nil
		in.mu.Unlock()
		cancel()
	}
}

// quitAgain is the placeholder in an interruptContext note that handle
// replaces by how to quit at once (quitNow of the signal received).
const quitAgain = "{again}"

// quitNow says how to end the process at once after sig: "Ctrl-C again"
// after SIGINT (a keyboard), "a second signal" after any other (SIGTERM
// comes from kill or a supervisor, where Ctrl-C means nothing).
func quitNow(sig os.Signal) string {
	if sig == os.Interrupt {
		return "Ctrl-C again"
	}
	return "a second signal"
}

// signalExitCode is the shell's exit status of a process ended by sig:
// 128 + the signal number (130 for SIGINT, 143 for SIGTERM).
func signalExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// handle acts on one received signal.
func (in *interrupts) handle(sig os.Signal) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.code != 0 {
		fmt.Fprintf(in.stderr, "\nbench %s: interrupted again; quitting now (exit %d)\n", in.name, in.code)
		in.exit(in.code)
		return
	}
	in.code = signalExitCode(sig)
	if in.cancel != nil {
		fmt.Fprintf(in.stderr, "\nbench %s: interrupted; %s\n", in.name, strings.ReplaceAll(in.note, quitAgain, quitNow(sig)))
		in.cancel()
		return
	}
	if !in.graceful {
		fmt.Fprintf(in.stderr, "\nbench %s: interrupted (exit %d)\n", in.name, in.code)
		in.exit(in.code)
	}
	// A graceful command received the signal too and is stopping.
}

// exitCode is the process's exit status for a command that returned code:
// 128+signal when it was interrupted and failed, else code.
func (in *interrupts) exitCode(code int) int {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.code != 0 && code != 0 {
		return in.code
	}
	return code
}

// run dispatches to a subcommand and maps its error to an exit code.
func run(stdout, stderr io.Writer, args []string) int {
	cmds := commands()
	if len(args) == 2 && args[0] == "help" {
		args = []string{args[1], "--help"} // 'bench help eval' = 'bench eval --help'
	}
	if len(args) == 0 {
		printUsage(stderr, cmds) // a usage error: no command
		return 2
	}
	if args[0] == "--version" || args[0] == "version" {
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stdout, cmds) // help asked for: stdout, exit 0 (as git and go)
		return 0
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "bench: unknown command %q\n\n", args[0])
		printUsage(stderr, cmds)
		return 2
	}
	if err := c.run(stdout, stderr, args[1:]); err != nil {
		if errors.Is(err, errHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "bench %s: %v\n", args[0], err)
		var ue usageError
		if errors.As(err, &ue) {
			return 2
		}
		var ee exitError
		if errors.As(err, &ee) {
			return ee.code
		}
		return 1
	}
	return 0
}

// errHelp is returned by a subcommand after printing its --help text to
// stdout (exit 0).
var errHelp = errors.New("help requested")

// newFlagSet returns a subcommand's flag set: flag's own messages are
// discarded and its Usage prints nothing, because flagErr prints the usage
// text (to stdout for -h/--help, to stderr for a usage error) and run
// prints the parse error once, last, as "bench <command>: <error>".
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// printFlagUsage writes text followed by fs's flag defaults to w.
func printFlagUsage(w io.Writer, fs *flag.FlagSet, text string) {
	out := fs.Output()
	fmt.Fprint(w, text)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(out)
}

// flagErr turns an error of fs.Parse into the subcommand's result: for
// -h/--help the usage text goes to stdout and errHelp is returned (exit
// 0); any other parse error is a usage error (exit 2) with the usage text on
// stderr after flag's own message.
func flagErr(fs *flag.FlagSet, stdout, stderr io.Writer, text string, err error) error {
	if errors.Is(err, flag.ErrHelp) {
		printFlagUsage(stdout, fs, text)
		return errHelp
	}
	printFlagUsage(stderr, fs, text)
	return usagef("%v", err)
}

// versionLine is what 'bench --version' prints: the module's version and,
// when the binary was built from a git checkout, the commit, its time and
// "+modified" for uncommitted changes (runtime/debug.ReadBuildInfo; "go
// build" records them), then the Go version. A history row or a report can
// so be tied to the code that made it.
func versionLine() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "bench (no build information)"
	}
	line := "bench " + bi.Main.Version
	var rev, at, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+modified"
			}
		}
	}
	if rev != "" {
		line += " commit " + rev + modified
		if at != "" {
			line += " (" + at + ")"
		}
	}
	return line + " " + bi.GoVersion
}

func printUsage(w io.Writer, cmds map[string]command) {
	fmt.Fprintln(w, "usage: bench <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'bench <command> --help' for a command's flags and examples, 'bench --version' for the build.")
	fmt.Fprintln(w, "\nExit codes: 0 success, 1 error (bad input, failed run), 2 usage error,")
	fmt.Fprintln(w, "3 regression found by the baseline gate (run --baseline, compare --gate),")
	fmt.Fprintln(w, "130 interrupted (Ctrl-C; 143 for SIGTERM). 'bench run' stops after its")
	fmt.Fprintln(w, "current step at the first Ctrl-C, cleans up and exits 130; a second")
	fmt.Fprintln(w, "Ctrl-C quits at once (130).")
}
