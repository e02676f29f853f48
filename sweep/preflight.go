package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/ragbench/ragbench/config"
	"github.com/ragbench/ragbench/results"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/history"
	"github.com/ragbench/ragbench/internal/modellist"
	"github.com/ragbench/ragbench/kinds"
)

// This file is the one preflight of bench run: Check runs, before any
// work, every check the run makes before its first cell; Run calls it,
// and bench run --check prints its report. The steps, in order: Validate
// (the files the config names, its models and their kinds, the engines'
// credential variables and CA files), CheckWritable (output, cache and
// history), ONNX Runtime loaded for the retrievers that need it
// (kinds.Settings.NeedsRuntime), the dataset loaded and checked (corpus,
// queries, qrels or span labels, gold ids, slices, chunk labels recorded
// for another chunking), the label rule of every chunking
// (chunkingLevel; Run applies it as it chunks each), and last, for
// --check only, each engine connection dialled. Right after CheckWritable,
// an output folder a killed run left mixed is put back whole
// (recoverOutputDir: the one step that changes anything, and only what a
// run would change first).

// CheckOptions are the settings of Check besides the config.
type CheckOptions struct {
	// History says whether the run appends a row to the history CSV: its
	// folder must be writable and an existing file must parse.
	History bool
	// ONNXRuntime is the ONNX Runtime library of the retrievers that run
	// a model ("" = $ONNXRUNTIME_LIB, else the project-local default).
	ONNXRuntime string
	// Offline: the credential variables need not be set (they are read
	// only to dial; bench run --check --offline, whose job has no
	// secrets).
	Offline bool
	// Chunkings chunks every chunking of the grid and applies the label
	// rule to each (chunkingLevel), as bench run --check does; Run
	// applies it to each chunking as it chunks it.
	Chunkings bool
}

// CheckReport is what Check found, for bench run --check to print.
type CheckReport struct {
	// Dataset is the dataset's summary (Level: "chunk" when some chunking
	// has chunk-level qrels; set only with CheckOptions.Chunkings).
	Dataset results.DatasetSummary
	// Warnings are the config's and the dataset's warnings, as report.md
	// will print them (model fallbacks first).
	Warnings []string
	// Recovered says what the preflight put back in the output folder: the
	// outputs a run killed during its commit was replacing ("" when
	// nothing; see recoverOutputDir).
	Recovered string

	ds    *dataset // the loaded dataset, for Run
	warns []string // the warnings of reading the dataset (loadDataset), for Run
}

// Check runs the preflight of cfg (see the top of this file) and stops at
// the first step that fails, with its errors (each naming the config's
// file and line, or the data file's); the report is nil then.
func Check(ctx context.Context, cfg *Config, opts CheckOptions) (*CheckReport, error) {
	return check(ctx, cfg, opts, defaultBackend())
}

func check(ctx context.Context, cfg *Config, opts CheckOptions, be backend) (*CheckReport, error) {
	if err := Validate(cfg, opts.Offline); err != nil {
		return nil, err
	}
	if err := CheckWritable(cfg, opts.History); err != nil {
		return nil, err
	}
	recovered, err := recoverOutputDir(cfg.Output)
	if err != nil {
		return nil, err
	}
	if err := checkRuntime(cfg, opts.ONNXRuntime); err != nil {
		return nil, err
	}
	ds, warns, err := loadDatasetTexts(cfg, be, true)
	if err != nil {
		return nil, err
	}
	rep := &CheckReport{Recovered: recovered, ds: ds, warns: warns}
	var sw []string
	rep.Dataset, sw = ds.summary(cfg)
	rep.Warnings = append(append(cfg.FallbackWarnings(), warns...), sw...)
	if err := checkChunkLabels(cfg, ds); err != nil {
		return nil, err
	}
	if !opts.Chunkings {
		return rep, nil
	}
	for _, ch := range cfg.Chunkings() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		chunks, err := ds.chunk(ctx, ch)
		if err != nil {
			return nil, fmt.Errorf("chunking %s: %w", ch.Name, err)
		}
		level, err := ds.chunkingLevel(ch, chunks)
		if err != nil {
			return nil, err
		}
		if level == corpus.ChunkLevel || rep.Dataset.Level == "" {
			rep.Dataset.Level = level.String()
		}
	}
	return rep, nil
}

