package hybrid

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ragbench/ragbench/eval"
	"github.com/ragbench/ragbench/retrievers"
)

// Retriever is a retrievers.Retriever that searches every input retriever and
// fuses their lists with Fuse.
type Retriever struct {
	inputs []retrievers.Retriever
	opts   Options

	mu      sync.Mutex      // guards fusion, queries and notes
	fusion  []time.Duration // per-query fusion time, in search order
	queries int
	notes   Notes // over every Search so far
}

// New returns a Retriever fusing inputs (at least one, none nil) with opts.
// Search asks each input for max(k, Depth) results per query, fuses their top
// Depth and returns the top k. Errors: no inputs, a nil input, bad options.
func New(inputs []retrievers.Retriever, opts Options) (*Retriever, error) {
	if len(inputs) == 0 {
		return nil, errors.New("hybrid: no input retrievers")
	}
	for i, in := range inputs {
		if in == nil {
			return nil, fmt.Errorf("hybrid: input %d is nil", i)
		}
	}
	o, err := opts.resolve(len(inputs))
	if err != nil {
		return nil, err
	}
	return &Retriever{inputs: slices.Clone(inputs), opts: o, notes: newNotes(o, len(inputs))}, nil
}

// Notes returns the fusion's Notes over every Search so far (the flat lists
// of each input, Notes.Lines words them).
func (r *Retriever) Notes() Notes {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.notes.clone()
}

// Search implements retrievers.Retriever: at most k fused results per query,
// in Fuse's order (fused score descending, ties by doc id descending). k ≤ 0 is an error; an input's error
// is returned wrapped with the input's index.
func (r *Retriever) Search(ctx context.Context, queries []retrievers.Query, k int) (eval.Run, error) {
	if k <= 0 {
		return nil, fmt.Errorf("hybrid: k must be > 0, got %d", k)
	}
	depth := max(k, r.opts.Depth)
	runs := make([]eval.Run, len(r.inputs))
	for i, in := range r.inputs {
		run, err := in.Search(ctx, queries, depth)
		if err != nil {
			return nil, fmt.Errorf("hybrid: input %d: %w", i, err)
		}
		runs[i] = run
	}
	out := make(eval.Run, len(queries))
	times := make([]time.Duration, 0, len(queries))
	lists := make([][]eval.Result, len(runs))
	notes := newNotes(r.opts, len(runs))
	for _, q := range queries {
		start := time.Now()
		for i, run := range runs {
			l, err := rankOrder(run[q.ID], r.opts.Depth)
			if err != nil {
				return nil, fmt.Errorf("hybrid: input %d, query %q: %w", i, q.ID, err)
			}
			lists[i] = l
		}
		fused, flat, err := fuseQuery(lists, r.opts)
		if err != nil {
			return nil, fmt.Errorf("hybrid: query %q: %w", q.ID, err)
		}
		notes.add(q.ID, flat)
		if len(fused) > k {
			fused = fused[:k:k]
		}
		out[q.ID] = fused
		times = append(times, time.Since(start))
	}
	r.mu.Lock()
	r.fusion = append(r.fusion, times...)
	r.queries += len(queries)
	r.notes.merge(notes)
	r.mu.Unlock()
	return out, nil
}

// Stats implements retrievers.Retriever. Build and IndexBytes are the sums
// over the inputs. Latencies are approximate: the sum over the inputs of
// their percentile plus the percentile of this retriever's own fusion time
// (inputs search whole batches, so per-query totals are not observed).
func (r *Retriever) Stats() retrievers.Stats {
	var s retrievers.Stats
	for _, in := range r.inputs {
		is := in.Stats()
		s.Build += is.Build
		s.IndexBytes += is.IndexBytes
		s.LatencyP50 += is.LatencyP50
		s.LatencyP95 += is.LatencyP95
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	s.Queries = r.queries
	s.LatencyP50 += retrievers.Percentile(r.fusion, 0.50)
	s.LatencyP95 += retrievers.Percentile(r.fusion, 0.95)
	return s
}
