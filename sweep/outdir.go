package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/history"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/report"
	"github.com/ragbench/ragbench/results"
)

// outputNames are the entries bench run writes into its output folder.
// Only these (and its own staging folders, stagePrefix*) are ever
// replaced or removed there; anything else a user keeps beside them stays.
var outputNames = []string{"runs", "misses.jsonl", "results.json", "report.md", "report.html", "manifest.json"}

// stagePrefix names the staging folder writeOutputs creates inside the
// output folder (removed when it returns; a leftover from a killed run is
// removed by the next run, after recoverStage put back the earlier outputs
// of a run killed during its commit).
const stagePrefix = ".ragbench-tmp-"

// checkOutputDir returns an error unless dir may receive bench run's
// outputs: it does not exist yet, is an empty folder, holds a manifest.json
// written by bench run (JSON with config_sha256 and dataset_sha256), or
// holds only names bench run writes (outputNames, stagePrefix*: a first
// run that was killed before its manifest). A non-empty folder of other
// files is refused, so that a mistyped --output never mixes our files into
// someone else's folder.
func checkOutputDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return fmt.Errorf("output folder: %w", err)
	}
	var others []string
	for _, e := range entries {
		if !slices.Contains(outputNames, e.Name()) && !strings.HasPrefix(e.Name(), stagePrefix) {
			others = append(others, e.Name())
		}
	}
	if len(others) == 0 {
		return nil
	}
	foreign := others[0]
	if len(others) > 1 {
		foreign += fmt.Sprintf(" and %d more", len(others)-1)
	}
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err == nil {
		var m struct {
			ConfigSHA string `json:"config_sha256"`
			Dataset   string `json:"dataset_sha256"`
		}
		if json.Unmarshal(b, &m) == nil && m.ConfigSHA != "" && m.Dataset != "" {
			return nil
		}
		return fmt.Errorf("output folder %s: manifest.json is not a bench run manifest (no config_sha256/dataset_sha256) and the folder holds other files (%s): refusing to write into it; choose a new or empty folder with --output", dir, foreign)
	}
	return fmt.Errorf("output folder %s is not empty (it holds %s) and has no manifest.json from an earlier bench run: refusing to write into it; choose a new or empty folder with --output", dir, foreign)
}

// testHookStaged, when set (tests only), is called after each file is
// written to the staging folder, before the commit.
var testHookStaged func(name string)

// rename and exchange are the two moves commitOutputs makes (os.Rename,
// fileutil.Exchange); tests replace them to make one move fail.
var (
	rename   = os.Rename
	exchange = fileutil.Exchange
)

