package encoder

import (
	"context"
	"fmt"
	"sync"
)

// CrossEncoder scores (query, passage) pairs with one transformer reading
// both: one logit per pair, higher = more relevant (the scale is the
// model's own; ms-marco-MiniLM-L-6-v2 gives roughly -11..11). Its methods
// are safe for concurrent use.
type CrossEncoder struct {
	loaded // the model; Config, Fingerprint, Warnings, Stats, Close

	// passage ids are cached in memory (Unigram tokenization can cost tens
	// of milliseconds per abstract and a reranker sees the same passages for
	// many queries).
	mu    sync.Mutex // guards ids
	ids   map[string][]int
	limit int
}

// passageIDCacheLimit bounds the in-memory passage-id cache (entries).
const passageIDCacheLimit = 200_000

// LoadCrossEncoder loads a cross-encoder from dir (see LoadEmbedder for
// the folder layout and errors). The graph must output one logit per pair
// ([batch] or [batch, 1]).
func LoadCrossEncoder(dir string, opts Options) (*CrossEncoder, error) {
	m, err := loadModel(dir, opts, KindCrossEncoder)
	if err != nil {
		return nil, err
	}
	c := &CrossEncoder{ids: map[string][]int{}, limit: passageIDCacheLimit}
	c.m = m
	return c, nil
}

// Score returns one logit per passage for the pair (query, passages[i]), in
// input order. Each pair is laid out with the pair template (for BERT
// "[CLS] q [SEP] p [SEP]" with token_type_ids 0 then 1; for
// ce-scifact-tiny "<s> q </s> p </s>"); the query is capped at
// MaxQueryTokens and the passage truncated to what is left of MaxLength, so
// the closing special token is always kept. An empty query or passage or
// invalid UTF-8 is an error naming it.
func (c *CrossEncoder) Score(ctx context.Context, query string, passages []string) ([]float32, error) {
	q := normalizeText(query, c.m.cfg.TextNormalization)
	if q == "" {
		return nil, &TextError{"query", -1, ErrEmptyText}
	}
	qids, err := c.m.tok.encodeLimit(c.m.cfg.QueryPrefix+q, c.m.cfg.MaxQueryTokens+1)
	if err != nil {
		return nil, &TextError{"query", -1, err}
	}
	if len(qids) == 0 {
		return nil, &TextError{"query", -1, fmt.Errorf("%w (no tokens)", ErrEmptyText)}
	}
	pids, err := c.passageIDs(passages)
	if err != nil {
		return nil, err
	}
	ids := make([][]int64, len(passages))
	types := make([][]int64, len(passages))
	var ntok, ntr int64
	for i, p := range pids {
		var tr bool
		ids[i], types[i], tr = c.m.tok.pairIDs(qids, p, c.m.cfg.MaxLength, c.m.cfg.MaxQueryTokens)
		if tr {
			ntr++
		}
		ntok += int64(len(ids[i]))
	}
	out := make([]float32, len(passages))
	order := lengthOrder(ids)
	bs := c.m.opts.BatchSize
	err = pairBatches(order, bs, ids, types, func(idx []int, bi, bt [][]int64) error {
		data, shape, err := c.m.run(ctx, bi, bt)
		if err != nil {
			return err
		}
		if len(data) != len(idx) {
			return fmt.Errorf("output %s: shape %v, want one logit per pair (%d)", c.m.cfg.Output, shape, len(idx))
		}
		for j, i := range idx {
			out[i] = data[j]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	c.texts.Add(int64(len(passages)))
	c.tokens.Add(ntok)
	c.truncated.Add(ntr)
	return out, nil
}

// pairBatches calls f on each batch of at most bs pairs taken in order
// (lengthOrder's, so that pairs of similar length share a batch and little
// is padded): idx are the pairs' positions in ids and types, bi and bt
// their token and type ids. The first error of f stops it and is returned.
func pairBatches(order []int, bs int, ids, types [][]int64, f func(idx []int, bi, bt [][]int64) error) error {
	for start := 0; start < len(order); start += bs {
		idx := order[start:min(start+bs, len(order))]
		bi := make([][]int64, len(idx))
		bt := make([][]int64, len(idx))
		for j, i := range idx {
			bi[j], bt[j] = ids[i], types[i]
		}
		if err := f(idx, bi, bt); err != nil {
			return err
		}
	}
	return nil
}

// passageIDs tokenizes passages (normalised, passage prefix applied,
// without special tokens), reusing cached ids, in parallel.
func (c *CrossEncoder) passageIDs(passages []string) ([][]int, error) {
	out := make([][]int, len(passages))
	keys := make([]string, len(passages))
	var missIdx []int
	var missText []string
	c.mu.Lock()
	for i, p := range passages {
		n := normalizeText(p, c.m.cfg.TextNormalization)
		if n == "" {
			c.mu.Unlock()
			return nil, &TextError{"passage", i, ErrEmptyText}
		}
		keys[i] = c.m.cfg.PassagePrefix + n
		if ids, ok := c.ids[keys[i]]; ok {
			out[i] = ids
		} else {
			missIdx = append(missIdx, i)
			missText = append(missText, keys[i])
		}
	}
	c.mu.Unlock()
	if len(missIdx) == 0 {
		return out, nil
	}
	got, errs := c.m.tok.encodeAll(missText, c.m.opts.TokenizeWorkers, c.m.cfg.MaxLength-c.m.tok.pair.specials()+1)
	for j, i := range missIdx {
		if errs[j] != nil {
			return nil, &TextError{"passage", i, errs[j]}
		}
		if len(got[j]) == 0 {
			return nil, &TextError{"passage", i, fmt.Errorf("%w (no tokens)", ErrEmptyText)}
		}
		out[i] = got[j]
	}
	c.mu.Lock()
	if len(c.ids)+len(missIdx) > c.limit {
		c.ids = map[string][]int{}
	}
	for j, i := range missIdx {
		c.ids[missText[j]] = out[i]
	}
	c.mu.Unlock()
	return out, nil
}
