package encoder

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	ort "github.com/yalue/onnxruntime_go"
)

// Options are run-time settings that do not change a model's numbers
// (beyond float rounding from batch composition), so they are not part of
// its Fingerprint. The zero value is valid: SetDefaults fills it.
type Options struct {
	// BatchSize is the number of texts (or pairs) per Run, ≥ 1; texts are
	// ordered by token length and each batch is padded to its longest.
	// 0 means the kind's default: DefaultEmbedderBatchSize (1) or
	// DefaultCrossEncoderBatchSize (8). A graph that quantizes activations
	// dynamically always runs at batch 1 (see Warnings).
	BatchSize int
	// IntraOpThreads is ONNX Runtime's intra-op thread count, ≥ 1.
	// Default 1, the rule for the library and 'bench model': one thread
	// does the most work per CPU-second, and on a machine whose cores are
	// busy a second thread mostly waits for one. Measured end to end on
	// 200 SciFact abstracts / pairs (docs/benchmarks/encoder.md,
	// "Intra-op threads"), 2 threads took 1.7–2.6× the CPU seconds of 1
	// and more wall time at load average 14–18 on 2 cores. The sweep asks
	// for runtime.NumCPU() instead (sweep/backend.go): it is one process
	// meant to own an idle machine, where wall time is what counts. The
	// thread count changes no number: outputs at 1 and 2 threads are
	// bit-identical (TestIntraOpThreadsBitIdentical; 'bench model' JSONL
	// byte-identical for int8 and fp32 MiniLM and ce-scifact-tiny).
	IntraOpThreads int
	// TokenizeWorkers is the number of goroutines tokenizing in parallel.
	// Default GOMAXPROCS.
	TokenizeWorkers int
	// TextNormalization, when set, overrides the folder's
	// text_normalization ("trim", "collapse-whitespace", "none"). It changes
	// ids, so it is part of the resolved config and the Fingerprint.
	TextNormalization string
}

// The default batch sizes (Options.BatchSize 0), by model kind, are fixed
// rules rather than a timing-dependent calibration, so the same config gives
// the same batches on every machine and run. They are the fastest of batch
// 1, 8 and 32 per CPU-second at 1 intra-op thread on 200 SciFact abstracts,
// in Go and in Python onnxruntime alike (docs/benchmarks/encoder.md,
// "Settings per model"): for fp32 all-MiniLM-L6-v2, batch 1 is 1.08× batch
// 8 and 1.29× batch 32; for the cross-encoder ce-scifact-tiny (128 tokens),
// batch 8 is 1.16× batch 1 and 1.30× batch 32. fp32 outputs move with the
// batch by float rounding only (TestBatchSizeRounding), and at batch 1 not
// at all.
const (
	DefaultEmbedderBatchSize     = 1
	DefaultCrossEncoderBatchSize = 8
)

// SetDefaults fills zero fields with their defaults for a model of kind
// (KindEmbedder or KindCrossEncoder).
func (o *Options) SetDefaults(kind string) {
	if o.BatchSize <= 0 {
		o.BatchSize = DefaultEmbedderBatchSize
		if kind == KindCrossEncoder {
			o.BatchSize = DefaultCrossEncoderBatchSize
		}
	}
	if o.IntraOpThreads <= 0 {
		o.IntraOpThreads = 1
	}
	if o.TokenizeWorkers <= 0 {
		o.TokenizeWorkers = runtime.GOMAXPROCS(0)
	}
}

// TensorInfo describes one graph input or output, from ONNX Runtime's
// GetInputOutputInfo: name, element type ("int64", "float32", ...) and
// dimensions (-1 for a dynamic dimension).
type TensorInfo struct {
	Name  string
	Type  string
	Shape []int64
}

// String formats as "input_ids int64 [?, ?]" (? = dynamic dimension).
func (t TensorInfo) String() string {
	dims := make([]string, len(t.Shape))
	for i, d := range t.Shape {
		if d < 0 {
			dims[i] = "?"
		} else {
			dims[i] = fmt.Sprint(d)
		}
	}
	return fmt.Sprintf("%s %s [%s]", t.Name, t.Type, strings.Join(dims, ", "))
}

// model is what embedders and cross-encoders share: the ONNX session, the
// tokenizer and the resolved config.
type model struct {
	dir         string
	cfg         ResolvedConfig
	tok         *textTokenizer
	sess        *ort.DynamicAdvancedSession
	inputs      []TensorInfo
	outputs     []TensorInfo
	out         TensorInfo // the output read
	int32Inputs bool
	modelSHA    string
	tokSHA      string
	fingerprint string
	opts        Options
	warnings    []string // load-time notes, e.g. batch size forced to 1
}

