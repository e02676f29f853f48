package encoder

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// Embedder is a bi-encoder loaded from a model folder: it turns texts into
// fixed-size float32 vectors. Its methods are safe for concurrent use.
type Embedder struct {
	loaded // the model; Config, Fingerprint, Warnings, Stats, Close
	dim    int
}

// Tokens is one text's tokenization as fed to the model: ids with special
// tokens, after truncation to MaxLength.
type Tokens struct {
	IDs       []int64
	Truncated bool // the text had more tokens than fit; the tail was cut
}

// Stats counts what an Embedder or CrossEncoder has processed since it was
// loaded: texts (or pairs), tokens fed (special tokens included, padding
// excluded) and texts truncated to MaxLength.
type Stats struct {
	Texts, Tokens, Truncated int64
}

// ErrEmptyText is returned (wrapped, naming the text's index) for a text
// that is empty after text normalisation: it has no tokens to embed or
// score, and ragbench does not invent a vector for it.
var ErrEmptyText = errors.New("empty text")

// TextError reports bad input text: which (Field "text", "query" or
// "passage"), its index in the caller's slice (-1 for the single query)
// and why (wrapping ErrEmptyText, an invalid UTF-8 error, ...).
type TextError struct {
	Field string
	Index int
	Err   error
}

// Error formats as "text 3: empty text" ("query: ..." for the query).
func (e *TextError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("%s: %v", e.Field, e.Err)
	}
	return fmt.Sprintf("%s %d: %v", e.Field, e.Index, e.Err)
}

// Unwrap returns the cause, for errors.Is(err, ErrEmptyText).
func (e *TextError) Unwrap() error { return e.Err }

// LoadEmbedder loads a bi-encoder from dir (model.onnx, tokenizer.json,
// optional ragbench.json and config.json; see Config for the defaults).
// Init must have succeeded first. Errors name the file at fault: missing or
// corrupt model, malformed tokenizer, unsupported graph inputs or outputs, a
// tokenizer whose ids exceed the model's embedding table.
func LoadEmbedder(dir string, opts Options) (*Embedder, error) {
	m, err := loadModel(dir, opts, KindEmbedder)
	if err != nil {
		return nil, err
	}
	e := &Embedder{}
	e.m = m
	if m.cfg.Pooling == PoolingNone {
		e.dim = int(m.out.Shape[1])
	} else {
		e.dim = int(m.out.Shape[2])
	}
	if e.dim <= 0 { // dynamic: ask the graph with one tiny run
		ids, _ := m.tok.single.build([]int{m.cfg.PadID}, nil)
		v, err := e.embedTokens(context.Background(), []Tokens{{IDs: ids}})
		if err != nil {
			m.close()
			return nil, fmt.Errorf("%s: probing output dimension: %w", dir, err)
		}
		e.dim = len(v[0])
	}
	return e, nil
}

// Dim is the embedding dimension (e.g. 384 for all-MiniLM-L6-v2, 512 for
// use-lite).
func (e *Embedder) Dim() int { return e.dim }

// Embed returns one vector of Dim() float32 per text, in input order. query
// selects the query prefix (true) or the passage prefix (false) of the
// config. Texts are normalised, prefixed, tokenized in parallel, truncated
// to MaxLength (keeping the closing special token), ordered by length and
// run in batches of Options.BatchSize. Vectors are L2-normalised when the
// config says so (the default). An empty text or invalid UTF-8 is an error
// naming the text's index; nothing is returned then.
func (e *Embedder) Embed(ctx context.Context, texts []string, query bool) ([][]float32, error) {
	toks, err := e.Tokenize(ctx, texts, query)
	if err != nil {
		return nil, err
	}
	return e.EmbedTokens(ctx, toks)
}

// Tokenize turns texts into model input ids exactly as Embed does, in
// parallel (Options.TokenizeWorkers goroutines), without running the model.
func (e *Embedder) Tokenize(ctx context.Context, texts []string, query bool) ([]Tokens, error) {
	in, err := e.prepare(ctx, texts, query)
	if err != nil {
		return nil, err
	}
	// Encoding stops one id past what fits, so truncation is still seen.
	raw, errs := e.m.tok.encodeAll(in, e.m.opts.TokenizeWorkers, e.m.cfg.MaxLength-e.m.tok.single.specials()+1)
	out := make([]Tokens, len(texts))
	for i, ids := range raw {
		if errs[i] != nil {
			return nil, &TextError{"text", i, errs[i]}
		}
		if len(ids) == 0 && e.m.tok.single.specials() == 0 {
			return nil, &TextError{"text", i, fmt.Errorf("%w (no tokens)", ErrEmptyText)}
		}
		out[i].IDs, out[i].Truncated = e.m.tok.singleIDs(ids, e.m.cfg.MaxLength)
	}
	return out, nil
}

