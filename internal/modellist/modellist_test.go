package modellist

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestFetchedIsWhatTheScriptFetches: the names Go reads are the names
// scripts/fetch-models.sh loops over (its "up to date"/"<-" lines name
// them); checked by running the script's own list-reading code in bash,
// not by a second parser here. Each line has the script's 7 fields.
func TestFetchedIsWhatTheScriptFetches(t *testing.T) {
	want := []string{"all-minilm-l6-v2", "all-minilm-l6-v2-q", "e5-small-v2-q"}
	if got := Fetched(); !slices.Equal(got, want) {
		t.Errorf("Fetched() = %v, want %v (docs/models.md)", got, want)
	}
	script, err := os.ReadFile(filepath.Join("..", "..", "scripts", "fetch-models.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(script), "internal/modellist/fetch-models.txt") {
		t.Error("scripts/fetch-models.sh does not read internal/modellist/fetch-models.txt")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	out, err := exec.Command("bash", "-c", `while IFS= read -r line; do [[ -z "$line" || "$line" == \#* ]] && continue; IFS='|' read -r name a b c d e f <<<"$line"; [[ -n "$f" ]] || exit 3; echo "$name"; done < fetch-models.txt`).Output()
	if err != nil {
		t.Fatalf("bash read of fetch-models.txt: %v (a line with fewer than 7 fields?)", err)
	}
	if got := strings.Fields(string(out)); !slices.Equal(got, want) {
		t.Errorf("bash reads %v, want %v", got, want)
	}
}
