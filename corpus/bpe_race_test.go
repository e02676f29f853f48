package corpus

import (
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestBPEConcurrent: BPE is safe for concurrent use (run with -race): eight
// goroutines encoding the same text get the same ids.
func TestBPEConcurrent(t *testing.T) {
	bpe, err := LoadBPE(CL100kBase)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("It’s a test of concurrent encoding, 123 times.\n", 50)
	want := bpe.Encode(text)
	var wg sync.WaitGroup
	errs := make([]bool, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = !slices.Equal(bpe.Encode(text), want) || bpe.Decode(want) != text
		}()
	}
	wg.Wait()
	for i, bad := range errs {
		if bad {
			t.Errorf("goroutine %d: other ids", i)
		}
	}
}
