package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/ragbench/ragbench/diagnose"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/fileutil"
)

// Threshold is a cell's abstention analysis (diagnose.Threshold at
// prompt_k): top-1 score quantiles of answerable and unanswerable queries
// and the suggested threshold with its trade-off. Quantiles are null when a
// group has no scored query.
type Threshold struct {
	Answerable   ScoreQuantiles `json:"answerable"`
	Unanswerable ScoreQuantiles `json:"unanswerable"`
	// Suggested is the threshold maximising Youden's J (null when there is
	// no trade-off to make).
	Suggested *ThresholdChoice `json:"suggested"`
	Warnings  []string         `json:"warnings,omitempty"`
}

// ScoreQuantiles summarises top-1 scores of a group of queries.
type ScoreQuantiles struct {
	Queries int      `json:"queries"`
	Scored  int      `json:"scored"`
	Min     *float64 `json:"min"`
	Median  *float64 `json:"median"`
	Max     *float64 `json:"max"`
}

// ThresholdChoice is one abstention threshold and its effect: shares in
// [0, 1] of unanswerable queries that would correctly return nothing and of
// answerable queries that would lose a gold doc from the top prompt_k.
type ThresholdChoice struct {
	Threshold             float64 `json:"threshold"`
	UnanswerableAbstained float64 `json:"unanswerable_abstained"`
	AnswerableLostGold    float64 `json:"answerable_lost_gold"`
}

func quantiles(s diagnose.ScoreSummary) ScoreQuantiles {
	f := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return ScoreQuantiles{Queries: s.Queries, Scored: s.Scored, Min: f(s.Min), Median: f(s.Median), Max: f(s.Max)}
}

func thresholdAnalysis(cfg *Config, ds *dataset, run eval.Run) *Threshold {
	q := diagnose.WithQueries(ds.qrels, ds.unanswer)
	rep, err := diagnose.Threshold(run, q, diagnose.ThresholdOptions{Depth: cfg.PromptK})
	if err != nil {
		return &Threshold{Warnings: []string{err.Error()}}
	}
	t := &Threshold{Answerable: quantiles(rep.Answerable), Unanswerable: quantiles(rep.Unanswerable), Warnings: rep.Warnings}
	if s := rep.Suggested; s != nil {
		t.Suggested = &ThresholdChoice{Threshold: s.Threshold, UnanswerableAbstained: s.UnanswerableAbstained, AnswerableLostGold: s.AnswerableLostGold}
	}
	return t
}

// ProgressMode is how Run reports progress on Options.Stderr. Progress is
// never part of the outputs: every mode gives the same files.
type ProgressMode int

const (
	// ProgressNone writes nothing.
	ProgressNone ProgressMode = iota
	// ProgressBar is for a terminal: one progressbar/v3 bar per stage of a
	// cell (chunk, index or embed, search, fuse, rerank, score), with its
	// own count and unit, redrawn in place with carriage returns and
	// cleared when the stage ends; then one line per finished cell.
	ProgressBar
	// ProgressPlain is for logs (CI, "2> log"): one line when a stage
	// starts and one when it ends, with its count, unit and wall time; no
	// carriage returns or escape codes.
	ProgressPlain
)

// String is the mode's --progress name: "none", "bar" or "plain".
func (m ProgressMode) String() string {
	switch m {
	case ProgressBar:
		return "bar"
	case ProgressPlain:
		return "plain"
	}
	return "none"
}

// ParseProgressMode reads "none", "bar" or "plain" (the --progress values
// left once "auto" has been resolved); anything else is an error.
func ParseProgressMode(s string) (ProgressMode, error) {
	switch s {
	case "none":
		return ProgressNone, nil
	case "bar":
		return ProgressBar, nil
	case "plain":
		return ProgressPlain, nil
	}
	return ProgressNone, fmt.Errorf("progress mode %q: want none, bar or plain", s)
}

// progress reports the sweep's stages on a writer (see ProgressMode). One
// stage runs at a time; set may be called from several goroutines.
type progress struct {
	mode ProgressMode
	w    io.Writer
	now  func() time.Time

	mu      sync.Mutex
	scope   string // "[3/15] fixed-128o32/dense", "chunking doc", ...
	stage   string // "embed", "search", ...
	unit    string // "chunks", "queries", ...
	total   int
	done    int
	updated bool // set was called during the stage
	start   time.Time
	active  bool
	pb      *progressbar.ProgressBar
}

func newProgress(mode ProgressMode, w io.Writer, now func() time.Time) *progress {
	if w == nil {
		mode = ProgressNone
	}
	if now == nil {
		now = time.Now
	}
	return &progress{mode: mode, w: w, now: now}
}

