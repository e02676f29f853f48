package labels

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzReadPool: a review file either reads, and then writes back as the
// same items (WritePool, ReadPool), or every line it refuses is named.
func FuzzReadPool(f *testing.F) {
	f.Add(`{"doc":"d","start":0,"end":3,"returned":2,"text":"abc","prefix":"","suffix":" x","queries":[{"id":"q","question":"?","hits":[{"cell":"c/b","chunk":"d#0","rank":1}],"grade":null}]}` + "\n")
	f.Add(`{"doc":"d","queries":[{"id":"q","grade":-1}]}` + "\r\n\ufeff{}\n" + `{"graed": 1}`)
	f.Fuzz(func(t *testing.T, content string) {
		path := filepath.Join(t.TempDir(), "review.jsonl")
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		items, lines, err := ReadPool(path)
		if len(items) != len(lines) {
			t.Fatalf("%d items, %d lines", len(items), len(lines))
		}
		if err != nil {
			return
		}
		var b bytes.Buffer
		if err := WritePool(&b, items); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(path, b.Bytes(), 0o644)
		again, _, err := ReadPool(path)
		if err != nil || len(again) != len(items) {
			t.Fatalf("%q → %q: %v", content, b.String(), err)
		}
		for i := range again {
			if items[i].Queries == nil {
				items[i].Queries = []PoolQuery{}
			}
			if !reflect.DeepEqual(again[i], items[i]) {
				t.Fatalf("item %d: %+v, want %+v", i, again[i], items[i])
			}
		}
	})
}
