package encoder

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestModelHashesFromOneRead: the sha256 values that loadModel takes from
// the bytes it reads once are those of the files (computed here from a
// separate read), and so is the fingerprint built from them.
func TestModelHashesFromOneRead(t *testing.T) {
	needRuntime(t)
	dir, _ := useLite(t)
	m, err := loadModel(dir, Options{}, KindEmbedder)
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	for file, got := range map[string]string{ModelFile: m.modelSHA, TokenizerFile: m.tokSHA} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("%x", sha256.Sum256(b)); got != want {
			t.Errorf("%s: sha256 %s, want %s", file, got, want)
		}
	}
	fp := sha256.New()
	fmt.Fprintf(fp, "%s\nmodel %s\ntokenizer %s\n", fingerprintVersion, m.modelSHA, m.tokSHA)
	cj, _ := json.Marshal(m.cfg)
	fp.Write(cj)
	if want := fmt.Sprintf("%x", fp.Sum(nil)); m.fingerprint != want {
		t.Errorf("fingerprint %s, want %s", m.fingerprint, want)
	}
}
