package main

import (
	"strings"
	"testing"
)

// TestHelpGoesToStdout: help asked for explicitly (bench -h, --help, help,
// help CMD, CMD -h, CMD --help, CMD -help) prints to stdout and exits 0,
// with nothing on stderr, as git and go do; a usage error (no command, an
// unknown command or flag, a missing argument) prints the usage or a
// message pointing to --help on stderr and exits 2 with nothing on stdout.
func TestHelpGoesToStdout(t *testing.T) {
	type tc struct {
		args []string
		want string // text the help must hold
	}
	cases := []tc{
		{[]string{"-h"}, "usage: bench <command>"},
		{[]string{"--help"}, "usage: bench <command>"},
		{[]string{"help"}, "usage: bench <command>"},
	}
	for name := range commands() {
		head := "usage: bench " + name
		cases = append(cases,
			tc{[]string{"help", name}, head},
			tc{[]string{name, "--help"}, head},
			tc{[]string{name, "-h"}, head},
			tc{[]string{name, "-help"}, head},
		)
		if name != "model" { // model's flags follow its subcommand
			cases = append(cases, tc{[]string{name, "--help"}, "Flags:"})
		}
	}
	for _, c := range cases {
		code, out, errOut := runBench(c.args...)
		if code != 0 || !strings.Contains(strings.ToLower(out), strings.ToLower(c.want)) || errOut != "" {
			t.Errorf("%q: exit %d, stdout %.60q, stderr %.60q; want exit 0, %q on stdout, empty stderr", c.args, code, out, errOut, c.want)
		}
	}

	for _, args := range [][]string{
		nil,
		{"nosuchcommand"},
		{"help", "nosuchcommand"},
		{"eval", "--bogus", "q", "r"},
		{"eval", "onlyqrels"},
		{"compare", "--bogus"},
		{"history", "--bogus"},
		{"run", "--bogus", "x.yaml"},
		{"run"},
		{"attribute", "--bogus"},
		{"model"},
		{"model", "check"},
	} {
		code, out, errOut := runBench(args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "usage") && !strings.Contains(errOut, "--help") {
			t.Errorf("%q: exit %d, stdout %.60q, stderr %.80q; want exit 2, usage or a --help pointer on stderr, empty stdout", args, code, out, errOut)
		}
	}
}

// TestUnknownFlagOnce: a flag error is printed once, after the usage
// text, as the last line "bench CMD: flag provided but not defined: -bogus"
// (flag's own copy of the message, which came first, is gone).
func TestUnknownFlagOnce(t *testing.T) {
	for name := range commands() {
		if name == "model" { // model's flags follow its subcommand
			continue
		}
		code, _, errOut := runBench(name, "--bogus")
		lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
		if code != 2 || strings.Count(errOut, "not defined: -bogus") != 1 || lines[len(lines)-1] != "bench "+name+": flag provided but not defined: -bogus" {
			t.Errorf("%s --bogus: exit %d, stderr %q; want exit 2 and the error once, last", name, code, errOut)
		}
	}
}

// TestVersion: 'bench --version' and 'bench version' print one line,
// "bench <module version> [commit <rev>[+modified] (<time>)] <go version>",
// on stdout and exit 0 (a test binary carries no commit: go test does not
// stamp one).
func TestVersion(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		code, out, errOut := runBench(arg)
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "bench ") || !strings.Contains(out, " go1.") || strings.Count(out, "\n") != 1 {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 0 and one version line", arg, code, out, errOut)
		}
	}
}

// TestMissingArgumentsOneLine: a command given too few arguments prints
// one line naming what is missing and pointing at its --help (exit 2), not
// the whole usage text.
func TestMissingArgumentsOneLine(t *testing.T) {
	for _, name := range []string{"run", "eval", "model"} {
		code, out, errOut := runBench(name)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "'bench "+name+" --help'") {
			t.Errorf("bench %s: exit %d, stdout %q, stderr %q; want exit 2 and one line with a --help pointer", name, code, out, errOut)
		}
	}
	// bench model's subcommands: the same pointer, and "model" once.
	for _, args := range [][]string{{"model", "check"}, {"model", "embed"}, {"model", "score", "a", "b", "c"}, {"model", "bogus"}} {
		code, out, errOut := runBench(args...)
		if code != 2 || out != "" || strings.Count(errOut, "\n") != 1 || !strings.HasSuffix(errOut, "; see 'bench model --help'\n") || strings.Count(errOut, "model") != 2 {
			t.Errorf("bench %s: exit %d, stdout %q, stderr %q; want exit 2 and one line ending with the --help pointer", strings.Join(args, " "), code, out, errOut)
		}
	}
}
