package encoder

import (
	"bufio"
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

// sciFactAbstracts returns the first n SciFact corpus entries as
// title + " " + text.
func sciFactAbstracts(b testing.TB, n int) []string {
	b.Helper()
	f, err := os.Open(filepath.Join(testenv.Shared(b, "datasets/scifact"), "corpus.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	var out []string
	for sc.Scan() && len(out) < n {
		var d struct{ Title, Text string }
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			b.Fatal(err)
		}
		out = append(out, d.Title+" "+d.Text)
	}
	return out
}

// pairedRun embeds toks batch by batch exactly as EmbedTokens does
// (length order, batch size, padding, Run, pooling, normalisation) and,
// right after each batch, times ONNX Runtime's Run alone on the same batch
// with input tensors built beforehand and the output discarded. Measuring
// the two side by side, batch after batch, keeps a shared machine's noise
// out of their ratio. It returns the total time of each.
func pairedRun(b *testing.B, e *Embedder, toks []Tokens) (ours, raw time.Duration) {
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
		t0 := time.Now()
		data, shape, err := m.run(ctx, batch, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := e.pool(data, shape, batch); err != nil {
			b.Fatal(err)
		}
		ours += time.Since(t0)

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
	return ours, raw
}

// BenchmarkEmbedSciFact embeds 1,000 SciFact abstracts (title + text) per
// iteration at batch 1, 8, 32 and 1, 2 intra-op threads, for use-lite and,
// when fetched, all-MiniLM-L6-v2, and reports:
//
//	texts/s       embedding throughput of pre-tokenized texts (batching,
//	              padding, Run, pooling, normalisation), as EmbedTokens
//	overhead_%    (our time - raw Run time) / raw Run time, the two timed
//	              batch after batch on the same batches (pairedRun)
//	tok_texts/s   Tokenize throughput (GOMAXPROCS workers), measured once
//	tok_tokens/s  tokens produced per second by Tokenize
//	tok_share_%   Tokenize time / raw Run time: the extra cost of a text not
//	              yet in the embedding cache
//
// Run: go test -run '^$' -bench 'EmbedSciFact/model=use-lite' -benchtime 1x ./encoder
func BenchmarkEmbedSciFact(b *testing.B) {
	if err := Init(""); err != nil {
		b.Skip(err)
	}
	texts := sciFactAbstracts(b, 1000)
	models := map[string]string{"use-lite": testenv.Shared(b, "models/use-lite")}
	if dir := filepath.Join(testenv.RepoRoot(), "models", "all-minilm-l6-v2"); fileExists(filepath.Join(dir, ModelFile)) {
		models["all-minilm-l6-v2"] = dir
	}
	ctx := context.Background()
	for _, name := range []string{"use-lite", "all-minilm-l6-v2"} {
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
					if toks == nil {
						t0 := time.Now()
						if toks, err = e.Tokenize(ctx, texts, false); err != nil {
							b.Fatal(err)
						}
						tokTime = time.Since(t0)
					}
					ntok := 0
					for _, t := range toks {
						ntok += len(t.IDs)
					}
					b.ResetTimer()
					var ours, raw time.Duration
					for i := 0; i < b.N; i++ {
						o, r := pairedRun(b, e, toks)
						ours += o
						raw += r
					}
					b.StopTimer()
					b.ReportMetric(float64(b.N*len(texts))/ours.Seconds(), "texts/s")
					b.ReportMetric(100*(ours-raw).Seconds()/raw.Seconds(), "overhead_%")
					b.ReportMetric(float64(len(texts))/tokTime.Seconds(), "tok_texts/s")
					b.ReportMetric(float64(ntok)/tokTime.Seconds(), "tok_tokens/s")
					b.ReportMetric(100*tokTime.Seconds()/(raw.Seconds()/float64(b.N)), "tok_share_%")
				})
			}
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
