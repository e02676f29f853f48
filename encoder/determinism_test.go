package encoder

import (
	"context"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbench/ragbench/internal/testenv"
)

// TestDeterminism: the same texts give bit-identical vectors whatever the
// number of tokenizer workers and GOMAXPROCS, and in whatever order they
// are given (length ordering makes the batches the same).
func TestDeterminism(t *testing.T) {
	needRuntime(t)
	dir, _ := useLite(t)
	texts := testenv.SciFactAbstracts(t, 24)
	ctx := context.Background()
	embed := func(workers, procs int, in []string) [][]float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		e, err := LoadEmbedder(dir, Options{BatchSize: 8, TokenizeWorkers: workers})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		v, err := e.Embed(ctx, in, false)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	a := embed(1, 1, texts)
	b := embed(4, 2, texts)
	if !cmp.Equal(a, b) {
		t.Error("vectors differ between 1 worker/GOMAXPROCS=1 and 4 workers/GOMAXPROCS=2")
	}
	rev := make([]string, len(texts))
	for i, s := range texts {
		rev[len(texts)-1-i] = s
	}
	c := embed(2, 2, rev)
	for i := range texts {
		if !cmp.Equal(a[i], c[len(texts)-1-i]) {
			t.Errorf("text %d: vector depends on input order", i)
		}
	}
}

// TestIntraOpThreadsBitIdentical: ONNX Runtime at 2 intra-op threads gives
// the same bits as at 1, for use-lite's vectors and ce-scifact-tiny's
// logits at batch 8 (padded batches, the case where a kernel split across
// threads would show first), so Options.IntraOpThreads changes no number.
func TestIntraOpThreadsBitIdentical(t *testing.T) {
	needRuntime(t)
	useLiteDir, _ := useLite(t)
	ceDir, _ := ceTiny(t)
	texts := testenv.SciFactAbstracts(t, 24)
	ctx := context.Background()
	embed := func(threads int) [][]float32 {
		e, err := LoadEmbedder(useLiteDir, Options{BatchSize: 8, IntraOpThreads: threads})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		v, err := e.Embed(ctx, texts, false)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	score := func(threads int) []float32 {
		c, err := LoadCrossEncoder(ceDir, Options{BatchSize: 8, IntraOpThreads: threads})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := c.Score(ctx, "what causes cell differentiation", texts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if a, b := embed(1), embed(2); !cmp.Equal(a, b) {
		t.Error("use-lite vectors differ between 1 and 2 intra-op threads")
	}
	if a, b := score(1), score(2); !cmp.Equal(a, b) {
		t.Errorf("ce-scifact-tiny logits differ between 1 and 2 intra-op threads:\n%v\n%v", a, b)
	}
}