// EmbedTokens runs the model on already tokenized texts (from Tokenize) and
// returns their vectors in input order.
func (e *Embedder) EmbedTokens(ctx context.Context, toks []Tokens) ([][]float32, error) {
	for i, t := range toks {
		if len(t.IDs) == 0 {
			return nil, &TextError{"text", i, fmt.Errorf("%w (no tokens)", ErrEmptyText)}
		}
		if len(t.IDs) > e.m.cfg.MaxLength {
			return nil, fmt.Errorf("text %d: %d tokens > max_length %d", i, len(t.IDs), e.m.cfg.MaxLength)
		}
	}
	vecs, err := e.embedTokens(ctx, toks)
	if err != nil {
		return nil, err
	}
	var ntok, ntr int64
	for _, t := range toks {
		ntok += int64(len(t.IDs))
		if t.Truncated {
			ntr++
		}
	}
	e.texts.Add(int64(len(toks)))
	e.tokens.Add(ntok)
	e.truncated.Add(ntr)
	return vecs, nil
}

func (e *Embedder) embedTokens(ctx context.Context, toks []Tokens) ([][]float32, error) {
	out := make([][]float32, len(toks))
	seqs := make([][]int64, len(toks))
	for i, t := range toks {
		seqs[i] = t.IDs
	}
	order := lengthOrder(seqs)
	bs := e.m.opts.BatchSize
	for start := 0; start < len(order); start += bs {
		idx := order[start:min(start+bs, len(order))]
		ids := make([][]int64, len(idx))
		var types [][]int64
		for j, i := range idx {
			ids[j] = toks[i].IDs
		}
		data, shape, err := e.m.run(ctx, ids, types)
		if err != nil {
			return nil, err
		}
		vecs, err := e.pool(data, shape, ids)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			out[i] = vecs[j]
		}
	}
	return out, nil
}

// pool turns the output of one batch into one vector per row.
func (e *Embedder) pool(data []float32, shape []int64, ids [][]int64) ([][]float32, error) {
	b := len(ids)
	out := make([][]float32, b)
	switch e.m.cfg.Pooling {
	case PoolingNone:
		if len(shape) != 2 || shape[0] != int64(b) {
			return nil, fmt.Errorf("output %s: shape %v, want [%d, dim]", e.m.cfg.Output, shape, b)
		}
		d := int(shape[1])
		for i := range out {
			out[i] = append([]float32(nil), data[i*d:(i+1)*d]...)
		}
	case PoolingMean, PoolingCLS:
		if len(shape) != 3 || shape[0] != int64(b) {
			return nil, fmt.Errorf("output %s: shape %v, want [%d, sequence, hidden]", e.m.cfg.Output, shape, b)
		}
		seq, h := int(shape[1]), int(shape[2])
		for i := range out {
			v := make([]float32, h)
			row := data[i*seq*h : (i+1)*seq*h]
			if e.m.cfg.Pooling == PoolingCLS {
				copy(v, row[:h])
			} else {
				// Sum in float64 over positions with attention_mask 1
				// (the first len(ids[i]) positions), as sentence-transformers'
				// mean pooling does in float32; float64 only reduces rounding.
				acc := make([]float64, h)
				n := len(ids[i])
				for p := 0; p < n; p++ {
					for k, x := range row[p*h : (p+1)*h] {
						acc[k] += float64(x)
					}
				}
				for k := range v {
					v[k] = float32(acc[k] / float64(n))
				}
			}
			out[i] = v
		}
	}
	if e.m.cfg.Normalize {
		for _, v := range out {
			l2normalize(v)
		}
	}
	for i, v := range out {
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return nil, fmt.Errorf("output %s: row %d holds NaN or Inf", e.m.cfg.Output, i)
			}
		}
	}
	return out, nil
}

// l2normalize scales v to unit Euclidean length (a zero vector is left
// as is).
func l2normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 {
		return
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}