// writeOutputs writes report.md, report.html, results.json, runs/<cell>.trec,
// misses.jsonl and manifest.json into cfg.Output, then appends the history
// row. The folder is checked with checkOutputDir first, then locked
// (lockOutputDir: a second run writing the same folder waits for the first
// to finish, so the last to finish wins, whole). Everything is written
// (fsynced) into a staging folder inside cfg.Output; only when all of it is
// complete, and ctx is not cancelled, is it moved in by commitOutputs,
// all or nothing: runs/ holds exactly the cells of results.json (no stale
// .trec files of an earlier, larger sweep), an error or Ctrl-C before the
// commit leaves the earlier outputs untouched, and a move failing during
// the commit puts the earlier outputs back whole. A run killed during the
// commit (SIGKILL, power loss: nothing can undo its moves then) leaves its
// journal (journalName), and the next run into the folder, or bench run
// --check, puts the earlier outputs back before any work
// (recoverOutputDir; again here, for a run killed since); until then the
// folder may mix the two runs' entries.
func writeOutputs(ctx context.Context, cfg *Config, ds *dataset, res *results.Results, scored []scoredCell, opts Options) error {
	out := cfg.Output
	if err := checkOutputDir(out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	unlock, err := lockOutputDir(ctx, out, opts.Stderr)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := recoverStages(out); err != nil { // killed since the preflight's
		return err
	}
	stage, err := os.MkdirTemp(out, stagePrefix)
	if err != nil {
		return err
	}
	keepStage := false // when a failed commit could not restore everything
	defer func() {
		if !keepStage {
			os.RemoveAll(stage)
		}
	}()
	row := historyRow(cfg, ds, res, opts.Now())
	names, err := stageOutputs(ctx, stage, cfg, ds, res, scored, row, opts.NoHistory)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// From here on only moves, and ctx is no longer consulted, so the
	// outputs are not left half old, half new.
	if keepStage, err = commitOutputs(stage, out, names); err != nil {
		return err
	}
	fileutil.SyncDir(out)
	if opts.NoHistory {
		return nil
	}
	return history.Append(cfg.History, row) // its errors start "history: "
}

// stageOutputs writes every output into the folder stage (each file
// fsynced; ctx checked before each) and returns the names to move into the
// output folder, runs/ first. row is the history row that report.html
// charts with the earlier ones, unless noHistory.
func stageOutputs(ctx context.Context, stage string, cfg *Config, ds *dataset, res *results.Results, scored []scoredCell, row history.Row, noHistory bool) ([]string, error) {
	put := func(rel string, data []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fileutil.WriteAtomic(filepath.Join(stage, rel), data); err != nil {
			return err
		}
		if testHookStaged != nil {
			testHookStaged(rel)
		}
		return nil
	}
	if err := os.Mkdir(filepath.Join(stage, "runs"), 0o755); err != nil {
		return nil, err
	}
	for _, c := range scored {
		var buf bytes.Buffer
		if err := eval.WriteRunTREC(&buf, c.run, cellFile(c.name)); err != nil {
			return nil, fmt.Errorf("runs/%s.trec: %w", cellFile(c.name), err)
		}
		if err := put(filepath.Join("runs", cellFile(c.name)+".trec"), buf.Bytes()); err != nil {
			return nil, err
		}
	}
	man, err := manifest(cfg, ds)
	if err != nil {
		return nil, err
	}
	appended := &row // report.html charts the history with this run in it
	if noHistory {
		appended = nil
	}
	page, err := report.HTML(res, historyRows(cfg, appended))
	if err != nil {
		return nil, err
	}
	resJSON, err := results.ResultsJSON(res)
	if err != nil {
		return nil, err
	}
	files := []struct {
		name string
		data []byte
	}{
		{"misses.jsonl", results.MissesJSONL(res)},
		{"results.json", resJSON},
		{"report.md", []byte(report.Markdown(res))},
		{"report.html", page},
		{"manifest.json", man},
	}
	names := []string{"runs"}
	for _, f := range files {
		if err := put(f.name, f.data); err != nil {
			return nil, err
		}
		names = append(names, f.name)
	}
	return names, nil
}

// move is one step of commitOutputs: from was renamed to to (to did not
// exist), or the two were exchanged.
type move struct {
	from, to  string
	exchanged bool
}

// undo reverses the move.
func (m move) undo() error {
	if m.exchanged {
		return exchange(m.from, m.to)
	}
	return rename(m.to, m.from)
}

// commitOutputs moves each of names from the folder stage into out, all or
// nothing. An entry replacing an earlier one is exchanged with it in one
// atomic step where the file system can (fileutil.Exchange), so that a
// reader of out sees the old entry or the new, never none; elsewhere the
// old entry is first renamed aside into stage (<name>.old). The earlier
// entries stay in stage until every move succeeded; if one fails, the
// moves done are undone in reverse order, so out holds the earlier
// outputs whole (a first run's new entries are taken out again). Errors
// name the folder and the entry, and say whether the earlier outputs were
// restored; if undoing failed too, the error says so and where the
// earlier entries are (stage: then keepStage is true, and the caller
// leaves stage for the user; the next run's cleanup removes it).
func commitOutputs(stage, out string, names []string) (keepStage bool, err error) {
	if err := writeJournal(stage, names); err != nil {
		return false, fmt.Errorf("output folder %s: %w; the earlier outputs are unchanged", out, err)
	}
	var done []move
	for _, name := range names {
		src, dst := filepath.Join(stage, name), filepath.Join(out, name)
		_, err := os.Lstat(dst)
		switch {
		case err == nil && exchange(src, dst) == nil:
			done = append(done, move{from: src, to: dst, exchanged: true})
			continue
		case err == nil:
			aside := src + ".old"
			if err := rename(dst, aside); err != nil {
				return rollback(stage, out, name, err, done)
			}
			done = append(done, move{from: dst, to: aside})
		case !errors.Is(err, fs.ErrNotExist):
			return rollback(stage, out, name, err, done)
		}
		if err := rename(src, dst); err != nil {
			return rollback(stage, out, name, err, done)
		}
		done = append(done, move{from: src, to: dst})
	}
	// Committed: a run killed from here on leaves a staging folder that
	// the next run removes without undoing anything.
	os.Remove(filepath.Join(stage, journalName))
	return false, nil
}

// journalName is the commit journal in a staging folder: JSON
// {"moves": [{"name": "runs", "inode": 1234}, ...]}, the entries
// commitOutputs moves, in order, with the inode of each new entry
// (fileutil.Inode; 0 where the platform has none). It is written (fsynced)
// before the first move and removed after the last, so a staging folder
// left with it is one whose run was killed (SIGKILL, power loss) during
// its commit, and recoverStage can tell from it which moves were made.
const journalName = ".commit.json"

// journalMove is one entry of the commit journal.
type journalMove struct {
	Name  string `json:"name"`
	Inode uint64 `json:"inode"`
}

// writeJournal writes stage's commit journal for names.
func writeJournal(stage string, names []string) error {
	var j struct {
		Moves []journalMove `json:"moves"`
	}
	for _, name := range names {
		fi, err := os.Lstat(filepath.Join(stage, name))
		if err != nil {
			return err
		}
		ino, _ := fileutil.Inode(fi)
		j.Moves = append(j.Moves, journalMove{name, ino})
	}
	b, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return fileutil.WriteAtomic(filepath.Join(stage, journalName), b)
}

// recoverStages removes the staging folders that killed runs left in out,
// after putting back, from each whose run was killed during its commit,
// the earlier outputs it had replaced (recoverStage): the folder then
// holds one run's outputs, whole. The caller holds out's lock, so no
// staging folder is a live run's. It returns how many commits it undid;
// an error names the staging folder kept.
func recoverStages(out string) (undone int, err error) {
	old, _ := filepath.Glob(filepath.Join(out, stagePrefix+"*"))
	for _, p := range old {
		undid, err := recoverStage(p, out)
		if err != nil {
			return undone, err
		}
		if undid {
			undone++
		}
		os.RemoveAll(p)
	}
	if len(old) > 0 {
		fileutil.SyncDir(out)
	}
	return undone, nil
}

// recoverOutputDir is the preflight's step of the output folder out,
// before any work (bench run and bench run --check): when a run was killed
// during its commit (SIGKILL, power loss), leaving out a mix of two runs'
// entries, the earlier outputs are put back (recoverStages), so that a run
// stopped before it writes (Ctrl-C, a failed cell) no longer leaves the
// mix, and --check says what it found. The lock is tried, not waited for:
// while another bench run holds it, its staging folder is live and nothing
// is touched (that run recovers the folder when it writes). note says
// what was done ("" when nothing); errors are recoverStage's, saying where
// the replaced outputs are, or the lock's.
func recoverOutputDir(out string) (note string, err error) {
	if old, _ := filepath.Glob(filepath.Join(out, stagePrefix+"*")); len(old) == 0 {
		return "", nil
	}
	f, err := os.Open(out)
	if err != nil {
		return "", fmt.Errorf("output folder: %w", err)
	}
	defer f.Close()
	switch err := fileutil.Flock(f, false); {
	case errors.Is(err, fileutil.ErrLocked):
		return fmt.Sprintf("output folder %s: another bench run is writing it now (its staging folder is left alone)", out), nil
	case err != nil && !errors.Is(err, fileutil.ErrNoFlock):
		return "", fmt.Errorf("output folder %s: lock: %w", out, err)
	}
	undone, err := recoverStages(out)
	if err != nil || undone == 0 {
		return "", err
	}
	return fmt.Sprintf("output folder %s: an earlier bench run was killed while moving its outputs into place, leaving the folder a mix of two runs' outputs; the outputs it was replacing were put back whole", out), nil
}

// recoverStage puts back into out the earlier outputs that a run killed
// during its commit had moved into its staging folder stage, undoing its
// moves last first, so that out holds the earlier outputs whole again
// (the killed run's are dropped with stage). A stage without a journal
// (killed before its commit, or after it) needs nothing. Each entry is in
// one of these states: not moved (stage/name is the new entry; under the
// two-rename path the earlier one may be aside as stage/name.old, out/name
// then missing), renamed in (stage/name gone; out/name the new entry, the
// earlier one in stage/name.old if there was one) or exchanged (out/name
// has the new entry's inode, stage/name the earlier entry). An error
// names stage, which the caller then keeps. undid says whether a move
// was undone (out was a mix, or missed an entry).
func recoverStage(stage, out string) (undid bool, err error) {
	b, err := os.ReadFile(filepath.Join(stage, journalName))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	var j struct {
		Moves []journalMove `json:"moves"`
	}
	if err == nil {
		err = json.Unmarshal(b, &j)
	}
	for i := len(j.Moves) - 1; i >= 0 && err == nil; i-- {
		var moved bool
		moved, err = undoJournalMove(stage, out, j.Moves[i])
		undid = undid || moved
	}
	if err != nil {
		return true, fmt.Errorf("output folder %s: an earlier bench run was killed while moving its outputs into place, and putting back the outputs it replaced failed (%w): the folder may mix two runs' outputs; the replaced ones are in %s (remove that folder to keep the folder as it is)", out, err, stage)
	}
	return undid, nil
}

// undoJournalMove undoes the move of m, if it was made (recoverStage);
// moved says whether it was.
func undoJournalMove(stage, out string, m journalMove) (moved bool, err error) {
	src, dst := filepath.Join(stage, m.Name), filepath.Join(out, m.Name)
	aside := src + ".old"
	_, serr := os.Lstat(src)
	switch {
	case errors.Is(serr, fs.ErrNotExist): // renamed in
		if err := rename(dst, src); err != nil {
			return true, err
		}
		if _, err := os.Lstat(aside); err == nil {
			return true, rename(aside, dst)
		}
		return true, nil
	case serr != nil:
		return false, serr
	}
	if fi, err := os.Lstat(dst); err == nil {
		if ino, ok := fileutil.Inode(fi); ok && m.Inode != 0 && ino == m.Inode {
			return true, exchange(src, dst) // exchanged: swap back
		}
		return false, nil // not moved
	}
	if _, err := os.Lstat(aside); err == nil { // set aside, new entry not moved in
		return true, rename(aside, dst)
	}
	return false, nil
}

// rollback undoes the moves done, last first, after moving name into out
// failed with cause, and returns the error for the user and whether stage
// still holds earlier entries that could not be put back.
func rollback(stage, out, name string, cause error, done []move) (keepStage bool, err error) {
	var failed []string // one line: errors.Join would break the message
	for i := len(done) - 1; i >= 0; i-- {
		if err := done[i].undo(); err != nil {
			failed = append(failed, err.Error())
		}
	}
	fileutil.SyncDir(out)
	if len(failed) > 0 {
		return true, fmt.Errorf("output folder %s: moving %s into place failed (%w), and restoring the earlier outputs failed too (%s): the folder may mix earlier and new outputs; what could not be put back is in %s until the next run",
			out, name, cause, strings.Join(failed, "; "), stage)
	}
	return false, fmt.Errorf("output folder %s: moving %s into place failed: %w; the earlier outputs were restored unchanged", out, name, cause)
}

// lockWaitNote is how long lockOutputDir waits silently before saying on
// stderr that another run holds the folder.
const lockWaitNote = time.Second

// lockOutputDir takes an exclusive flock(2) on the folder out itself (no
// lock file is left in it) for writeOutputs, and returns its release. While
// another bench run (process, or Run call) holds it, it waits, polling
// every 50 ms, and says so once on stderr; ctx stops the wait (its error
// is returned). So two runs writing one folder never interleave: the
// leftover-staging cleanup cannot remove a live run's staging folder, and
// the run finishing last leaves its outputs, whole. On platforms without
// flock (fileutil.ErrNoFlock) the folder is not locked. Errors: opening the
// folder, flock's own, both naming the folder; or ctx's.
func lockOutputDir(ctx context.Context, out string, stderr io.Writer) (release func(), err error) {
	f, err := os.Open(out)
	if err != nil {
		return nil, fmt.Errorf("output folder: %w", err)
	}
	start, noted := time.Now(), false
	for {
		err := fileutil.Flock(f, false)
		switch {
		case err == nil:
			return func() { f.Close() }, nil
		case errors.Is(err, fileutil.ErrNoFlock):
			f.Close()
			return func() {}, nil
		case !errors.Is(err, fileutil.ErrLocked):
			f.Close()
			return nil, fmt.Errorf("output folder %s: lock: %w", out, err)
		}
		if !noted && time.Since(start) >= lockWaitNote && stderr != nil {
			fmt.Fprintf(stderr, "bench run: output folder %s: another bench run is writing it; waiting for it to finish (its outputs will then be replaced by this run's)\n", out)
			noted = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// headlineMetrics are the history CSV's metrics: every family at prompt_k
// plus recall at the largest k.
func headlineMetrics(cfg *Config) []string {
	var out []string
	for _, f := range cfg.Metrics {
		out = append(out, config.MetricName(f, cfg.PromptK))
	}
	if maxK := cfg.K[len(cfg.K)-1]; maxK != cfg.PromptK && slices.Contains(cfg.Metrics, "recall") {
		out = append(out, config.MetricName("recall", maxK))
	}
	return out
}

func cellFile(name string) string { return strings.ReplaceAll(name, "/", "__") }

// historyRow is this run's history row: every cell's headline metrics.
func historyRow(cfg *Config, ds *dataset, res *results.Results, now time.Time) history.Row {
	row := history.Row{Time: now.UTC(), ConfigHash: cfg.Hash(), DatasetHash: ds.hash, Commit: commitText(cfg), Metrics: map[string]map[string]float64{}}
	for _, c := range res.Cells {
		m := map[string]float64{}
		for _, name := range headlineMetrics(cfg) {
			m[name] = c.Means[results.GroupAll][name]
		}
		row.Metrics[c.Name] = m
	}
	return row
}

// historyRows are the rows report.html charts: the history file's (none
// when it does not exist or cannot be read: the chart is then left out, the
// run goes on) and, when it will be appended, this run's row after them.
func historyRows(cfg *Config, row *history.Row) []history.Row {
	var rows []history.Row
	if _, err := os.Stat(cfg.History); err == nil {
		rows, _ = history.Read(cfg.History)
	}
	if row != nil {
		r := *row
		r.Run = 1
		for _, old := range rows {
			r.Run = max(r.Run, old.Run+1)
		}
		rows = append(rows, r)
	}
	return rows
}
