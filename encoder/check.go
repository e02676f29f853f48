package encoder

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// ModelInfo is what Check found in a model folder.
type ModelInfo struct {
	Dir             string
	Library         string // ONNX Runtime library path
	RuntimeVersion  string // e.g. "1.24.3"
	Inputs, Outputs []TensorInfo
	Config          ResolvedConfig // zero when the folder did not load
	Fingerprint     string
	ModelSHA256     string
	TokenizerMaxID  int      // largest id tokenizer.json can emit
	TokenizerGuards []string // sugarme workarounds applied
	Warnings        []string // load-time notes (e.g. batch size forced to 1)
	Dim             int      // embedding dimension (embedders)
	Smoke           string   // what the one-text run gave
}

// Check loads the model folder dir as its resolved kind, runs one short
// text (or pair) through it and reports what it found. It returns the
// information gathered so far together with the first problem: files
// missing or corrupt, unsupported inputs or outputs, a tokenizer larger than
// the embedding table, or a non-finite output. Init must have succeeded.
func Check(dir string, opts Options) (*ModelInfo, error) {
	lib, ver, err := currentRuntime()
	if err != nil {
		return nil, err
	}
	info := &ModelInfo{Dir: dir, Library: lib, RuntimeVersion: ver}
	info.Inputs, info.Outputs, err = graphIO(filepath.Join(dir, ModelFile))
	if err != nil {
		return info, err
	}
	kind := KindEmbedder
	cfg, _, err := readConfig(dir)
	if err != nil {
		return info, err
	}
	switch {
	case cfg.Kind != "":
		kind = cfg.Kind
	default:
		names := make([]string, len(info.Outputs))
		for i, o := range info.Outputs {
			names[i] = o.Name
		}
		kind = kindFromOutputs(names)
	}
	ctx := context.Background()
	var m *model
	if kind == KindCrossEncoder {
		c, err := LoadCrossEncoder(dir, opts)
		if err != nil {
			return info, err
		}
		defer c.Close()
		m = c.m
		s, err := c.Score(ctx, "what is a cross-encoder", []string{"A cross-encoder reads the query and the passage together.", "Bananas are yellow."})
		if err != nil {
			return info, fmt.Errorf("scoring a test pair: %w", err)
		}
		info.Smoke = fmt.Sprintf("scored 2 test pairs: logits %.4f and %.4f", s[0], s[1])
		for _, x := range s {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				info.fill(m)
				return info, fmt.Errorf("test pair scored %v", x)
			}
		}
	} else {
		e, err := LoadEmbedder(dir, opts)
		if err != nil {
			return info, err
		}
		defer e.Close()
		m = e.m
		info.Dim = e.Dim()
		v, err := e.Embed(ctx, []string{"The cat sits on the mat.", "A cat is sitting on a rug."}, false)
		if err != nil {
			return info, fmt.Errorf("embedding test texts: %w", err)
		}
		var dot, n0 float64
		for k := range v[0] {
			dot += float64(v[0][k]) * float64(v[1][k])
			n0 += float64(v[0][k]) * float64(v[0][k])
		}
		info.Smoke = fmt.Sprintf("embedded 2 test texts: dim %d, |v| = %.4f, cosine of two paraphrases = %.4f", len(v[0]), math.Sqrt(n0), dot)
	}
	info.fill(m)
	return info, nil
}

func (info *ModelInfo) fill(m *model) {
	info.Config = m.cfg
	info.Fingerprint = m.fingerprint
	info.ModelSHA256 = m.modelSHA
	info.TokenizerMaxID = m.tok.maxID
	info.TokenizerGuards = m.tok.guards
	info.Warnings = m.warnings
}

// Report renders the information as aligned text that also reads as
// Markdown (a fenced block is not needed: each line is "key: value").
func (info *ModelInfo) Report() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model folder:    %s\n", info.Dir)
	fmt.Fprintf(&b, "onnxruntime:     %s (%s)\n", info.RuntimeVersion, info.Library)
	if info.Config.Kind != "" {
		fmt.Fprintf(&b, "kind:            %s\n", info.Config.Kind)
	}
	if info.ModelSHA256 != "" {
		fmt.Fprintf(&b, "model sha256:    %s\n", info.ModelSHA256)
		fmt.Fprintf(&b, "fingerprint:     %s\n", info.Fingerprint)
	}
	fmt.Fprintln(&b, "graph inputs:")
	for _, t := range info.Inputs {
		fmt.Fprintf(&b, "  %s\n", t)
	}
	fmt.Fprintln(&b, "graph outputs:")
	for _, t := range info.Outputs {
		mark := ""
		if t.Name == info.Config.Output {
			mark = "   <- read"
		}
		fmt.Fprintf(&b, "  %s%s\n", t, mark)
	}
	if info.Config.Kind != "" {
		fmt.Fprintf(&b, "tokenizer:       ids 0..%d", info.TokenizerMaxID)
		if info.Config.VocabSize > 0 {
			fmt.Fprintf(&b, " (embedding table: %d rows)", info.Config.VocabSize)
		} else {
			fmt.Fprint(&b, " (embedding table size unknown: unchecked)")
		}
		fmt.Fprintln(&b)
		for _, g := range info.TokenizerGuards {
			fmt.Fprintf(&b, "  guard: %s\n", g)
		}
		for _, w := range info.Warnings {
			fmt.Fprintf(&b, "warning:         %s\n", w)
		}
		fmt.Fprintln(&b, "resolved config:")
		for _, line := range strings.Split(info.Config.String(), "\n") {
			fmt.Fprintf(&b, "  %s\n", line)
		}
	}
	if info.Smoke != "" {
		fmt.Fprintf(&b, "smoke test:      %s\n", info.Smoke)
	}
	return b.String()
}