// chunkingLevel is the one label rule of a chunking: the level of the
// qrels under ch over its chunks — chunk-level when the labels are spans
// (each chunking derives its chunk judgements from them) or chunk ids of
// ch, document-level otherwise — and an error when chunk-id labels name
// chunks that ch does not make (corpus.CheckLabelsFile).
func (ds *dataset) chunkingLevel(ch config.Chunking, chunks corpus.Chunks) (corpus.Level, error) {
	level, err := corpus.CheckLabelsFile(ds.judged, ds.qrels, ds.docs, ch.Spec(), chunks)
	if err != nil {
		return 0, fmt.Errorf("chunking %s: %w", ch.Name, err)
	}
	if ds.spanQueries != nil {
		level = corpus.ChunkLevel // judgements derived per chunking
	}
	return level, nil
}

// checkRuntime loads the ONNX Runtime library lib (encoder.Init: found,
// loadable, recent enough) when a retriever needs it
// (kinds.Settings.NeedsRuntime); the error names the first such
// retriever.
func checkRuntime(cfg *Config, lib string) error {
	for _, r := range cfg.Retrievers {
		if r.Settings.NeedsRuntime() {
			if err := encoder.Init(lib); err != nil {
				return runtimeErr(r.Name, err)
			}
			return nil
		}
	}
	return nil
}

// runtimeErr is the error of a retriever that needs ONNX Runtime when the
// library is missing or does not load.
func runtimeErr(name string, err error) error {
	return fmt.Errorf("retriever %q needs ONNX Runtime: %w; run ./scripts/setup.sh (it installs the library) or pass --onnxruntime", name, err)
}

// Validate checks, before any work, that every file the sweep reads
// exists: the dataset files and each model folder's model.onnx and
// tokenizer.json, and that each model is of the kind its retriever needs
// (kinds.Modeled: an embedder for dense, a cross-encoder for rerank; read
// from ragbench.json "kind", else inferred from the graph's outputs as the
// encoder package does, without ONNX Runtime); and each kind's own
// preflight (kinds.Preflighter: the engines' credential variables, unless
// offline, and CA files). It does not read the dataset. Each problem is
// reported with what to do about it; a missing model names every model
// root searched.
func Validate(c *Config, offline bool) error {
	errs := []error{ValidateDataset(c, true)}
	for i, r := range c.Retrievers {
		if m, ok := r.Settings.(kinds.Modeled); ok && m.ModelRef().Model != "" {
			errs = append(errs, checkModel(c, i, r.Name, m)...)
		}
	}
	errs = append(errs, checkPassageInputs(c)...)
	for i, r := range c.Retrievers {
		if p, ok := r.Settings.(kinds.Preflighter); ok {
			for _, fe := range p.Preflight(r.Name, !offline) {
				errs = append(errs, c.Errf(fmt.Sprintf("retrievers.%d.%s", i, fe.Key), "%s", fe.Msg))
			}
		}
	}
	return errors.Join(errs...)
}

// ValidateDataset checks that the dataset files of c exist (the BEIR
// folder and its corpus, queries and qrels split, else the corpus and the
// queries and qrels files named), each missing one with the hint to pass
// --data-dir: the data-root check of every command that reads a config's
// dataset (bench run through Validate, bench labels, bench label), so
// they resolve and explain the same way. Without queries, a missing
// queries file is no error (bench label writes the labels file it names).
func ValidateDataset(c *Config, queries bool) error {
	var errs []error
	need := func(field, p, what string) {
		if _, err := os.Stat(p); err != nil {
			errs = append(errs, c.Errf(field, "%s %s not found; %s", what, p, hintData))
		}
	}
	d := c.Dataset
	if d.BEIR != "" {
		need("dataset.beir", d.BEIR, "BEIR folder")
		if _, err := os.Stat(d.BEIR); err == nil {
			need("dataset.beir", filepath.Join(d.BEIR, "corpus.jsonl"), "corpus")
			need("dataset.beir", filepath.Join(d.BEIR, "queries.jsonl"), "queries")
			if p := filepath.Join(d.BEIR, "qrels", d.Split+".tsv"); !exists(p) {
				errs = append(errs, c.Errf("dataset.split", "qrels split %s: %s not found in the BEIR folder %s, which %s", d.Split, p, d.BEIR, beirSplits(d.BEIR)))
			}
		}
	} else {
		need("dataset.corpus", d.Corpus, "corpus")
		if d.Queries != "" && queries {
			need("dataset.queries", d.Queries, "queries")
		}
		if d.Qrels != "" {
			need("dataset.qrels", d.Qrels, "qrels")
		}
	}
	return errors.Join(errs...)
}