// loaded is what an Embedder and a CrossEncoder share as a loaded model:
// the model and the counters Stats reports (texts, or pairs for a
// cross-encoder). Its methods are theirs.
type loaded struct {
	m *model

	texts, tokens, truncated atomic.Int64 // counters reported by Stats
}

// Config returns the resolved model config.
func (l *loaded) Config() ResolvedConfig { return l.m.cfg }

// Fingerprint identifies the numbers the model produces (an Embedder's
// vectors, a CrossEncoder's scores): a hex sha256 over model.onnx's
// sha256, tokenizer.json's sha256 and the resolved config. It does not
// depend on Options. Caches key on it.
func (l *loaded) Fingerprint() string { return l.m.fingerprint }

// Warnings returns load-time notes that change how the model runs (for
// example, batch size forced to 1 for a dynamically quantized graph).
func (l *loaded) Warnings() []string { return l.m.warnings }

// Stats returns the counters since load (a CrossEncoder's Texts counts
// pairs).
func (l *loaded) Stats() Stats {
	return Stats{Texts: l.texts.Load(), Tokens: l.tokens.Load(), Truncated: l.truncated.Load()}
}

// Close releases the ONNX session. The model must not be used after.
func (l *loaded) Close() error { return l.m.close() }

// fingerprintVersion changes whenever ragbench changes how it turns a text
// into numbers, so caches keyed on fingerprints are invalidated.
const fingerprintVersion = "ragbench-encoder/1"

// loadModel loads and validates a model folder. wantKind is KindEmbedder or
// KindCrossEncoder; a folder whose resolved kind differs is an error.
func loadModel(dir string, opts Options, wantKind string) (*model, error) {
	if _, _, err := currentRuntime(); err != nil {
		return nil, err
	}
	opts.SetDefaults(wantKind)
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("model folder: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("model folder %s: not a directory", dir)
	}
	cfg, hf, err := readConfig(dir)
	if err != nil {
		return nil, err
	}
	if err := cfg.validate(filepath.Join(dir, ConfigFile)); err != nil {
		return nil, err
	}
	if err := (Config{TextNormalization: opts.TextNormalization}).validate("Options"); err != nil {
		return nil, err
	}
	modelPath := filepath.Join(dir, ModelFile)
	// model.onnx is read here once, for its sha256 and the graph facts
	// (it was read twice more for them before: 0.02–0.05 s of CPU for fp32
	// MiniLM's 90 MB, issue 14). ONNX Runtime still opens it by path, for
	// the probe and the session, so external-data files beside it resolve
	// as before.
	onnx, err := os.ReadFile(modelPath)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	sum := sha256.Sum256(onnx)
	modelSHA := hex.EncodeToString(sum[:])
	facts := readGraphFacts(onnx)
	ins, outs, err := graphIO(modelPath)
	if err != nil {
		return nil, err
	}
	tokPath := filepath.Join(dir, TokenizerFile)
	tok, err := loadTokenizer(tokPath)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	tokSum := sha256.Sum256(tok.raw) // the bytes loadTokenizer read, not a second read
	tokSHA := hex.EncodeToString(tokSum[:])
	m := &model{dir: dir, tok: tok, modelSHA: modelSHA, tokSHA: tokSHA, opts: opts, inputs: ins, outputs: outs}
	if err := m.resolve(cfg, hf, wantKind, facts); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	if m.cfg.VocabSize > 0 && tok.maxID >= m.cfg.VocabSize {
		return nil, fmt.Errorf("%s: tokenizer %s can emit id %d but the model's embedding table has %d rows (vocab_size): tokenizer and model do not match", dir, TokenizerFile, tok.maxID, m.cfg.VocabSize)
	}
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("onnxruntime session options: %w", err)
	}
	defer so.Destroy()
	if err := so.SetIntraOpNumThreads(opts.IntraOpThreads); err != nil {
		return nil, err
	}
	if err := so.SetInterOpNumThreads(1); err != nil {
		return nil, err
	}
	m.sess, err = ort.NewDynamicAdvancedSession(modelPath, m.cfg.Inputs, []string{m.cfg.Output}, so)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", modelPath, err)
	}
	fp := sha256.New()
	fmt.Fprintf(fp, "%s\nmodel %s\ntokenizer %s\n", fingerprintVersion, modelSHA, tokSHA)
	cj, _ := json.Marshal(m.cfg)
	fp.Write(cj)
	m.fingerprint = hex.EncodeToString(fp.Sum(nil))
	return m, nil
}

