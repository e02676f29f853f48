package encoder

import "context"

// TokensCut returns, per text, how many tokens Embed cuts from it to fit
// MaxLength (0 when it fits): the text normalised, prefixed, tokenized and
// laid out with its special tokens exactly as Embed does, but only the
// tokenizer runs — no model, no embedding. A sweep counts with it what
// its dense cells silently lose (chunks longer than the model reads).
// Errors: Tokenize's (an empty text, invalid UTF-8), or ctx's.
func (e *Embedder) TokensCut(ctx context.Context, texts []string, query bool) ([]int, error) {
	in, err := e.prepare(ctx, texts, query)
	if err != nil {
		return nil, err
	}
	raw, errs := e.m.tok.encodeAll(in, e.m.opts.TokenizeWorkers, 0)
	out := make([]int, len(texts))
	room := e.m.cfg.MaxLength - e.m.tok.single.specials()
	for i, ids := range raw {
		if errs[i] != nil {
			return nil, &TextError{"text", i, errs[i]}
		}
		out[i] = max(0, len(ids)-room)
	}
	return out, nil
}

// PairTokensCut returns how many tokens Score cuts when it scores query
// with each of passages: qCut from the query (beyond MaxQueryTokens) and
// pCut[i] from passage i (beyond what MaxLength leaves after the kept query
// and the pair's special tokens), 0 when nothing is cut. Only the
// tokenizer runs. Errors: an empty query or passage, invalid UTF-8.
func (c *CrossEncoder) PairTokensCut(query string, passages []string) (qCut int, pCut []int, err error) {
	q := normalizeText(query, c.m.cfg.TextNormalization)
	if q == "" {
		return 0, nil, &TextError{"query", -1, ErrEmptyText}
	}
	qids, err := c.m.tok.encode(c.m.cfg.QueryPrefix + q)
	if err != nil {
		return 0, nil, &TextError{"query", -1, err}
	}
	in := make([]string, len(passages))
	for i, p := range passages {
		n := normalizeText(p, c.m.cfg.TextNormalization)
		if n == "" {
			return 0, nil, &TextError{"passage", i, ErrEmptyText}
		}
		in[i] = c.m.cfg.PassagePrefix + n
	}
	raw, errs := c.m.tok.encodeAll(in, c.m.opts.TokenizeWorkers, 0)
	kept := min(len(qids), c.m.cfg.MaxQueryTokens)
	room := max(c.m.cfg.MaxLength-c.m.tok.pair.specials()-kept, 0)
	pCut = make([]int, len(passages))
	for i, ids := range raw {
		if errs[i] != nil {
			return 0, nil, &TextError{"passage", i, errs[i]}
		}
		pCut[i] = max(0, len(ids)-room)
	}
	return max(0, len(qids)-c.m.cfg.MaxQueryTokens), pCut, nil
}

// prepare is texts as Embed tokenizes them: normalised (Config's
// text_normalization) and prefixed (the query or passage prefix). An empty
// text is a TextError naming its index; a cancelled ctx its error.
func (e *Embedder) prepare(ctx context.Context, texts []string, query bool) ([]string, error) {
	prefix := e.m.cfg.PassagePrefix
	if query {
		prefix = e.m.cfg.QueryPrefix
	}
	in := make([]string, len(texts))
	for i, t := range texts {
		n := normalizeText(t, e.m.cfg.TextNormalization)
		if n == "" {
			return nil, &TextError{"text", i, ErrEmptyText}
		}
		in[i] = prefix + n
	}
	return in, ctx.Err()
}
