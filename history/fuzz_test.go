package history

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/ragbench/ragbench/internal/fuzzwatch"
)

// FuzzRead: Read never panics and takes bounded time; every history it
// accepts holds rows that Append would write (validate), and writing them
// back in the format Append creates (Header; a file without the commit
// column reads as rows without one) and reading again gives the same rows.
func FuzzRead(f *testing.F) {
	const h = "run,time,config_hash,dataset_hash,cell,metric,value\n"
	for _, s := range []string{
		h + "1,2026-11-30T12:00:00Z,3f2a,9b1c,whole/bm25,ndcg@10,0.6789\n1,2026-11-30T12:00:00Z,3f2a,9b1c,whole/bm25,recall@100,0.9253\n2,2026-11-30T13:10:05.5Z,3f2a,9b1c,whole/bm25,ndcg@10,0.6801\n",
		h + "1,2026-11-30T12:00:00Z,c,d,,,\n",
		"\ufeff" + h + "1,2026-11-30T12:00:00+02:00,\"c,1\",d,\"a \"\"b\"\"\",m,-1e-7\r\n",
		h + "1,2026-11-30T12:00:00Z,c,d,cell,m,0.",
		"",
		h[:len(h)-1] + ",commit\n1,2026-11-30T12:00:00Z,c,d,cell,m,0.5,4021c53+modified\n1,2026-11-30T12:00:00Z,c,d,cell,n,1,4021c53+modified\n2,2026-11-30T13:00:00Z,c,d,,,,\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzwatch.Start(fuzzwatch.Bound)()
		path := filepath.Join(dir, "h.csv")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := Read(path)
		if err != nil {
			return
		}
		var b bytes.Buffer
		w := csv.NewWriter(&b)
		w.Write(Header)
		for _, r := range rows {
			if err := validate(r); err != nil {
				t.Fatalf("Read accepted run %d, which Append refuses: %v", r.Run, err)
			}
			w.WriteAll(records(r))
		}
		if err := w.Error(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		back, err := Read(path)
		if err != nil {
			t.Fatalf("written back, not readable: %v\n%q", err, b.String())
		}
		if len(rows) == 0 && len(back) == 0 {
			return
		}
		if !reflect.DeepEqual(rows, back) {
			t.Fatalf("round trip changed the rows:\n%+v\n%+v", rows, back)
		}
	})
}
