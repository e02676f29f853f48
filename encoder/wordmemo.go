package encoder

import "sync"

// Bounds of the word memo (wordMemo). A word longer than memoWordBytes is
// tokenized each time and not stored (WordPiece turns words past 100
// characters into [UNK] anyway, and long keys would dominate the memory);
// past memoMaxWords entries nothing more is stored. Worst case the memo
// holds about memoMaxWords × (memoWordBytes + ~60 bytes of map entry and
// ids) ≈ 8 MB; the 5,183 SciFact abstracts have about 30,000 distinct
// words.
const (
	memoWordBytes = 48
	memoMaxWords  = 65536
)

// wordMemo maps a pre-tokenized word (normalised text between ASCII
// spaces) to its token ids. It is safe for concurrent use: the tokenizer's
// workers share one memo. Stored slices are never modified; callers copy
// them (append) into their own ids.
//
// Why it is exact: under BertPreTokenizer an ASCII space is whitespace, so
// it ends a pre-token and is dropped; the ids of a text are the ids of its
// space-separated words, concatenated, and WordPiece (like the rest of
// sugarme's pipeline on one word) is a deterministic function of the word.
// Why it pays: sugarme's per-call work (added-token search, pre-tokenizer
// splits, NormalizedString alignments, byte→char maps) was 0.28 s of the
// 3.7 CPU-s of 'bench model embed' on 200 abstracts with int8 MiniLM
// (pprof, issue 14), and most words of a corpus are repeats.
type wordMemo struct {
	mu sync.RWMutex
	m  map[string][]int
}

func newWordMemo() *wordMemo { return &wordMemo{m: make(map[string][]int, 1024)} }

// get returns the ids stored for word.
func (w *wordMemo) get(word string) ([]int, bool) {
	w.mu.RLock()
	ids, ok := w.m[word]
	w.mu.RUnlock()
	return ids, ok
}

// put stores ids for word within the memo's bounds (see memoMaxWords).
func (w *wordMemo) put(word string, ids []int) {
	if len(word) > memoWordBytes {
		return
	}
	w.mu.Lock()
	if len(w.m) < memoMaxWords {
		w.m[word] = ids
	}
	w.mu.Unlock()
}

// len is the number of words stored.
func (w *wordMemo) len() int {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return len(w.m)
}