// what is "<stage> <total> <unit>", e.g. "embed 12,345 chunks" (unit in
// the singular for a total of 1: "1 query", "1 paired comparison").
func (p *progress) what() string {
	if p.unit == "" {
		return p.stage
	}
	unit := p.unit
	if p.total == 1 {
		if u, ok := strings.CutSuffix(unit, "ies"); ok {
			unit = u + "y"
		} else {
			unit = strings.TrimSuffix(unit, "s")
		}
	}
	return p.stage + " " + groupDigits(p.total) + " " + unit
}

// begin starts a stage of scope with total items of unit.
func (p *progress) begin(scope, stage string, total int, unit string) {
	if p.mode == ProgressNone {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeBar()
	p.scope, p.stage, p.unit, p.total, p.done, p.updated, p.active = scope, stage, unit, total, 0, false, true
	p.start = p.now()
	switch p.mode {
	case ProgressPlain:
		fmt.Fprintf(p.w, "bench run: %s: %s …\n", p.scope, p.what())
	case ProgressBar:
		p.pb = progressbar.NewOptions(max(total, 1),
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.scope+": "+p.stage),
			progressbar.OptionSetWidth(24),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(firstNonEmpty(unit, "it")),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetRenderBlankState(true),
			progressbar.OptionClearOnFinish(),
		)
	}
}

// set records that done of the stage's items are finished; a total > 0
// replaces the stage's total (the backend's own count).
func (p *progress) set(done, total int) {
	if p.mode == ProgressNone {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.active {
		return
	}
	p.updated = true
	if total > 0 && total != p.total {
		p.total = total
		if p.pb != nil {
			p.pb.ChangeMax(total)
		}
	}
	p.done = done
	if p.pb != nil && done <= p.total {
		p.pb.Set(done)
	}
}

// end ends the current stage: the bar is cleared, or the plain line
// "<scope>: <what> done in <duration>[; note]" is written.
func (p *progress) end(note string) {
	if p.mode == ProgressNone {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.active {
		return
	}
	p.active = false
	d := p.now().Sub(p.start)
	if p.closeBar(); p.mode == ProgressPlain {
		if note != "" {
			note = "; " + note
		}
		fmt.Fprintf(p.w, "bench run: %s: %s done in %s%s\n", p.scope, p.what(), formatDuration(d), note)
	}
}

// line writes one finished-event line ("bench run: <scope>: <msg>") in
// either mode.
func (p *progress) line(scope, msg string) {
	if p.mode == ProgressNone {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeBar()
	fmt.Fprintf(p.w, "bench run: %s: %s\n", scope, msg)
}

// updatedStage reports whether set was called since the stage began.
func (p *progress) updatedStage() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.updated
}

// abort clears a bar left by a failed or cancelled stage (no line: the
// caller reports the error).
func (p *progress) abort() {
	if p.mode == ProgressNone {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active = false
	p.closeBar()
}

// closeBar clears and drops the current bar (p.mu held).
func (p *progress) closeBar() {
	if p.pb == nil {
		return
	}
	p.pb.Clear()
	p.pb.Exit()
	p.pb = nil
}

// groupDigits writes n with commas between groups of three digits
// (12345 → "12,345").
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// formatDuration is a wall time for a progress line: "0.42s" under a
// minute, else "1m02s" or "1h02m03s" (whole seconds).
func formatDuration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
	s := int64(d.Round(time.Second) / time.Second)
	if s < 3600 {
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm%02ds", s/3600, s/60%60, s%60)
}

// stageProgress is the backend's typed progress callback (buildEnv.progress)
// for p: done of total items of stage ("embed", "rerank") move the bar of
// the stage p shows; a count for another stage, or a negative one, is
// ignored.
func (p *progress) stageProgress(stage string, done, total int) {
	p.mu.Lock()
	current := p.active && p.stage == stage
	p.mu.Unlock()
	if current && done >= 0 && total >= 0 {
		p.set(done, total)
	}
}

// ResultsJSON is results.json: indented JSON of res, ending in a newline.
func ResultsJSON(res *Results) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		panic(fmt.Sprintf("sweep: results.json: %v", err)) // NaN-free by construction
	}
	return buf.Bytes()
}

// headlineMetrics are the history CSV's metrics: every family at prompt_k
// plus recall at the largest k.
func headlineMetrics(cfg *Config) []string {
	var out []string
	for _, f := range cfg.Metrics {
		out = append(out, metricName(f, cfg.PromptK))
	}
	if maxK := cfg.K[len(cfg.K)-1]; maxK != cfg.PromptK && contains(cfg.Metrics, "recall") {
		out = append(out, metricName("recall", maxK))
	}
	return out
}

func cellFile(name string) string { return strings.ReplaceAll(name, "/", "__") }

// Miss is one misses.jsonl row: an answerable query whose gold ids are not
// all in a cell's top prompt_k, with what came back instead.
type Miss struct {
	Cell     string   `json:"cell"`
	QueryID  string   `json:"query_id"`
	Query    string   `json:"query"`
	Slice    string   `json:"slice,omitempty"`
	HeldOut  bool     `json:"held_out"`
	K        int      `json:"k"`
	Missing  []Gold   `json:"missing"`
	Returned []Hit    `json:"returned"`
	Found    []string `json:"found,omitempty"` // gold ids that were in the top k
}

// Gold is a relevant id missing from the top k, with its rank further down
// (0 when not retrieved at all within the run's depth).
type Gold struct {
	ID      string `json:"id"`
	Grade   int    `json:"grade"`
	Rank    int    `json:"rank"`
	Snippet string `json:"snippet"`
}

func missesJSONL(cfg *Config, ds *dataset, res *Results) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, c := range res.Cells {
		for _, id := range ds.answerable {
			l := append([]eval.Result(nil), c.run[id]...)
			sortResults(l)
			rank := map[string]int{}
			for i, r := range l {
				rank[r.DocID] = i + 1
			}
			m := Miss{Cell: c.Name, QueryID: id, Query: ds.text[id], Slice: ds.slice[id], HeldOut: ds.heldout[id], K: cfg.PromptK, Returned: []Hit{}}
			golds := sortedKeys(ds.qrels[id])
			for _, g := range golds {
				grade := ds.qrels[id][g]
				if grade < 1 {
					continue
				}
				if r := rank[g]; r >= 1 && r <= cfg.PromptK {
					m.Found = append(m.Found, g)
					continue
				}
				m.Missing = append(m.Missing, Gold{ID: g, Grade: grade, Rank: rank[g], Snippet: ds.snippet(g, cfg.Snippet, nil, nil)})
			}
			if len(m.Missing) == 0 {
				continue
			}
			for i, r := range l {
				if i == cfg.PromptK {
					break
				}
				m.Returned = append(m.Returned, Hit{Rank: i + 1, ID: r.DocID, Score: r.Score, Relevant: ds.qrels[id][r.DocID] >= 1, Snippet: ds.snippet(r.DocID, cfg.Snippet, nil, nil)})
			}
			enc.Encode(m)
		}
	}
	return buf.Bytes()
}

