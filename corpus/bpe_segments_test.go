package corpus

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/internal/testenv"
)

// TestEncodeContextMatchesEncode: encoding segment by segment gives
// Encode's ids, with a segment ended at every place the split allows
// (size 1) and at SegmentBytes, on Chroma's three corpora, SciFact's first
// documents and random texts of letters, digits, spaces, line breaks,
// apostrophes, punctuation and non-ASCII letters.
func TestEncodeContextMatchesEncode(t *testing.T) {
	bpe, err := LoadBPE(CL100kBase)
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{}
	dir := testenv.Shared(t, "datasets/chunking-chroma/corpora")
	for _, f := range []string{"chatlogs.md", "state_of_the_union.md", "wikitexts.md"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = string(b)
	}
	b, err := os.ReadFile(testenv.Shared(t, "datasets/scifact/corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	texts["scifact"] = string(b[:min(len(b), 300<<10)])
	alphabet := []string{"a", "B", "z", " ", " ", "  ", "\n", "\r\n", "\t", "'", "'s", "'LL", "7", "42", "1234", ".", ",", "==", "-", "é", "ß", "日本", "😀", "<|endoftext|>"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		var sb strings.Builder
		for range rng.IntN(300) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		texts["random"+strconv.Itoa(i)] = sb.String()
	}
	for name, text := range texts {
		want := bpe.Encode(text)
		for _, size := range []int{1, 100, SegmentBytes} {
			got, err := bpe.encodeSegments(context.Background(), text, size)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("%s, segments of %d bytes: %d ids (err %v), Encode %d", name, size, len(got), err, len(want))
			}
		}
	}
}

// countdown is a context cancelled once Err has been asked n times.
type countdown struct {
	context.Context
	n int
}

func (c *countdown) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestEncodeContextStops: a context cancelled while a long text is being
// encoded stops EncodeContext at the next segment, with the context's
// error and the ids of the segments done (a prefix of Encode's).
func TestEncodeContextStops(t *testing.T) {
	bpe, err := LoadBPE(CL100kBase)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("a few words of text ", 4*SegmentBytes/20) // four segments
	ids, err := bpe.EncodeContext(&countdown{Context: context.Background(), n: 2}, text)
	if err != context.Canceled {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	want := bpe.Encode(text)
	if len(ids) == 0 || len(ids) >= len(want) || !slices.Equal(ids, want[:len(ids)]) {
		t.Fatalf("%d ids of %d: want a non-empty strict prefix of Encode's", len(ids), len(want))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if ids, err := bpe.EncodeContext(ctx, text); err != context.Canceled || len(ids) != 0 {
		t.Fatalf("cancelled before: %d ids, err %v", len(ids), err)
	}
}

// TestEncodeContextStopsNonASCII: a long text of words in a script other
// than Latin (Cyrillic, Greek; words ending in an accented letter) is as
// interruptible as an English one (docs/spans.md: Ctrl-C interrupts the
// encoding of a 50 MB document between 64 KiB segments). cl100k_base's
// pre-tokenizer ends a piece at any letter followed by a space, not only
// at an ASCII one; the ids stay Encode's.
func TestEncodeContextStopsNonASCII(t *testing.T) {
	bpe, err := LoadBPE(CL100kBase)
	if err != nil {
		t.Fatal(err)
	}
	for name, words := range map[string]string{
		"russian": "съешь же ещё этих мягких французских булок ",
		"greek":   "ξεσκεπάζω την ψυχοφθόρα βδελυγμία ",
		"accents": "café naïve déjà reçu à ",
	} {
		text := strings.Repeat(words, 4*SegmentBytes/len(words)) // about four segments
		want := bpe.Encode(text)
		ids, err := bpe.EncodeContext(&countdown{Context: context.Background(), n: 2}, text)
		if err != context.Canceled {
			t.Fatalf("%s: err %v, want context.Canceled after the second segment (%d ids of %d: one segment)", name, err, len(ids), len(want))
		}
		if len(ids) == 0 || len(ids) >= len(want) || !slices.Equal(ids, want[:len(ids)]) {
			t.Fatalf("%s: %d ids of %d: want a non-empty strict prefix of Encode's", name, len(ids), len(want))
		}
		for _, size := range []int{1, 100, SegmentBytes} {
			if got, err := bpe.encodeSegments(context.Background(), text, size); err != nil || !slices.Equal(got, want) {
				t.Fatalf("%s, segments of %d bytes: %d ids (err %v), Encode %d", name, size, len(got), err, len(want))
			}
		}
	}
}
