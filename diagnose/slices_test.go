package diagnose

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeTemp(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadSlices(t *testing.T) {
	p := writeTemp(t, "q.jsonl", "\ufeff"+`{"_id": "1", "text": "a", "topic": "bio"}`+"\r\n"+
		`{"qid": 31715818, "topic": 3}`+"\n\n"+
		`{"id": "x", "topic": true}`+"\n"+
		`{"id": "y", "topic": null}`+"\n"+
		`{"id": "z"}`+"\n")
	got, err := ReadSlices(p, "topic")
	if err != nil {
		t.Fatal(err)
	}
	// Numbers keep their written form (31715818, not 3.1715818e+07).
	want := map[string]string{"1": "bio", "31715818": "3", "x": "true", "y": "", "z": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestReadSlicesMetadataAndGzip: a BEIR queries.jsonl keeps extra fields
// in "metadata"; the label is read there when the line has no top-level
// field, "" is no label, and a gzip file reads like the plain one.
func TestReadSlicesMetadataAndGzip(t *testing.T) {
	data := `{"_id": "q1", "text": "a", "metadata": {"topic": "travel"}}` + "\n" +
		`{"_id": "q2", "text": "b", "metadata": {}}` + "\n" +
		`{"_id": "q3", "text": "c", "topic": ""}` + "\n"
	want := map[string]string{"q1": "travel", "q2": "", "q3": ""}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(data))
	zw.Close()
	for _, p := range []string{writeTemp(t, "q.jsonl", data), writeTemp(t, "q.jsonl.gz", gz.String())} {
		got, err := ReadSlices(p, "topic")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", p, diff)
		}
	}
	_, err := ReadSlices(writeTemp(t, "q.jsonl", `{"_id": "q1", "metadata": {"kind": "x"}}`), "topic")
	if !errors.Is(err, ErrNoSliceField) || !strings.Contains(err.Error(), "keys seen: _id, metadata, metadata.kind") {
		t.Errorf("no topic anywhere: err = %v", err)
	}
}

func TestReadSlicesErrors(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"no field anywhere", `{"id": "a", "kind": "x"}`, "q.jsonl: topic: no line has this field (keys seen: id, kind)"},
		{"not JSON", `{"id": "a", "topic": "x"}` + "\nnope", "q.jsonl:2: not a JSON object"},
		{"no id", `{"topic": "x"}`, `q.jsonl:1: query id: none of "id", "qid", "_id" present`},
		{"object label", `{"id": "a", "topic": {"k": 1}}`, `q.jsonl:1: topic: want a string, number or boolean, got {"k": 1}`},
		{"duplicate id", `{"id": "a", "topic": "x"}` + "\n" + `{"id": "a", "topic": "y"}`, `q.jsonl:2: query id: "a" given twice`},
		{"empty id", `{"id": "", "topic": "x"}`, `q.jsonl:1: id: want a non-empty string or number, got ""`},
		// encoding/json keeps the last of two equal keys; "id" used to win
		// silently over a different "_id".
		{"label twice", `{"id": "a", "topic": "x", "topic": "y"}`, `q.jsonl:1: topic: key given twice in one object`},
		{"ids disagree", `{"id": "a", "_id": "b", "topic": "x"}`, `q.jsonl:1: _id: "b" differs from id "a"`},
	}
	for _, c := range cases {
		p := writeTemp(t, "q.jsonl", c.data)
		_, err := ReadSlices(p, "topic")
		if err == nil || !strings.HasSuffix(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want suffix %q", c.name, err, c.want)
		}
	}
}
