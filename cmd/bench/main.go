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
//	model      check an ONNX model folder, embed or score texts with it
//	attribute  join retrieval hits with answer verdicts (RAG failure attribution)
//	history    show the history CSV written by bench run
//
// Exit codes: 0 success, 1 error (bad input, failed run), 2 usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
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
		"model":     {"check an ONNX model folder, embed or score texts with it", cmdModel},
		"attribute": {"join retrieval hits with answer verdicts", cmdAttribute},
		"history":   {"show the history CSV written by bench run", cmdHistory},
	}
}

// usageError marks errors caused by how the command was called (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

func main() {
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
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
		return 1
	}
	return 0
}

// errHelp is returned by a subcommand after printing its --help text to
// stdout (exit 0).
var errHelp = errors.New("help requested")

// newFlagSet returns a subcommand's flag set: parse errors are written to
// stderr, and its Usage prints nothing (flagErr prints the usage text, to
// stdout for -h/--help and to stderr for a usage error).
func newFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
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
	fmt.Fprintln(w, "\nRun 'bench <command> --help' for a command's flags and examples.")
}
