package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/schollz/progressbar/v3"

	"github.com/ragbench/ragbench/diagnose"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/history"
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

// bar is a progress bar on stderr, or nothing when progress is off.
type bar struct{ pb *progressbar.ProgressBar }

func newBar(opts Options, total int, desc string) *bar {
	if !opts.Progress || total <= 0 {
		return &bar{}
	}
	return &bar{pb: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(opts.Stderr),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)}
}

func (b *bar) describe(s string) {
	if b.pb != nil {
		b.pb.Describe(s)
	}
}

func (b *bar) add() {
	if b.pb != nil {
		b.pb.Add(1)
	}
}

func (b *bar) finish() {
	if b.pb != nil {
		b.pb.Finish()
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

// writeOutputs writes report.md, results.json, runs/<cell>.trec,
// misses.jsonl and manifest.json into cfg.Output, each atomically, then
// appends the history row.
func writeOutputs(cfg *Config, ds *dataset, res *Results, opts Options) error {
	out := cfg.Output
	if err := os.MkdirAll(filepath.Join(out, "runs"), 0o755); err != nil {
		return err
	}
	for i, c := range res.Cells {
		var buf bytes.Buffer
		if err := writeRunTREC(&buf, c.run, strings.ReplaceAll(c.Name, "/", "__"), ds.sortedIDs()); err != nil {
			return err
		}
		if err := fileutil.WriteAtomic(filepath.Join(out, "runs", cellFile(res.Cells[i].Name)+".trec"), buf.Bytes()); err != nil {
			return err
		}
	}
	if err := fileutil.WriteAtomic(filepath.Join(out, "misses.jsonl"), missesJSONL(cfg, ds, res)); err != nil {
		return err
	}
	if err := fileutil.WriteAtomic(filepath.Join(out, "results.json"), ResultsJSON(res)); err != nil {
		return err
	}
	if err := fileutil.WriteAtomic(filepath.Join(out, "report.md"), []byte(Report(res))); err != nil {
		return err
	}
	man, err := manifest(cfg, ds)
	if err != nil {
		return err
	}
	if err := fileutil.WriteAtomic(filepath.Join(out, "manifest.json"), man); err != nil {
		return err
	}
	if opts.NoHistory {
		return nil
	}
	row := history.Row{Time: opts.Now().UTC(), ConfigHash: cfg.Hash(), DatasetHash: ds.hash, Metrics: map[string]map[string]float64{}}
	for _, c := range res.Cells {
		m := map[string]float64{}
		for _, name := range headlineMetrics(cfg) {
			m[name] = c.Means[GroupAll][name]
		}
		row.Metrics[c.Name] = m
	}
	if err := history.Append(cfg.History, row); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
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

// writeRunTREC writes run in TREC format (qid Q0 docid rank score tag), one
// query after another in ids order, each in rank order.
func writeRunTREC(w *bytes.Buffer, run eval.Run, tag string, ids []string) error {
	for _, q := range ids {
		l := append([]eval.Result(nil), run[q]...)
		sortResults(l)
		for i, r := range l {
			fmt.Fprintf(w, "%s Q0 %s %d %s %s\n", q, r.DocID, i+1, formatScore(r.Score), tag)
		}
	}
	return nil
}

func formatScore(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

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
			sortTrec(l)
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
