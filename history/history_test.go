package history

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAppendCreatesHeaderOnceAndKeepsRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench-history.csv")
	a, b := 0.1, 0.2 // variables: Go constant arithmetic would give exactly 0.3
	t1 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	t2 := time.Date(2026, 11, 30, 13, 10, 5, 500_000_000, time.FixedZone("CET", 3600))
	r1 := Row{Time: t1, ConfigHash: "c1", DatasetHash: "d1", Metrics: map[string]map[string]float64{
		"whole/bm25":  {"recall@100": 0.9253, "ndcg@10": 0.6789},
		"whole/dense": {"ndcg@10": a + b}, // 0.30000000000000004 must round-trip exactly
	}}
	// The second run drops a cell and adds one: the long format must not care.
	r2 := Row{Time: t2, ConfigHash: "c2", DatasetHash: "d1", Metrics: map[string]map[string]float64{
		"whole/bm25":  {"ndcg@10": 0.6801},
		"w128/hybrid": {"ndcg@10": 0.7},
	}}
	if err := Append(path, r1); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, r2); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := `run,time,config_hash,dataset_hash,cell,metric,value,commit
1,2026-11-30T12:00:00Z,c1,d1,whole/bm25,ndcg@10,0.6789,
1,2026-11-30T12:00:00Z,c1,d1,whole/bm25,recall@100,0.9253,
1,2026-11-30T12:00:00Z,c1,d1,whole/dense,ndcg@10,0.30000000000000004,
2,2026-11-30T12:10:05.5Z,c2,d1,w128/hybrid,ndcg@10,0.7,
2,2026-11-30T12:10:05.5Z,c2,d1,whole/bm25,ndcg@10,0.6801,
`
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("file content (-want +got):\n%s", diff)
	}
	rows, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	r1.Run, r2.Run = 1, 2
	r2.Time = r2.Time.UTC()
	if diff := cmp.Diff([]Row{r1, r2}, rows); diff != "" {
		t.Errorf("Read (-want +got):\n%s", diff)
	}
}

func TestAppendRunWithoutMetricsIsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.csv")
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := Append(path, Row{Time: ts, ConfigHash: "c", DatasetHash: "d"}); err != nil {
		t.Fatal(err)
	}
	if err := Append(path, Row{Time: ts, ConfigHash: "c", DatasetHash: "d", Metrics: map[string]map[string]float64{"a": {"m": 1}}}); err != nil {
		t.Fatal(err)
	}
	rows, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Run != 1 || len(rows[0].Metrics) != 0 || rows[1].Run != 2 {
		t.Fatalf("rows = %+v, want run 1 without metrics and run 2", rows)
	}
}

func TestAppendRejectsBadRowsWithoutWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.csv")
	nan := 0.0
	nan = nan / nan
	cases := map[string]Row{
		"empty cell":        {Metrics: map[string]map[string]float64{"": {"m": 1}}},
		"empty metric":      {Metrics: map[string]map[string]float64{"c": {"": 1}}},
		"NaN value":         {Metrics: map[string]map[string]float64{"c": {"m": nan}}},
		"newline in hash":   {ConfigHash: "a\nb"},
		"newline in cell":   {Metrics: map[string]map[string]float64{"a\nb": {"m": 1}}},
		"newline in metric": {Metrics: map[string]map[string]float64{"c": {"a\rb": 1}}},
	}
	for name, row := range cases {
		if err := Append(path, row); err == nil {
			t.Errorf("%s: Append succeeded, want an error", name)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file exists after rejected appends (err=%v)", err)
	}
}

func TestAppendConcurrentLosesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.csv")
	const n = 20
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = Append(path, Row{Time: time.Unix(int64(i), 0), ConfigHash: "c", DatasetHash: "d",
				Metrics: map[string]map[string]float64{"cell": {"m": float64(i)}}})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	rows, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != n {
		t.Fatalf("%d runs, want %d", len(rows), n)
	}
	seen := map[float64]bool{}
	for i, r := range rows {
		if r.Run != i+1 {
			t.Errorf("row %d has run %d", i, r.Run)
		}
		seen[r.Metrics["cell"]["m"]] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct values, want %d", len(seen), n)
	}
}

func TestAppendRefusesForeignFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.csv")
	orig := "a,b,c\n1,2,3\n"
	os.WriteFile(path, []byte(orig), 0o644)
	err := Append(path, Row{})
	if err == nil || !strings.Contains(err.Error(), "h.csv:1: header") {
		t.Fatalf("err = %v, want a header error naming h.csv:1", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != orig {
		t.Errorf("file changed to %q", got)
	}
}

func TestReadErrors(t *testing.T) {
	const h = "run,time,config_hash,dataset_hash,cell,metric,value\n"
	const ok = "1,2026-11-30T12:00:00Z,c,d,cell,m,0.5\n"
	cases := []struct{ name, data, want string }{
		{"bad header", "run,when\n", "h.csv:1: header is"},
		{"field count", h + "1,2026-11-30T12:00:00Z,c,d,cell,m\n", "h.csv:2: 6 fields, want 7"},
		{"run not integer", h + "x,2026-11-30T12:00:00Z,c,d,cell,m,0.5\n", `h.csv:2: run: "x" is not a positive integer`},
		{"run zero", h + "0,2026-11-30T12:00:00Z,c,d,cell,m,0.5\n", `h.csv:2: run: "0" is not a positive integer`},
		{"bad time", h + "1,yesterday,c,d,cell,m,0.5\n", `h.csv:2: time: "yesterday" is not an RFC 3339 time`},
		{"bad value", h + ok + "1,2026-11-30T12:00:00Z,c,d,cell,n,abc\n", `h.csv:3: value: "abc" is not a finite number`},
		{"NaN value", h + "1,2026-11-30T12:00:00Z,c,d,cell,n,NaN\n", `h.csv:2: value: "NaN" is not a finite number`},
		// strconv would read "0_5" as 5 and "0x1p-1" as 0.5: a history
		// value is a plain decimal as bench run writes it.
		{"underscore value", h + "1,2026-11-30T12:00:00Z,c,d,cell,n,0_5\n", `h.csv:2: value: "0_5" is not a decimal number`},
		{"hex value", h + "1,2026-11-30T12:00:00Z,c,d,cell,n,0x1p-1\n", `h.csv:2: value: "0x1p-1" is not a decimal number`},
		{"duplicate metric", h + ok + ok, `h.csv:3: metric: run 1: cell "cell": metric "m" repeated`},
		{"hash disagrees", h + ok + "1,2026-11-30T12:00:00Z,c2,d,cell,n,1\n", `h.csv:3: config_hash: run 1 has config_hash "c"`},
		{"not contiguous", h + ok + "2,2026-11-30T12:00:00Z,c,d,cell,m,1\n" + "1,2026-11-30T12:00:00Z,c,d,cell,n,1\n", "h.csv:4: run: run 1 appears again"},
		{"empty cell", h + "1,2026-11-30T12:00:00Z,c,d,,m,1\n", "h.csv:2: cell: empty cell name"},
		{"quote", h + "1,2026-11-30T12:00:00Z,c,d,\"cell,m,1\n", "h.csv:2:"},
	}
	for _, c := range cases {
		path := filepath.Join(t.TempDir(), "h.csv")
		os.WriteFile(path, []byte(c.data), 0o644)
		_, err := Read(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

func TestReadAcceptsBOMAndCRLFAndEmptyFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "h.csv")
	os.WriteFile(path, []byte("\ufeffrun,time,config_hash,dataset_hash,cell,metric,value\r\n1,2026-11-30T12:00:00Z,c,d,cell,m,0.25\r\n"), 0o644)
	rows, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := rows[0].Value("cell", "m"); !ok || v != 0.25 {
		t.Errorf("value = %v, %v; want 0.25", v, ok)
	}
	empty := filepath.Join(dir, "empty.csv")
	os.WriteFile(empty, nil, 0o644)
	rows, err = Read(empty)
	if err != nil || len(rows) != 0 {
		t.Errorf("empty file: rows=%v err=%v, want none and no error", rows, err)
	}
	if _, err := Read(filepath.Join(dir, "missing.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v, want os.ErrNotExist", err)
	}
}

func TestAppendChecksLastLineAndHeaderOnly(t *testing.T) {
	dir := t.TempDir()
	const h = "run,time,config_hash,dataset_hash,cell,metric,value\n"
	headerOnly := filepath.Join(dir, "header.csv")
	os.WriteFile(headerOnly, []byte(h), 0o644)
	if err := Append(headerOnly, Row{Metrics: map[string]map[string]float64{"c": {"m": 1}}}); err != nil {
		t.Fatal(err)
	}
	if rows, err := Read(headerOnly); err != nil || len(rows) != 1 || rows[0].Run != 1 {
		t.Errorf("header-only file: rows %+v, err %v; want run 1", rows, err)
	}
	// Run numbers continue from the last line: 7 → 8.
	gap := filepath.Join(dir, "gap.csv")
	os.WriteFile(gap, []byte(h+"7,2026-11-30T12:00:00Z,c,d,cell,m,0.5\n\n"), 0o644)
	if err := Append(gap, Row{}); err != nil {
		t.Fatal(err)
	}
	if rows, _ := Read(gap); len(rows) != 2 || rows[1].Run != 8 {
		t.Errorf("rows %+v, want runs 7 and 8", rows)
	}
	bad := filepath.Join(dir, "bad.csv")
	orig := h + "1,2026-11-30T12:00:00Z,c,d,cell,m,0.5\n1,2026-11-30T12:00:00Z,c,d,cell,n,oops\n"
	os.WriteFile(bad, []byte(orig), 0o644)
	err := Append(bad, Row{})
	if err == nil || !strings.Contains(err.Error(), `bad.csv:3: value: "oops" is not a finite number`) {
		t.Errorf("err = %v, want the bad last line named (bad.csv:3)", err)
	}
	if got, _ := os.ReadFile(bad); string(got) != orig {
		t.Error("bad file was modified")
	}
}

// TestTruncatedLastLine: a history whose last line was cut short (no line
// feed: Append always writes one) is refused by Read and Append, naming the
// line. Before the fix "0.6789" cut to "0." read as 0 (shown 0.0000) and
// Append wrote its run after it.
func TestTruncatedLastLine(t *testing.T) {
	const h = "run,time,config_hash,dataset_hash,cell,metric,value\n"
	const ok = "1,2026-11-30T12:00:00Z,c,d,cell,m,0.5\n"
	for _, c := range []struct{ name, data, want string }{
		{"cut value", h + ok + "1,2026-11-30T12:00:00Z,c,d,cell,n,0.", `h.csv:3: the last line "1,2026-11-30T12:00:00Z,c,d,cell,n,0." does not end in a line feed`},
		{"cut in the value", h + ok + "1,2026-11-30T12:00:00Z,c,d,cell,n,0.67", "h.csv:3: the last line"},
		{"cut field count", h + ok + "2,2026-11-30T12:00:00Z,c,d,ce", "h.csv:3: the last line"},
		{"cut header", "run,time,conf", "h.csv:1: the last line"},
	} {
		path := filepath.Join(t.TempDir(), "h.csv")
		os.WriteFile(path, []byte(c.data), 0o644)
		if rows, err := Read(path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Read: %v, %v; want an error containing %q", c.name, rows, err, c.want)
		}
		if err := Append(path, Row{Metrics: map[string]map[string]float64{"c": {"m": 1}}}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Append: %v; want an error containing %q", c.name, err, c.want)
		}
		if got, _ := os.ReadFile(path); string(got) != c.data {
			t.Errorf("%s: Append modified the file", c.name)
		}
	}
}

// TestNotAHistoryCSV: a binary file (or any file whose first line is not
// the header) without a final line feed was called a history "probably cut
// short"; it is now refused as not a history CSV, by Read and by Append,
// before any line is read. A header cut short is still "cut short".
func TestNotAHistoryCSV(t *testing.T) {
	for _, c := range []struct{ name, data, want string }{
		{"gzip", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xffrun", "h.csv: not a history CSV: it holds binary data (byte 0x00 at offset 3)"},
		{"latin-1", "caf\xe9 au lait", "h.csv: not a history CSV: it holds binary data (byte 0xe9 at offset 3)"},
		{"qrels", "q1 0 d1 1\nq1 0 d2 0", `h.csv:1: header is "q1 0 d1 1", want "run,time,config_hash,dataset_hash,cell,metric,value,commit" (not a ragbench history file)`},
	} {
		path := filepath.Join(t.TempDir(), "h.csv")
		os.WriteFile(path, []byte(c.data), 0o644)
		_, err := Read(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "cut short") {
			t.Errorf("%s: Read: %v; want an error containing %q", c.name, err, c.want)
		}
		if err := Append(path, Row{Metrics: map[string]map[string]float64{"c": {"m": 1}}}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Append: %v; want an error containing %q", c.name, err, c.want)
		}
	}
}

// TestCommitColumn: a new history ends each line with the commit of the
// build that ran (commit 4021c53 said history rows carry it; they did
// not). A file written before the column (seven columns) is still read,
// its runs without a commit, and Append keeps it in its seven columns
// rather than rewrite the user's file; the lines of one run agree on the
// commit, as on the hashes.
func TestCommitColumn(t *testing.T) {
	dir := t.TempDir()
	t1 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	r := Row{Time: t1, ConfigHash: "c", DatasetHash: "d", Commit: "4021c53+modified", Metrics: map[string]map[string]float64{"doc/bm25": {"ndcg@10": 0.5, "recall@10": 1}}}
	path := filepath.Join(dir, "new.csv")
	if err := Append(path, r); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := `run,time,config_hash,dataset_hash,cell,metric,value,commit
1,2026-11-30T12:00:00Z,c,d,doc/bm25,ndcg@10,0.5,4021c53+modified
1,2026-11-30T12:00:00Z,c,d,doc/bm25,recall@10,1,4021c53+modified
`
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("new file (-want +got):\n%s", diff)
	}
	rows, err := Read(path)
	r.Run = 1
	if err != nil || len(rows) != 1 || !cmp.Equal(rows[0], r) {
		t.Errorf("Read: %+v, %v; want %+v", rows, err, r)
	}

	old := filepath.Join(dir, "old.csv")
	const legacy = "run,time,config_hash,dataset_hash,cell,metric,value\n1,2026-11-30T12:00:00Z,c,d,doc/bm25,ndcg@10,0.4\n"
	os.WriteFile(old, []byte(legacy), 0o644)
	if err := Append(old, r); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(old)
	want = legacy + "2,2026-11-30T12:00:00Z,c,d,doc/bm25,ndcg@10,0.5\n2,2026-11-30T12:00:00Z,c,d,doc/bm25,recall@10,1\n"
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("a seven-column file appended to (-want +got):\n%s", diff)
	}
	rows, err = Read(old)
	if err != nil || len(rows) != 2 || rows[0].Commit != "" || rows[1].Commit != "" || rows[1].Metrics["doc/bm25"]["recall@10"] != 1 {
		t.Errorf("Read of a seven-column file: %+v, %v", rows, err)
	}

	const h = "run,time,config_hash,dataset_hash,cell,metric,value,commit\n"
	for _, c := range []struct{ name, data, want string }{
		{"commits differ", h + "1,2026-11-30T12:00:00Z,c,d,x,m,1,a\n1,2026-11-30T12:00:00Z,c,d,x,n,1,b\n", `h.csv:3: commit: run 1 has commit "a" on an earlier line`},
		{"seven fields", h + "1,2026-11-30T12:00:00Z,c,d,x,m,1\n", "h.csv:2: 7 fields, want 8 (run,time,config_hash,dataset_hash,cell,metric,value,commit)"},
		{"eight in a seven-column file", "run,time,config_hash,dataset_hash,cell,metric,value\n1,2026-11-30T12:00:00Z,c,d,x,m,1,a\n", "h.csv:2: 8 fields, want 7 (run,time,config_hash,dataset_hash,cell,metric,value)"},
	} {
		p := filepath.Join(t.TempDir(), "h.csv")
		os.WriteFile(p, []byte(c.data), 0o644)
		if _, err := Read(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Read: %v; want %q", c.name, err, c.want)
		}
	}
	if err := Append(filepath.Join(dir, "x.csv"), Row{Commit: "a\nb"}); err == nil || !strings.Contains(err.Error(), "commit: contains a line break") {
		t.Errorf("Append of a commit with a line break: %v", err)
	}
}
