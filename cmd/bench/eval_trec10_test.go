package main

import (
	"os"
	"strings"
	"testing"
)

// TestEvalTrecEval10Flags: -l 0 and -J as trec_eval 10 reads them, and the
// run "-" from stdin (before: -l 0 was refused, -J was an unknown flag, "-"
// a missing file). Hand-computed from trec_eval's definitions
// (form_res_rels.c, m_P.c, m_map.c, m_num_ret.c):
//
//	judged q1: d0 = 0, d1 = 1, dn = -1 (in the pool, unjudged)
//	ranked d0, dx (not in the qrels), dn, d1
//	-l 0:  relevant d0, d1 (R = 2): P_5 = 2/5, map = (1/1 + 2/4)/2 = 0.75
//	-J:    ranking d0, d1 (dx and dn dropped): num_ret 2, P_5 = 1/5,
//	       map = (1/2)/1 = 0.5, recip_rank 0.5
//	plain: num_ret 4, P_5 = 1/5, map = 1/4, recip_rank 0.25
func TestEvalTrecEval10Flags(t *testing.T) {
	p := writeFiles(t, map[string]string{
		"qrels": "# judged by hand\nq1 0 d0 0\nq1 0 d1 1\nq1 0 dn -1\n",
		"run":   "# ranked by hand\nq1 Q0 d0 1 4 r\nq1 Q0 dx 2 3 r\nq1 Q0 dn 3 2 r\nq1 Q0 d1 4 1 r\n",
	})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-l", "0"}, "num_ret all 4\nmap all 0.7500\nrecip_rank all 1.0000\nP_5 all 0.4000\n"},
		{[]string{"-l0"}, "num_ret all 4\nmap all 0.7500\nrecip_rank all 1.0000\nP_5 all 0.4000\n"},
		{[]string{"-J"}, "num_ret all 2\nmap all 0.5000\nrecip_rank all 0.5000\nP_5 all 0.2000\n"},
		{nil, "num_ret all 4\nmap all 0.2500\nrecip_rank all 0.2500\nP_5 all 0.2000\n"},
	} {
		args := append([]string{"--format", "trec", "-m", "num_ret", "-m", "map", "-m", "P.5", "-m", "recip_rank"}, c.args...)
		out, errOut, code := runEval(t, append(args, p("qrels"), p("run"))...)
		if code != 0 || tabsToSpaces(out) != c.want {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want %q", c.args, code, errOut, tabsToSpaces(out), c.want)
		}
		// The same run from stdin.
		f, err := os.Open(p("run"))
		if err != nil {
			t.Fatal(err)
		}
		old := stdin
		stdin = f
		out2, errOut, code := runEval(t, append(args, p("qrels"), "-")...)
		stdin = old
		f.Close()
		if code != 0 || out2 != out {
			t.Errorf("%q, run from stdin: exit %d, stderr %q, stdout %q; want %q", c.args, code, errOut, out2, out)
		}
	}
}

// tabsToSpaces joins trec_eval's tab-separated columns with single spaces
// and drops their padding.
func tabsToSpaces(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		b.WriteString(strings.Join(strings.Fields(l), " "))
		if strings.HasSuffix(l, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}
