package encoder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	ort "github.com/yalue/onnxruntime_go"

	"github.com/ragbench/ragbench/internal/testenv"
)

// TestLibraryChecks: files that are missing, not a shared library, or
// visibly older than 1.24 are refused before the dynamic loader sees them.
func TestLibraryChecks(t *testing.T) {
	dir := t.TempDir()
	elf := "\x7fELF" + strings.Repeat("\x00", 60)
	old := filepath.Join(dir, "libonnxruntime.so.1.20.1")
	writeFile(t, old, elf)
	link := filepath.Join(dir, "libonnxruntime.so")
	os.Symlink(filepath.Base(old), link)
	text := filepath.Join(dir, "notes.txt")
	writeFile(t, text, "hello")
	stampDir := filepath.Join(dir, "stamped")
	os.Mkdir(stampDir, 0o755)
	writeFile(t, filepath.Join(stampDir, "libonnxruntime.so"), elf)
	writeFile(t, filepath.Join(stampDir, "VERSION"), "1.22.0\n")
	okDir := filepath.Join(dir, "ok")
	os.Mkdir(okDir, 0o755)
	writeFile(t, filepath.Join(okDir, "libonnxruntime.so.1.24.3"), elf)
	for _, c := range []struct {
		path string
		want string // "" = accepted
	}{
		{filepath.Join(dir, "missing.so"), "no such file"},
		{dir, "is a directory"},
		{text, "not a shared library"},
		{link, "version 1.20.1"},
		{filepath.Join(stampDir, "libonnxruntime.so"), "version 1.22.0"},
		{filepath.Join(okDir, "libonnxruntime.so.1.24.3"), ""},
	} {
		err := checkLibraryFile(c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want accepted", c.path, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: err = %v, want %q", c.path, err, c.want)
		}
	}
}

func TestResolveLibrary(t *testing.T) {
	t.Setenv(EnvLibraryPath, "/opt/x/libonnxruntime.so")
	if p, err := ResolveLibrary(""); err != nil || p != "/opt/x/libonnxruntime.so" {
		t.Errorf("ResolveLibrary with $%s = %q %v", EnvLibraryPath, p, err)
	}
	if p, _ := ResolveLibrary("/a/b.so"); p != "/a/b.so" {
		t.Errorf("explicit path resolved to %q", p)
	}
}

// TestResolveLibraryNotFound: with no path, no $ONNXRUNTIME_LIB and no
// library above the working directory, the error lists the places searched
// (it used to drop them: the list was built and never used), the working
// directory's own candidate and its parent's included, each once.
func TestResolveLibraryNotFound(t *testing.T) {
	t.Setenv(EnvLibraryPath, "")
	wd := filepath.Join(t.TempDir(), "a", "b")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(wd)
	_, err := ResolveLibrary("")
	if err == nil {
		t.Skip("a library exists above the test's folders")
	}
	msg := err.Error()
	_, list, ok := strings.Cut(msg, "working directory: ")
	if !ok {
		t.Fatalf("error lists no places: %s", msg)
	}
	count := map[string]int{}
	for _, p := range strings.Split(strings.TrimSuffix(list, ")"), ", ") {
		count[p]++
	}
	for _, dir := range []string{wd, filepath.Dir(wd), "/"} {
		if p := filepath.Join(dir, DefaultLibraryRel); count[p] != 1 {
			t.Errorf("error names %s %d times, want once: %s", p, count[p], msg)
		}
	}
}

func TestVersionCompare(t *testing.T) {
	for _, c := range []struct {
		v    string
		want bool
	}{{"1.24.3", true}, {"1.24", true}, {"1.25.0", true}, {"2.0.0", true}, {"1.23.9", false}, {"1.9.0", false}} {
		if got := versionAtLeast(c.v, MinRuntimeVersion); got != c.want {
			t.Errorf("versionAtLeast(%q) = %v", c.v, got)
		}
	}
}

// TestInitSecondLibrary: once initialised, naming another library is an
// error, the same one (or "") is fine.
func TestInitSecondLibrary(t *testing.T) {
	needRuntime(t)
	lib, ver := RuntimeInfo()
	if !versionAtLeast(ver, MinRuntimeVersion) {
		t.Errorf("loaded runtime %s < %s", ver, MinRuntimeVersion)
	}
	if err := Init(lib); err != nil {
		t.Errorf("Init(same) = %v", err)
	}
	other := filepath.Join(t.TempDir(), "libonnxruntime.so")
	writeFile(t, other, "\x7fELF")
	if err := Init(other); err == nil || !strings.Contains(err.Error(), "already initialised") {
		t.Errorf("Init(other) = %v, want already initialised", err)
	}
}

// TestGraphIOCheapProbe: graphIO's probe session (optimisations off, one
// thread) reports the same inputs and outputs, names, element types and
// shapes, as onnxruntime_go's GetInputOutputInfo with ONNX Runtime's
// default session (the reference), for use-lite, ce-scifact-tiny and the
// fetched MiniLM exports; a file ONNX Runtime cannot load is an error
// naming it.
func TestGraphIOCheapProbe(t *testing.T) {
	needRuntime(t)
	useLiteDir, _ := useLite(t)
	ceDir, _ := ceTiny(t)
	dirs := []string{useLiteDir, ceDir}
	for _, name := range []string{"all-minilm-l6-v2", "all-minilm-l6-v2-q"} {
		if d := filepath.Join(testenv.RepoRoot(), "models", name); fileExists(filepath.Join(d, ModelFile)) {
			dirs = append(dirs, d)
		}
	}
	for _, dir := range dirs {
		p := filepath.Join(dir, ModelFile)
		ins, outs, err := graphIO(p)
		if err != nil {
			t.Fatal(err)
		}
		ri, ro, err := ort.GetInputOutputInfo(p)
		if err != nil {
			t.Fatal(err)
		}
		var wantIn, wantOut []TensorInfo
		for _, i := range ri {
			wantIn = append(wantIn, infoOf(i))
		}
		for _, o := range ro {
			wantOut = append(wantOut, infoOf(o))
		}
		if diff := cmp.Diff(wantIn, ins); diff != "" {
			t.Errorf("%s inputs (-default session +graphIO):\n%s", p, diff)
		}
		if diff := cmp.Diff(wantOut, outs); diff != "" {
			t.Errorf("%s outputs (-default session +graphIO):\n%s", p, diff)
		}
	}
	bad := filepath.Join(t.TempDir(), "model.onnx")
	writeFile(t, bad, "not a protobuf")
	if _, _, err := graphIO(bad); err == nil || !strings.Contains(err.Error(), bad+": not a loadable ONNX model") {
		t.Errorf("garbage model: err %v, want %q", err, bad+": not a loadable ONNX model")
	}
}