func currentRuntime() (string, string, error) {
	if !ort.IsInitialized() {
		return "", "", errors.New("onnxruntime: not initialised: call encoder.Init first")
	}
	p, v := RuntimeInfo()
	return p, v, nil
}

// graphIO returns the graph inputs and outputs of the ONNX file at
// modelPath as ONNX Runtime reports them, or an error naming the file when
// ONNX Runtime cannot load it. onnxruntime_go reads them only through a
// session of their own (its sessions expose no such call), so that probe
// session is made as cheap as the answer allows: graph optimisations off
// (they rewrite nodes, never the graph's inputs and outputs) and one
// intra-op thread (no thread pool to start). With the defaults it cost as
// much CPU as the session that runs the model (0.14–0.29 s for fp32
// all-MiniLM-L6-v2, 2–4 % of 'bench model embed' on 200 abstracts; issue
// 14's profile).
func graphIO(modelPath string) (ins, outs []TensorInfo, err error) {
	so, err := ort.NewSessionOptions()
	if err != nil {
		return nil, nil, fmt.Errorf("onnxruntime session options: %w", err)
	}
	defer so.Destroy()
	if err := so.SetGraphOptimizationLevel(ort.GraphOptimizationLevelDisableAll); err != nil {
		return nil, nil, err
	}
	if err := so.SetIntraOpNumThreads(1); err != nil {
		return nil, nil, err
	}
	oi, oo, err := ort.GetInputOutputInfoWithOptions(modelPath, so)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not a loadable ONNX model: %w", modelPath, err)
	}
	for _, i := range oi {
		ins = append(ins, infoOf(i))
	}
	for _, o := range oo {
		outs = append(outs, infoOf(o))
	}
	return ins, outs, nil
}

func infoOf(i ort.InputOutputInfo) TensorInfo {
	typ := strings.ToLower(strings.TrimPrefix(i.DataType.String(), "ONNX_TENSOR_ELEMENT_DATA_TYPE_"))
	if typ == "float" {
		typ = "float32"
	}
	t := TensorInfo{Name: i.Name, Type: typ}
	t.Shape = append(t.Shape, i.Dimensions...)
	return t
}

func (m *model) input(name string) (TensorInfo, bool) {
	for _, in := range m.inputs {
		if in.Name == name {
			return in, true
		}
	}
	return TensorInfo{}, false
}

func (m *model) output(name string) (TensorInfo, bool) {
	for _, o := range m.outputs {
		if o.Name == name {
			return o, true
		}
	}
	return TensorInfo{}, false
}

// resolve fills every default of cfg from the graph, hf and the tokenizer.
// facts are the graph facts read from model.onnx.
func (m *model) resolve(cfg Config, hf hfConfig, wantKind string, facts graphFacts) error {
	r := ResolvedConfig{Kind: cfg.Kind}
	if r.Kind == "" {
		r.Kind = kindFromOutputs(m.outputNames())
	}
	if r.Kind != wantKind {
		return fmt.Errorf("model kind is %q, not %q (set \"kind\" in %s if the inference is wrong)", r.Kind, wantKind, ConfigFile)
	}
	if err := m.resolveInputs(&r); err != nil {
		return err
	}
	if err := m.resolveOutput(cfg, &r); err != nil {
		return err
	}
	r.TextNormalization = firstNonEmpty(m.opts.TextNormalization, cfg.TextNormalization, TextTrim)
	// Lengths.
	r.MaxLength = firstPositive(cfg.MaxLength, hf.MaxLength, m.tok.truncLen, hf.MaxPositionEmbeddings, 512)
	if err := m.resolveTemplates(cfg, hf, &r); err != nil {
		return err
	}
	switch {
	case cfg.PadID != nil:
		r.PadID = *cfg.PadID
	case m.tok.hasPad:
		r.PadID = m.tok.padID
	}
	r.VocabSize = firstPositive(cfg.VocabSize, hf.VocabSize, facts.EmbeddingRows)
	if facts.DynamicQuant && m.opts.BatchSize > 1 {
		m.opts.BatchSize = 1
		m.warnings = append(m.warnings, "graph quantizes activations dynamically (DynamicQuantizeLinear): a vector would depend on the texts batched with it, so batch size is forced to 1")
	}
	m.cfg = r
	return nil
}