// beirSplits says which qrels splits the BEIR folder dir has (its
// qrels/*.tsv), for the error of a split it lacks: the folder was found,
// so the hint is the split, not --data-dir.
func beirSplits(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "qrels", "*.tsv"))
	if len(files) == 0 {
		return "has no qrels/*.tsv"
	}
	splits := make([]string, len(files))
	for i, f := range files {
		splits[i] = strings.TrimSuffix(filepath.Base(f), ".tsv")
	}
	return "has the splits " + strings.Join(splits, ", ") + ": set dataset.split to one of them"
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

const hintData = "pass --data-dir (or set RAGBENCH_DATA_DIR) to the folder holding the datasets, or fix the path in the config"

// checkModel checks the model folder of retriever i (named name): found,
// complete (model.onnx, tokenizer.json), and of the kind m needs.
func checkModel(c *Config, i int, name string, m kinds.Modeled) []error {
	ref := m.ModelRef()
	f := fmt.Sprintf("retrievers.%d.model", i)
	if _, err := os.Stat(ref.Model); err != nil {
		names := append([]string{filepath.Base(ref.Model)}, ref.FallbackModels...)
		return []error{c.Errf(f, "retriever %q: model folder %s not found (searched %s); %s", name, strings.Join(names, ", "), strings.Join(c.ModelRoots(), ", "), modelHints(c, names))}
	}
	var errs []error
	for _, file := range []string{"model.onnx", "tokenizer.json"} {
		if _, err := os.Stat(filepath.Join(ref.Model, file)); err != nil {
			errs = append(errs, c.Errf(f, "retriever %q: %s has no %s; a model folder needs model.onnx and tokenizer.json (check it with: bench model check %s)", name, ref.Model, file, ref.Model))
		}
	}
	if len(errs) == 0 {
		if err := checkModelKind(name, c.Retrievers[i].Type, ref.Model, m.ModelKind()); err != nil {
			errs = append(errs, c.Errf(f, "%v", err))
		}
	}
	return errs
}

// modelHints says what provides each wanted model: scripts/fetch-models.sh
// (run by setup.sh) fetches modellist.Fetched() into the checkout's
// models/; use-lite and ce-scifact-tiny come with the shared data's
// models/; anything else (bge-small-en-v1.5, ms-marco-MiniLM-L-6-v2, …)
// must be brought from Hugging Face. Last, --models-dir, which adds a root.
func modelHints(c *Config, names []string) string {
	var fetched, shared, other []string
	for _, n := range names {
		switch base := filepath.Base(n); {
		case slices.Contains(modellist.Fetched(), base):
			fetched = append(fetched, n)
		case base == "use-lite" || base == "ce-scifact-tiny":
			shared = append(shared, n)
		default:
			other = append(other, n)
		}
	}
	var hints []string
	if len(fetched) > 0 {
		hints = append(hints, fmt.Sprintf("run ./scripts/setup.sh (scripts/fetch-models.sh fetches %s into the repository's models/)", strings.Join(fetched, ", ")))
	}
	if len(shared) > 0 {
		where := fmt.Sprintf("the data root %s has no such models/ folder", c.DataDir())
		if !c.DataRootNamed() {
			where = fmt.Sprintf("no shared data was found (the data root is the config's folder %s)", c.DataDir())
		}
		hints = append(hints, fmt.Sprintf("%s ships in the shared data's models/, and %s: pass --data-dir (or set RAGBENCH_DATA_DIR) to the shared data, or --models-dir to its models/ folder", strings.Join(shared, ", "), where))
	}
	if len(other) > 0 {
		hints = append(hints, fmt.Sprintf("no script fetches %s: export it from Hugging Face into a folder of a model root (model.onnx, tokenizer.json; see docs/models.md)", strings.Join(other, ", ")))
	}
	hints = append(hints, "or pass --models-dir (or set RAGBENCH_MODELS_DIR) to the folder holding it (a root searched first; the others are still searched)")
	return strings.Join(hints, "; ")
}

