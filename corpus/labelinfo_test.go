package corpus

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ragbench/ragbench/eval"
)

// TestCheckLabelChunkings is issue 20's stale chunk-id case: labels made
// on 5-word windows ("theta iota" is in d1#1 of fixed-5, while d1#1 of
// fixed-10 is "lambda … upsilon") in a sweep over fixed-5 and fixed-10.
// Without a record both are refused, naming the fixes; with a record of
// fixed-5, fixed-5 passes and fixed-10 is refused; a sweep of one chunking,
// and labels of documents, pass.
func TestCheckLabelChunkings(t *testing.T) {
	docs := []Document{{ID: "d1", Text: "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon"}}
	five, ten := Spec{Strategy: Fixed, Size: 5}, Spec{Strategy: Fixed, Size: 10}
	chunks, _ := chunkSlice(five.Chunk(docs))
	if chunks[1].ID != "d1#1" || !strings.Contains(chunks[1].Text, "theta iota") {
		t.Fatalf("fixed-5 chunk 1 = %+v", chunks[1])
	}
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	qrels := eval.Qrels{"q1": {"d1#1": 1}}
	err := CheckLabelChunkings(labels, qrels, docs, []Spec{five, ten})
	var ce *ChunkLabelsError
	if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Refused, []string{"fixed-5", "fixed-10"}) ||
		!strings.Contains(err.Error(), "record theirs with 'bench labels record --corpus CORPUS --chunking NAME "+labels+"'") ||
		!strings.Contains(err.Error(), "bench labels convert --corpus CORPUS --chunking NAME") {
		t.Fatalf("no record: %v", err)
	}
	t.Log(err)
	if err := CheckLabelChunkings(labels, qrels, docs, []Spec{ten}); err != nil {
		t.Errorf("one chunking, no record: %v", err)
	}
	if err := WriteLabelInfo(labels, NewLabelInfo(five, docs)); err != nil {
		t.Fatal(err)
	}
	if err := CheckLabelChunkings(labels, qrels, docs, []Spec{five}); err != nil {
		t.Errorf("recorded fixed-5, sweep fixed-5: %v", err)
	}
	err = CheckLabelChunkings(labels, qrels, docs, []Spec{five, ten})
	if !errors.As(err, &ce) || !reflect.DeepEqual(ce.Refused, []string{"fixed-10"}) || ce.Recorded != "fixed-5" ||
		!strings.Contains(err.Error(), "recorded for chunking fixed-5") {
		t.Errorf("recorded fixed-5, sweep fixed-5 and fixed-10: %v", err)
	}
	t.Log(err)
	if err := CheckLabelChunkings(labels, eval.Qrels{"q1": {"d1": 1}}, docs, []Spec{five, ten}); err != nil {
		t.Errorf("document labels: %v", err)
	}
	if err := os.WriteFile(LabelInfoPath(labels), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := CheckLabelChunkings(labels, qrels, docs, []Spec{five}); err == nil || !strings.Contains(err.Error(), ".chunking.json") {
		t.Errorf("malformed record: %v", err)
	}
	if got := ChunkIDs(eval.Qrels{"a": {"d1#1": 1, "d1": 1, "x#2": 0}, "b": {"d1#1": 0, "d1#0": 2}}, docs); !reflect.DeepEqual(got, []string{"d1#0", "d1#1"}) {
		t.Errorf("ChunkIDs = %v", got)
	}
}