func (m *model) outputNames() []string {
	names := make([]string, len(m.outputs))
	for i, o := range m.outputs {
		names[i] = o.Name
	}
	return names
}

// resolveInputs checks the graph's inputs: input_ids required;
// attention_mask and token_type_ids fed when the graph declares them;
// anything else is unsupported.
func (m *model) resolveInputs(r *ResolvedConfig) error {
	for _, in := range m.inputs {
		switch in.Name {
		case "input_ids", "attention_mask", "token_type_ids":
		default:
			return fmt.Errorf("graph input %q is not one of input_ids, attention_mask, token_type_ids", in.Name)
		}
		switch in.Type {
		case "int64":
		case "int32":
			m.int32Inputs = true
		default:
			return fmt.Errorf("graph input %s: element type %s; want int64 or int32", in.Name, in.Type)
		}
		if len(in.Shape) != 2 {
			return fmt.Errorf("graph input %s: rank %d; want [batch, sequence]", in.Name, len(in.Shape))
		}
		r.Inputs = append(r.Inputs, in.Name)
	}
	if _, ok := m.input("input_ids"); !ok {
		return errors.New("graph has no input named input_ids")
	}
	return nil
}

// resolveOutput picks the output (the config's, else the kind's usual
// name, else the first) and the pooling, normalisation and prefixes its
// shape allows.
func (m *model) resolveOutput(cfg Config, r *ResolvedConfig) error {
	r.Output = cfg.Output
	if r.Output == "" {
		cands := []string{"sentence_embedding", "last_hidden_state"}
		if r.Kind == KindCrossEncoder {
			cands = []string{"logits"}
		}
		for _, c := range cands {
			if _, ok := m.output(c); ok {
				r.Output = c
				break
			}
		}
		if r.Output == "" && len(m.outputs) > 0 {
			r.Output = m.outputs[0].Name
		}
	}
	out, ok := m.output(r.Output)
	if !ok {
		return fmt.Errorf("output %q not in the graph (outputs: %s)", r.Output, strings.Join(m.outputNames(), ", "))
	}
	if out.Type != "float32" {
		return fmt.Errorf("output %s: element type %s; want float32", out.Name, out.Type)
	}
	m.out = out
	rank := len(out.Shape)
	r.QueryPrefix, r.PassagePrefix = cfg.QueryPrefix, cfg.PassagePrefix
	if r.Kind != KindEmbedder {
		if rank < 1 || rank > 2 || (rank == 2 && out.Shape[1] != 1 && out.Shape[1] >= 0) {
			return fmt.Errorf("cross-encoder output %s must be [batch] or [batch, 1] (one logit per pair); it is %v", out.Name, out.Shape)
		}
		if cfg.Pooling != "" && cfg.Pooling != PoolingNone {
			return fmt.Errorf("pooling %q does not apply to a cross-encoder", cfg.Pooling)
		}
		return nil
	}
	r.Pooling = cfg.Pooling
	if r.Pooling == "" {
		r.Pooling = PoolingMean
		if rank == 2 {
			r.Pooling = PoolingNone
		}
	}
	switch {
	case r.Pooling == PoolingNone && rank != 2:
		return fmt.Errorf("pooling none needs a [batch, dim] output; %s has rank %d (set pooling mean or cls)", out.Name, rank)
	case r.Pooling != PoolingNone && rank != 3:
		return fmt.Errorf("pooling %s needs a [batch, sequence, hidden] output; %s has rank %d (set pooling none)", r.Pooling, out.Name, rank)
	}
	r.Normalize = cfg.Normalize == nil || *cfg.Normalize
	return nil
}

// resolveTemplates sets the single and pair templates (the config's, else
// the tokenizer's) and checks that r.MaxLength leaves room for text.
func (m *model) resolveTemplates(cfg Config, hf hfConfig, r *ResolvedConfig) error {
	var err error
	single, pair := m.tok.single, m.tok.pair
	if cfg.SingleTemplate != "" {
		if single, err = parseTemplate(cfg.SingleTemplate, m.tok.vocab, false); err != nil {
			return fmt.Errorf("%s: single_template: %w", ConfigFile, err)
		}
	}
	if cfg.PairTemplate != "" {
		if pair, err = parseTemplate(cfg.PairTemplate, m.tok.vocab, true); err != nil {
			return fmt.Errorf("%s: pair_template: %w", ConfigFile, err)
		}
	}
	m.tok.single, m.tok.pair = single, pair
	r.SingleTemplate = single.String(m.idToken)
	if r.MaxLength <= single.specials() {
		return fmt.Errorf("max_length %d leaves no room for text after %d special tokens", r.MaxLength, single.specials())
	}
	if r.Kind == KindCrossEncoder {
		r.PairTemplate = pair.String(m.idToken)
		room := r.MaxLength - pair.specials()
		r.MaxQueryTokens = firstPositive(cfg.MaxQueryTokens, hf.MaxQueryTokens, room/2)
		if room < 2 || r.MaxQueryTokens > room-1 {
			return fmt.Errorf("max_query_tokens %d leaves no room for the passage (max_length %d, %d special tokens)", r.MaxQueryTokens, r.MaxLength, pair.specials())
		}
	}
	return nil
}

