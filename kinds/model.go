package kinds

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/internal/fileutil"
	"github.com/ragbench/ragbench/internal/hashkey"
	"github.com/ragbench/ragbench/retrievers"
)

// ONNXModel are the model fields of the kinds that run an ONNX model
// (dense, rerank, and engine vector queries), inlined into their
// settings.
type ONNXModel struct {
	// Model is a model folder. A relative folder is looked up in the model
	// roots (config.Config.ModelRoots); after config.Load it holds the
	// absolute folder found.
	Model string `yaml:"model" json:"model,omitempty"`
	// FallbackModels are tried in order when Model is not found, e.g.
	// [use-lite] behind bge-small-en-v1.5.
	FallbackModels []string `yaml:"fallback_models" json:"fallback_models,omitempty"`
	// BatchSize is the inference batch size (default encoder's: 32).
	BatchSize int `yaml:"batch_size" json:"batch_size,omitempty" empty:"batch_size 0: must be ≥ 1; remove the line to use the default (32)"`

	// requested is Model as written in the config, kept to report a
	// fallback: a silent switch to a weaker model would mislead the reader.
	requested string
}

// Resolve records folder, the absolute folder found for Model (or for one
// of FallbackModels), keeping Model as written for Requested.
func (m *ONNXModel) Resolve(folder string) {
	m.requested = m.Model
	m.Model = folder
}

// Requested is Model as the config wrote it ("" before Resolve).
func (m *ONNXModel) Requested() string { return m.requested }

// defaultInferenceBatch is encoder's default batch size (texts or pairs
// per ONNX Runtime call) for a model of kind, the default of batch_size.
func defaultInferenceBatch(kind string) int {
	var o encoder.Options
	o.SetDefaults(kind)
	return o.BatchSize
}

// Env is what the cells of one sweep share: the cache folder, the ONNX
// models (each folder loaded once and closed by Close), the engines'
// managed indexes, and the seams tests replace.
type Env struct {
	// CacheDir is the sweep's cache folder (a subfolder per kind).
	CacheDir string
	// WrapSearch, when set (tests), builds a first stage's retriever in
	// place of build (which it may call and wrap).
	WrapSearch func(c *Cell, s Settings, build func() (retrievers.Retriever, error)) (retrievers.Retriever, error)
	// WrapRerank, when set (tests), reranks c.Inputs[0] in place of rerank
	// (which it may call): r holds one setting (r.Alpha is the setting's).
	WrapRerank func(c *Cell, r *Rerank, rerank func() (eval.Run, error)) (eval.Run, error)

	models
	engines  engineIndexes
	passages passageMemo // the run and http kinds' sources, read once (passages.go)
}

// NewEnv is the Env of a sweep caching under cacheDir, with ONNX Runtime
// from lib ("" = $ONNXRUNTIME_LIB, else the project-local default).
func NewEnv(cacheDir, lib string) *Env {
	return &Env{CacheDir: cacheDir, models: models{lib: lib, cacheDir: cacheDir, embedders: map[string]*encoder.CachedEmbedder{}, crosses: map[string]*crossScorer{}}}
}

// Close closes the models the sweep loaded.
func (e *Env) Close() { e.models.close() }

// models loads each model folder once per sweep.
type models struct {
	lib       string // ONNX Runtime library ("" = encoder's default search)
	cacheDir  string // embeddings go under embeddings/, scores under ce/
	embedders map[string]*encoder.CachedEmbedder
	crosses   map[string]*crossScorer
}

// embedder is the cached embedder of the model of the retriever name.
func (m *models) embedder(name string, mod *ONNXModel) (*encoder.CachedEmbedder, error) {
	return loadOnce(m, m.embedders, name, mod, func(opts encoder.Options) (*encoder.CachedEmbedder, error) {
		e, err := encoder.LoadEmbedder(mod.Model, opts)
		if err != nil {
			return nil, wrapName(name, err)
		}
		c, err := encoder.NewCachedEmbedder(e, filepath.Join(m.cacheDir, "embeddings"))
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("retriever %q: embedding cache: %w", name, err)
		}
		return c, nil
	})
}

// cross is the cross-encoder (with its score memo) of the retriever name.
func (m *models) cross(name string, mod *ONNXModel) (*crossScorer, error) {
	return loadOnce(m, m.crosses, name, mod, func(opts encoder.Options) (*crossScorer, error) {
		ce, err := encoder.LoadCrossEncoder(mod.Model, opts)
		if err != nil {
			return nil, wrapName(name, err)
		}
		return &crossScorer{ce: ce, memo: map[[2]string]float32{}, disk: loadCEDisk(m.cacheDir, mod.Model)}, nil
	})
}

// loadOnce is memo's model of mod's folder, else the one open makes (with
// ONNX Runtime readied, load) and memo keeps: each model folder is loaded
// once per sweep.
func loadOnce[T any](m *models, memo map[string]T, name string, mod *ONNXModel, open func(encoder.Options) (T, error)) (T, error) {
	if v, ok := memo[mod.Model]; ok {
		return v, nil
	}
	var zero T
	opts, err := m.load(name, mod)
	if err != nil {
		return zero, err
	}
	v, err := open(opts)
	if err != nil {
		return zero, err
	}
	memo[mod.Model] = v
	return v, nil
}

