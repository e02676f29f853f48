package testenv

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// ChromaRow is one published row of Chroma's chunking evaluation on
// state_of_the_union: token recall, precision and IoU in percent.
type ChromaRow struct{ Recall, Precision, IoU float64 }

// ChromaReference reads dir/reference/state_of_the_union_minilm_fixed_tokens.csv
// (dir is ../shared/datasets/chunking-chroma; columns chunk_size_tokens,
// chunk_overlap_tokens, n_results, recall, precision, iou) into (size,
// overlap, n) → row, with the (size, overlap) cells in file order. A field
// that is not a number, or a table without its 60 rows, fails the test.
func ChromaReference(t testing.TB, dir string) (map[[3]int]ChromaRow, [][2]int) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "reference", "state_of_the_union_minilm_fixed_tokens.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	ref := map[[3]int]ChromaRow{}
	var cells [][2]int
	for line, r := range recs[1:] {
		var k [3]int
		var v [3]float64
		for i := range 3 {
			if k[i], err = strconv.Atoi(r[i]); err != nil {
				t.Fatalf("reference line %d: %v", line+2, err)
			}
			if v[i], err = strconv.ParseFloat(r[3+i], 64); err != nil {
				t.Fatalf("reference line %d: %v", line+2, err)
			}
		}
		if _, seen := ref[k]; !seen && k[2] == 1 {
			cells = append(cells, [2]int{k[0], k[1]})
		}
		ref[k] = ChromaRow{v[0], v[1], v[2]}
	}
	if len(ref) != 60 {
		t.Fatalf("%d reference rows, want 60", len(ref))
	}
	return ref, cells
}
