package encoder

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestUseLiteReference checks ids and embeddings against
// ../shared/models/use-lite/reference.json (made from the original graph;
// embeddings to 1e-4 absolute).
func TestUseLiteReference(t *testing.T) {
	needRuntime(t)
	dir, ref := useLite(t)
	for _, bs := range []int{1, 4} {
		e, err := LoadEmbedder(dir, Options{BatchSize: bs, TextNormalization: TextCollapseWhitespace})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if e.Dim() != 512 {
			t.Errorf("Dim = %d, want 512 (SOURCE.md)", e.Dim())
		}
		toks, err := e.Tokenize(context.Background(), ref.Sentences, false)
		if err != nil {
			t.Fatal(err)
		}
		for i, tk := range toks {
			if diff := cmp.Diff(ref.InputIDs[i], tk.IDs); diff != "" {
				t.Errorf("sentence %d %q ids (-want +got):\n%s", i, ref.Sentences[i], diff)
			}
		}
		vecs, err := e.Embed(context.Background(), ref.Sentences, false)
		if err != nil {
			t.Fatal(err)
		}
		for i, v := range vecs {
			if len(v) != len(ref.Embeddings[i]) {
				t.Fatalf("sentence %d: dim %d, want %d", i, len(v), len(ref.Embeddings[i]))
			}
			worst := 0.0
			for k := range v {
				worst = math.Max(worst, math.Abs(float64(v[k]-ref.Embeddings[i][k])))
			}
			if worst > 1e-4 {
				t.Errorf("batch %d sentence %d: max abs diff %.3g > 1e-4", bs, i, worst)
			}
		}
	}
}

// TestCrossEncoderReference checks pair ids, token type ids and logits
// against ../shared/models/ce-scifact-tiny/reference.json (logits to 1e-4).
func TestCrossEncoderReference(t *testing.T) {
	needRuntime(t)
	dir, ref := ceTiny(t)
	c, err := LoadCrossEncoder(dir, Options{BatchSize: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.Config().MaxQueryTokens; got != 100 {
		t.Errorf("MaxQueryTokens = %d, want 100 (config.json)", got)
	}
	ctx := context.Background()
	for i, p := range ref.Pairs {
		// SOURCE.md: q = ids(query) capped at 100; p cut to 128-3-len(q).
		qids, _ := c.m.tok.encode(normalizeText(p.Query, TextTrim))
		qids = qids[:min(100, len(qids))]
		pids, err := c.passageIDs([]string{p.Passage})
		if err != nil {
			t.Fatal(err)
		}
		budget := 128 - 3 - len(qids)
		pp := pids[0][:min(budget, len(pids[0]))]
		ids, types := c.m.tok.pair.build(qids, pp)
		if diff := cmp.Diff(p.InputIDs, ids); diff != "" {
			t.Errorf("pair %d ids (-want +got):\n%s", i, diff)
		}
		if diff := cmp.Diff(p.TokenTypeIDs, types); diff != "" {
			t.Errorf("pair %d token_type_ids (-want +got):\n%s", i, diff)
		}
		got, err := c.Score(ctx, p.Query, []string{p.Passage})
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(float64(got[0] - p.Logit)); d > 1e-4 {
			t.Errorf("pair %d: logit %v, want %v (diff %.3g)", i, got[0], p.Logit, d)
		}
	}
}
