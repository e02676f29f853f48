package encoder

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/ragbench/ragbench/internal/testenv"
)

// pairedRun embeds toks batch by batch exactly as EmbedTokens does
// (length order, batch size, padding, Run, pooling, normalisation) and,
// right after each batch, times ONNX Runtime's Run alone on the same batch
// with input tensors built beforehand and the output discarded. Measuring
// the two side by side, batch after batch, keeps a shared machine's noise
// out of their ratio. It returns the total time of each, and the CPU time
// (user + system, whole process) of our part.
func pairedRun(b *testing.B, e *Embedder, toks []Tokens) (ours, raw, oursCPU time.Duration) {
	ctx := context.Background()
	m := e.m
	seqs := make([][]int64, len(toks))
	for i, t := range toks {
		seqs[i] = t.IDs
	}
	order := lengthOrder(seqs)
	for start := 0; start < len(order); start += m.opts.BatchSize {
		idx := order[start:min(start+m.opts.BatchSize, len(order))]
		batch := make([][]int64, len(idx))
		seqLen := 0
		for j, i := range idx {
			batch[j] = toks[i].IDs
			seqLen = max(seqLen, len(toks[i].IDs))
		}
		c0, t0 := cpuTime(), time.Now()
		data, shape, err := m.run(ctx, batch, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.pool(data, shape, batch); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(t0)
		oursCPU += cpuTime() - c0

		tshape := ort.NewShape(int64(len(idx)), int64(seqLen))
		ids := make([]int64, len(idx)*seqLen)
		mask := make([]int64, len(ids))
		for j, s := range batch {
			copy(ids[j*seqLen:], s)
			for k := range s {
				mask[j*seqLen+k] = 1
			}
		}
		var inputs []ort.Value
		for _, name := range m.cfg.Inputs {
			d := ids
			switch name {
			case "attention_mask":
				d = mask
			case "token_type_ids":
				d = make([]int64, len(ids))
			}
			t, err := ort.NewTensor(tshape, d)
			if err != nil {
				b.Fatal(err)
			}
			inputs = append(inputs, t)
		}
		outputs := []ort.Value{nil}
		t1 := time.Now()
		if err := m.sess.Run(inputs, outputs); err != nil {
			b.Fatal(err)
		}
		raw += time.Since(t1)
		outputs[0].Destroy()
		for _, v := range inputs {
			v.Destroy()
		}
	}
	return ours, raw, oursCPU
}

// benchAbstracts is how many SciFact abstracts the embedding and scoring
// benchmarks process per iteration: the 200 of issue 14's side-by-side
// comparison with Python onnxruntime (scripts in docs/benchmarks/encoder.md).
const benchAbstracts = 200

// BenchmarkEmbedSciFact embeds the first 200 SciFact abstracts (title +
// text) per iteration at batch 1, 8, 32 and 1, 2 intra-op threads, for
// use-lite and, when fetched, all-MiniLM-L6-v2 fp32 and int8
// (all-minilm-l6-v2-q, dynamically quantized, so only batch 1: the encoder
// forces it), and reports:
//
//	texts/s       embedding throughput of pre-tokenized texts (batching,
//	              padding, Run, pooling, normalisation), as EmbedTokens
//	cpu_texts/s   texts per CPU-second (user + system) of the same work: on
//	              a loaded machine, the figure that compares settings run
//	              at 1 intra-op thread
//	overhead_%    (our time - raw Run time) / raw Run time, the two timed
//	              batch after batch on the same batches (pairedRun)
//	tok_texts/s   Tokenize throughput (GOMAXPROCS workers), measured once
//	tok_tokens/s  tokens produced per second by Tokenize
//	tok_share_%   Tokenize time / raw Run time: the extra cost of a text not
//	              yet in the embedding cache
//
// With RAGBENCH_BENCH_IDS=DIR it also writes the token ids it feeds to
// DIR/<model>.jsonl ({"ids": [...]} per text), for the Python reference.
//
// Run: go test -run '^$' -bench 'EmbedSciFact/model=use-lite' -benchtime 1x ./encoder
func BenchmarkEmbedSciFact(b *testing.B) {
	if err := Init(""); err != nil {
		b.Skip(err)
	}
	texts := testenv.SciFactAbstracts(b, benchAbstracts)
	models := map[string]string{"use-lite": testenv.Shared(b, "models/use-lite")}
	for _, name := range []string{"all-minilm-l6-v2", "all-minilm-l6-v2-q"} {
		if dir := filepath.Join(testenv.RepoRoot(), "models", name); fileExists(filepath.Join(dir, ModelFile)) {
			models[name] = dir
		}
	}
	ctx := context.Background()
	for _, name := range []string{"use-lite", "all-minilm-l6-v2", "all-minilm-l6-v2-q"} {
		dir, ok := models[name]
		if !ok {
			continue
		}
		var toks []Tokens
		var tokTime time.Duration
		for _, threads := range []int{1, 2} {
			for _, bs := range []int{1, 8, 32} {
				b.Run(fmt.Sprintf("model=%s/threads=%d/batch=%d", name, threads, bs), func(b *testing.B) {
					e, err := LoadEmbedder(dir, Options{BatchSize: bs, IntraOpThreads: threads})
					if err != nil {
						b.Fatal(err)
					}
					defer e.Close()
					if e.m.opts.BatchSize != bs {
						b.Skipf("batch size forced to %d: %v", e.m.opts.BatchSize, e.Warnings())
					}
					if toks == nil {
						t0 := time.Now()
						if toks, err = e.Tokenize(ctx, texts, false); err != nil {
							b.Fatal(err)
						}
						tokTime = time.Since(t0)
						seqs := make([][]int64, len(toks))
						for i, t := range toks {
							seqs[i] = t.IDs
						}
						dumpIDs(b, name, seqs, nil)
					}
					ntok := 0
					for _, t := range toks {
						ntok += len(t.IDs)
					}
					b.ResetTimer()
					var ours, raw, cpu time.Duration
					for i := 0; i < b.N; i++ {
						o, r, c := pairedRun(b, e, toks)
						ours += o
						raw += r
						cpu += c
					}
					b.StopTimer()
					b.ReportMetric(float64(b.N*len(texts))/ours.Seconds(), "texts/s")
					if cpu > 0 {
						b.ReportMetric(float64(b.N*len(texts))/cpu.Seconds(), "cpu_texts/s")
					}
					b.ReportMetric(100*(ours-raw).Seconds()/raw.Seconds(), "overhead_%")
					b.ReportMetric(float64(len(texts))/tokTime.Seconds(), "tok_texts/s")
					b.ReportMetric(float64(ntok)/tokTime.Seconds(), "tok_tokens/s")
					b.ReportMetric(100*tokTime.Seconds()/(raw.Seconds()/float64(b.N)), "tok_share_%")
				})
			}
		}
	}
}

// sciFactPairs returns 200 (query, passage) pairs: the first two SciFact
// test queries, each with the first 100 abstracts (title + text), as a
// reranker sees one query's top 100.
func sciFactPairs(b testing.TB) (queries, passages []string) {
	b.Helper()
	abstracts := testenv.SciFactAbstracts(b, benchAbstracts/2)
	return testenv.SciFactQueries(b, 2), abstracts
}

// BenchmarkScoreSciFact scores 200 (query, abstract) pairs with the
// cross-encoder ce-scifact-tiny (../shared) per iteration at batch 1, 8, 32
// and 1, 2 intra-op threads, timing what Score does after tokenization
// (length order, padding, Run), and reports pairs/s and cpu_pairs/s (pairs
// per CPU-second, user + system). RAGBENCH_BENCH_IDS=DIR also writes the
// ids and token types fed to DIR/ce-scifact-tiny.jsonl.
//
// Run: go test -run '^$' -bench ScoreSciFact -benchtime 1x ./encoder
func BenchmarkScoreSciFact(b *testing.B) {
	if err := Init(""); err != nil {
		b.Skip(err)
	}
	dir := testenv.Shared(b, "models/ce-scifact-tiny")
	queries, passages := sciFactPairs(b)
	ctx := context.Background()
	for _, threads := range []int{1, 2} {
		for _, bs := range []int{1, 8, 32} {
			b.Run(fmt.Sprintf("model=ce-scifact-tiny/threads=%d/batch=%d", threads, bs), func(b *testing.B) {
				c, err := LoadCrossEncoder(dir, Options{BatchSize: bs, IntraOpThreads: threads})
				if err != nil {
					b.Fatal(err)
				}
				defer c.Close()
				cfg := c.m.cfg
				var ids, types [][]int64
				for _, q := range queries {
					qids, err := c.m.tok.encodeLimit(cfg.QueryPrefix+normalizeText(q, cfg.TextNormalization), cfg.MaxQueryTokens+1)
					if err != nil {
						b.Fatal(err)
					}
					pids, err := c.passageIDs(passages)
					if err != nil {
						b.Fatal(err)
					}
					for _, p := range pids {
						i, t, _ := c.m.tok.pairIDs(qids, p, cfg.MaxLength, cfg.MaxQueryTokens)
						ids, types = append(ids, i), append(types, t)
					}
				}
				if threads == 1 && bs == 1 {
					dumpIDs(b, "ce-scifact-tiny", ids, types)
				}
				order := lengthOrder(ids)
				b.ResetTimer()
				var wall, cpu time.Duration
				for n := 0; n < b.N; n++ {
					err := pairBatches(order, bs, ids, types, func(_ []int, bi, bt [][]int64) error {
						c0, t0 := cpuTime(), time.Now()
						_, _, err := c.m.run(ctx, bi, bt)
						wall += time.Since(t0)
						cpu += cpuTime() - c0
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(b.N*len(ids))/wall.Seconds(), "pairs/s")
				if cpu > 0 {
					b.ReportMetric(float64(b.N*len(ids))/cpu.Seconds(), "cpu_pairs/s")
				}
			})
		}
	}
}

// dumpIDs writes ids (and token types, when not nil) as JSON lines to
// $RAGBENCH_BENCH_IDS/<name>.jsonl when that variable is set.
func dumpIDs(b *testing.B, name string, ids, types [][]int64) {
	dir := os.Getenv("RAGBENCH_BENCH_IDS")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, name+".jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	enc := json.NewEncoder(f)
	for i := range ids {
		row := map[string][]int64{"ids": ids[i]}
		if types != nil {
			row["types"] = types[i]
		}
		if err := enc.Encode(row); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