// Manifest is manifest.json: what a run read and what ran it.
type Manifest struct {
	Tool      string            `json:"tool"`
	GoVersion string            `json:"go_version"`
	Platform  string            `json:"platform"`
	GitCommit string            `json:"git_commit,omitempty"`
	GitDirty  bool              `json:"git_dirty,omitempty"`
	Modules   map[string]string `json:"modules"`
	Seed      int64             `json:"seed"`
	HeldOut   HeldOutConfig     `json:"heldout"`
	Config    *Config           `json:"config"`
	ConfigSHA string            `json:"config_sha256"`
	ConfigRaw string            `json:"config_file"`
	DataDir   string            `json:"data_dir"`
	ModelsDir string            `json:"models_dir"`
	Dataset   string            `json:"dataset_sha256"`
	Files     []FileHash        `json:"files"`
}

func manifest(cfg *Config, ds *dataset) ([]byte, error) {
	m := Manifest{Tool: "ragbench", GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		Modules: map[string]string{}, Seed: *cfg.Significance.Seed, HeldOut: cfg.HeldOut, Config: cfg,
		ConfigSHA: cfg.Hash(), ConfigRaw: cfg.path, DataDir: cfg.dataDir, ModelsDir: cfg.modelsDir, Dataset: ds.hash}
	if bi, ok := debug.ReadBuildInfo(); ok {
		m.Tool = bi.Main.Path + "@" + bi.Main.Version
		for _, d := range bi.Deps {
			v := d.Version
			if d.Replace != nil {
				v += " => " + d.Replace.Path + "@" + d.Replace.Version
			}
			m.Modules[d.Path] = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				m.GitCommit = s.Value
			case "vcs.modified":
				m.GitDirty = s.Value == "true"
			}
		}
	}
	if m.GitCommit == "" {
		m.GitCommit, m.GitDirty = gitCommit(filepath.Dir(cfg.path))
	}
	for _, role := range []string{"corpus", "queries", "qrels"} {
		p := ds.files[role]
		if p == "" {
			continue
		}
		h, err := fileutil.SHA256(p)
		if err != nil {
			return nil, err
		}
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		m.Files = append(m.Files, FileHash{Role: role, Path: p, SHA256: h, Bytes: info.Size()})
	}
	seen := map[string]bool{}
	for _, rc := range cfg.Retrievers {
		if rc.Model == "" || seen[rc.Model] {
			continue
		}
		seen[rc.Model] = true
		files, err := hashFolder(rc.Model)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			f.Role = "model " + rc.Name
			if filepath.Base(f.Path) == "tokenizer.json" {
				f.Role = "tokenizer " + rc.Name
			}
			m.Files = append(m.Files, f)
		}
	}
	sort.SliceStable(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// gitCommit returns HEAD's commit and whether the tree has changes, when dir
// is inside a git checkout ("" otherwise).
func gitCommit(dir string) (string, bool) {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	st, _ := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output()
	return strings.TrimSpace(string(out)), len(bytes.TrimSpace(st)) > 0
}