// load readies ONNX Runtime for a model of the retriever name (the error
// says how to install it) and returns the encoder options of mod: its
// batch size, one intra-op thread per CPU.
func (m *models) load(name string, mod *ONNXModel) (encoder.Options, error) {
	if err := encoder.Init(m.lib); err != nil {
		return encoder.Options{}, fmt.Errorf("retriever %q: %w (run ./scripts/setup.sh to install ONNX Runtime)", name, err)
	}
	return encoder.Options{BatchSize: mod.BatchSize, IntraOpThreads: runtime.NumCPU()}, nil
}

func (m *models) close() {
	for _, e := range m.embedders {
		e.Embedder().Close()
	}
	for _, c := range m.crosses {
		c.ce.Close()
	}
}

// crossScorer is a cross-encoder with an in-memory score memo, so the two
// rerank modes over the same first stage score each (query, passage) once.
type crossScorer struct {
	ce   *encoder.CrossEncoder
	mu   sync.Mutex // guards memo and disk
	memo map[[2]string]float32
	disk *ceDisk // the scores of earlier runs; nil: none
}

// score is a rerank.ScoreFunc that asks the model only for pairs it has
// not scored before in this sweep (or an earlier one, from disk).
func (c *crossScorer) score(ctx context.Context, query string, passages []string) ([]float32, error) {
	out := make([]float32, len(passages))
	var todo []int
	c.mu.Lock()
	for i, p := range passages {
		if v, ok := c.memo[[2]string{query, p}]; ok {
			out[i] = v
		} else if v, ok := c.disk.get(query, p); ok {
			out[i] = v
			c.memo[[2]string{query, p}] = v
		} else {
			todo = append(todo, i)
		}
	}
	c.mu.Unlock()
	if len(todo) == 0 {
		return out, nil
	}
	ps := make([]string, len(todo))
	for j, i := range todo {
		ps[j] = passages[i]
	}
	got, err := c.ce.Score(ctx, query, ps)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	for j, i := range todo {
		out[i] = got[j]
		c.memo[[2]string{query, passages[i]}] = got[j]
		c.disk.put(query, passages[i], got[j])
	}
	c.mu.Unlock()
	return out, nil
}

// saveScores writes c's new scores to its disk cache.
func (c *crossScorer) saveScores() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.disk.save()
}

// ceDisk is the cross-encoder score cache on disk, one file per model
// (cache_dir/ce/<FolderHash of the model>.json): sha256 of (query,
// passage) → score. It extends crossScorer's in-memory memo across runs,
// so that a rerank alpha grid tuned again (other alphas, another config
// over the same first stage) only reinterpolates: no (query, passage) is
// scored twice for one model. Scores are float32 and round-trip JSON
// exactly. A missing or unreadable file is an empty cache. Guarded by its
// crossScorer's mutex.
type ceDisk struct {
	path   string
	scores map[string]float32
	added  int // scores not yet saved
}

// loadCEDisk opens model's score cache under cacheDir (nil when the
// model folder cannot be hashed: then nothing is cached).
func loadCEDisk(cacheDir, model string) *ceDisk {
	h, err := FolderHash(model)
	if err != nil || cacheDir == "" {
		return nil
	}
	d := &ceDisk{path: filepath.Join(cacheDir, "ce", h+".json"), scores: map[string]float32{}}
	if data, err := os.ReadFile(d.path); err == nil {
		if json.Unmarshal(data, &d.scores) != nil {
			d.scores = map[string]float32{}
		}
	}
	return d
}

func ceKey(query, passage string) string {
	s := sha256.Sum256([]byte(strconv.Itoa(len(query)) + ":" + query + passage))
	return hex.EncodeToString(s[:])
}

func (d *ceDisk) get(query, passage string) (float32, bool) {
	if d == nil {
		return 0, false
	}
	v, ok := d.scores[ceKey(query, passage)]
	return v, ok
}

func (d *ceDisk) put(query, passage string, v float32) {
	if d != nil {
		d.scores[ceKey(query, passage)] = v
		d.added++
	}
}

// save writes the cache when it has new scores.
func (d *ceDisk) save() error {
	if d == nil || d.added == 0 {
		return nil
	}
	if err := fileutil.WriteAtomic(d.path, hashkey.JSON(d.scores)); err != nil {
		return err
	}
	d.added = 0
	return nil
}

// FileSum is one regular file of a folder with its sha256 (hex) and size.
type FileSum struct {
	Path   string
	SHA256 string
	Bytes  int64
}

// HashFolder hashes every regular file of dir (not below it), sorted by
// name. Errors: reading the folder or a file.
func HashFolder(dir string) ([]FileSum, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []FileSum
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		h, err := fileutil.SHA256(p)
		if err != nil {
			return nil, err
		}
		info, _ := e.Info()
		out = append(out, FileSum{Path: p, SHA256: h, Bytes: info.Size()})
	}
	return out, nil
}

// FolderHash is a sha256 (hex) over the sha256 of every regular file in
// dir (HashFolder), so any change to a model or tokenizer changes it.
func FolderHash(dir string) (string, error) {
	files, err := HashFolder(dir)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, f := range files {
		b.WriteString(f.Path + " " + f.SHA256 + "\n")
	}
	return hashkey.Hex([]byte(b.String())), nil
}