func (m *model) idToken(id int) string {
	for tok, i := range m.tok.vocab {
		if i == id {
			return tok
		}
	}
	return fmt.Sprintf("<id %d>", id)
}

func firstNonEmpty(v ...string) string {
	for _, x := range v {
		if x != "" {
			return x
		}
	}
	return ""
}

func firstPositive(v ...int) int {
	for _, x := range v {
		if x > 0 {
			return x
		}
	}
	return 0
}

func (m *model) close() error {
	if m == nil || m.sess == nil {
		return nil
	}
	err := m.sess.Destroy()
	m.sess = nil
	return err
}

// run feeds one padded batch to the graph and returns the output's data and
// shape. The batch must be non-empty.
func (m *model) run(ctx context.Context, ids, types [][]int64) ([]float32, []int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if m.sess == nil {
		return nil, nil, errors.New("model is closed")
	}
	b := len(ids)
	seqLen := 0
	for _, s := range ids {
		seqLen = max(seqLen, len(s))
	}
	n := b * seqLen
	idData := make([]int64, n)
	maskData := make([]int64, n)
	typeData := make([]int64, n)
	for i, s := range ids {
		row := idData[i*seqLen : (i+1)*seqLen]
		for j := range row {
			row[j] = int64(m.cfg.PadID)
		}
		copy(row, s)
		for j := range s {
			maskData[i*seqLen+j] = 1
		}
		if types != nil {
			copy(typeData[i*seqLen:], types[i])
		}
	}
	shape := ort.NewShape(int64(b), int64(seqLen))
	inputs := make([]ort.Value, 0, len(m.cfg.Inputs))
	defer func() {
		for _, v := range inputs {
			v.Destroy()
		}
	}()
	for _, name := range m.cfg.Inputs {
		data := idData
		switch name {
		case "attention_mask":
			data = maskData
		case "token_type_ids":
			data = typeData
		}
		var v ort.Value
		var err error
		if m.int32Inputs {
			d32 := make([]int32, len(data))
			for i, x := range data {
				d32[i] = int32(x)
			}
			v, err = ort.NewTensor(shape, d32)
		} else {
			v, err = ort.NewTensor(shape, data)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("input %s: %w", name, err)
		}
		inputs = append(inputs, v)
	}
	outputs := []ort.Value{nil}
	if err := m.sess.Run(inputs, outputs); err != nil {
		return nil, nil, fmt.Errorf("onnxruntime Run (batch %d × %d tokens): %w%s", b, seqLen, err, m.runHint(err))
	}
	defer outputs[0].Destroy()
	t, ok := outputs[0].(*ort.Tensor[float32])
	if !ok {
		return nil, nil, fmt.Errorf("output %s: not a float32 tensor", m.cfg.Output)
	}
	data := append([]float32(nil), t.GetData()...)
	return data, append([]int64(nil), t.GetShape()...), nil
}

func (m *model) runHint(err error) string {
	s := err.Error()
	if strings.Contains(s, "out of data bounds") || strings.Contains(s, "indices element out of") {
		return fmt.Sprintf(" (a token id is outside the model's embedding table: tokenizer.json emits ids up to %d; tokenizer and model do not match)", m.tok.maxID)
	}
	return ""
}

// lengthOrder returns the indexes of seqs sorted by length, longest
// first, equal lengths by their ids (then index), so batches are the same
// whatever order the texts came in.
func lengthOrder(seqs [][]int64) []int {
	idx := make([]int, len(seqs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		sa, sb := seqs[idx[a]], seqs[idx[b]]
		if len(sa) != len(sb) {
			return len(sa) > len(sb)
		}
		return slices.Compare(sa, sb) < 0
	})
	return idx
}