// checkModelKind checks that the model folder of the retriever name (of
// type typ) holds the kind of model want.
func checkModelKind(name, typ, model, want string) error {
	kind, how, err := encoder.FolderKind(model)
	if err != nil {
		return fmt.Errorf("retriever %q: %w", name, err)
	}
	if kind == want {
		return nil
	}
	return fmt.Errorf("retriever %q: type %s needs %s model, but %s is %s (%s); use %s model folder, or set \"kind\" in its %s if that is wrong (check it with: bench model check %s)",
		name, typ, article(want), model, article(kind), how, article(want), encoder.ConfigFile, model)
}

// article is "an embedder" or "a cross-encoder".
func article(kind string) string {
	if kind == encoder.KindEmbedder {
		return "an " + kind
	}
	return "a " + kind
}

// CheckWritable checks, before any work, that the output folder can be
// created and written (a probe file is created and removed) and, when
// withHistory is true, that the history CSV's folder can be written and an
// existing history file opened for appending and parsed (history.Read).
// Folders it had to create are removed again, so a failed or check-only
// run leaves nothing behind.
// The cache folder is checked the same way, and an existing non-empty
// output folder must be an earlier bench run's (checkOutputDir), so
// --check and the run refuse the same folders. Errors name the config
// field, the path and what to do.
func CheckWritable(c *Config, withHistory bool) error {
	var errs []error
	probe := func(field, dir, what string) {
		if err := probeDir(dir); err != nil {
			errs = append(errs, c.Errf(field, "%s %s is not writable: %v; choose another folder (%s)", what, dir, err, writableHint[field]))
		}
	}
	probe("output", c.Output, "output folder")
	if len(errs) == 0 {
		if err := checkOutputDir(c.Output); err != nil {
			errs = append(errs, err) // a foreign non-empty folder
		}
	}
	probe("cache_dir", c.CacheDir, "cache folder")
	if withHistory {
		probe("history", filepath.Dir(c.History), "history CSV's folder")
		if fi, err := os.Stat(c.History); err == nil {
			if fi.IsDir() {
				errs = append(errs, c.Errf("history", "history CSV %s is a folder; name a file (%s)", c.History, writableHint["history"]))
			} else if f, err := os.OpenFile(c.History, os.O_WRONLY|os.O_APPEND, 0); err != nil {
				errs = append(errs, c.Errf("history", "history CSV %s cannot be appended to: %v (%s)", c.History, err, writableHint["history"]))
			} else {
				f.Close()
				// Parsed now, not when the row is appended after every
				// cell ran: a damaged file stops the run before any work.
				if _, err := history.Read(c.History); err != nil {
					errs = append(errs, fmt.Errorf("%w (fix or move the file, or run with --no-history)", err))
				}
			}
		}
	}
	return errors.Join(errs...)
}

var writableHint = map[string]string{
	"output":    "--output, or output in the config",
	"cache_dir": "--cache-dir, cache_dir in the config, or $RAGBENCH_CACHE_DIR",
	"history":   "--history, history in the config, or --no-history",
}

// probeDir creates dir (and missing parents), writes and removes a probe
// file in it, then removes the folders it created. A dangling symbolic
// link on the way is an error naming it (and is left alone).
func probeDir(dir string) error {
	var created []string
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is a file, not a folder", d)
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return unwrapPath(err)
		}
		// A symbolic link to nothing: MkdirAll would fail on it ("file
		// exists") and the cleanup below would remove the user's link.
		if target, lerr := os.Readlink(d); lerr == nil {
			return fmt.Errorf("%s is a symbolic link to %s, which does not exist", d, target)
		}
		created = append(created, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	defer func() {
		for _, d := range created { // deepest first; only empty folders go
			os.Remove(d)
		}
	}()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return unwrapPath(err)
	}
	f, err := os.CreateTemp(dir, ".bench-probe-*")
	if err != nil {
		return unwrapPath(err)
	}
	name := f.Name()
	_, werr := f.Write([]byte("probe\n"))
	cerr := f.Close()
	os.Remove(name)
	return errors.Join(unwrapPath(werr), unwrapPath(cerr))
}

// unwrapPath drops the *PathError's path, which the caller names already.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
