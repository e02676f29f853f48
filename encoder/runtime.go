package encoder

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// MinRuntimeVersion is the oldest ONNX Runtime release that
// github.com/yalue/onnxruntime_go v1.27.0 can use: it asks the library for
// C API version 24, which ONNX Runtime 1.24 introduced.
const MinRuntimeVersion = "1.24"

// EnvLibraryPath is the environment variable that names the ONNX Runtime
// shared library when Init is given no path.
const EnvLibraryPath = "ONNXRUNTIME_LIB"

// DefaultLibraryRel is where scripts/install-onnxruntime.sh installs the
// library, relative to the repository root.
const DefaultLibraryRel = "third_party/onnxruntime/libonnxruntime.so"

// runtimeState guards the process-wide ONNX Runtime environment, which
// onnxruntime_go keeps in package globals.
var runtimeState struct {
	mu      sync.Mutex // guards the fields below and ort's global init
	libPath string     // resolved library path once initialised
	version string     // ort.GetVersion() once initialised
}

// Init loads the ONNX Runtime shared library and creates the process-wide
// environment. It is idempotent: later calls with the same library (or with
// "") return nil; a call naming a different library after a successful Init
// returns an error, since one process can hold only one runtime.
//
// libPath "" means $ONNXRUNTIME_LIB, then the project-local default
// third_party/onnxruntime/libonnxruntime.so searched upward from the
// executable's folder and from the working directory.
//
// Before handing the file to the dynamic loader, Init checks that it exists,
// is a regular ELF/Mach-O/PE file, and, when the version can be read from
// the file (its versioned name, a VERSION file beside it, or the version
// string embedded in the binary), that it is at least MinRuntimeVersion. A
// library the loader rejects or that lacks C API 24 yields an error
// naming the file; it never crashes the process.
func Init(libPath string) error {
	runtimeState.mu.Lock()
	defer runtimeState.mu.Unlock()
	resolved, err := ResolveLibrary(libPath)
	if err != nil {
		return err
	}
	if ort.IsInitialized() {
		if libPath != "" && !sameFile(resolved, runtimeState.libPath) {
			return fmt.Errorf("onnxruntime: already initialised with %s; cannot switch to %s in the same process", runtimeState.libPath, resolved)
		}
		return nil
	}
	if err := checkLibraryFile(resolved); err != nil {
		return err
	}
	ort.SetSharedLibraryPath(resolved)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("onnxruntime: cannot initialise %s (need ONNX Runtime >= %s with C API 24; run scripts/install-onnxruntime.sh): %w", resolved, MinRuntimeVersion, err)
	}
	runtimeState.libPath = resolved
	runtimeState.version = ort.GetVersion()
	if v, ok := parseVersion(runtimeState.version); ok && !versionAtLeast(v, MinRuntimeVersion) {
		_ = ort.DestroyEnvironment()
		return fmt.Errorf("onnxruntime: %s is version %s; need >= %s (run scripts/install-onnxruntime.sh)", resolved, runtimeState.version, MinRuntimeVersion)
	}
	return nil
}

// RuntimeInfo reports the loaded library's path and version string (as
// OrtGetApiBase()->GetVersionString returns it, e.g. "1.24.3"). Both are ""
// before a successful Init.
func RuntimeInfo() (libPath, version string) {
	runtimeState.mu.Lock()
	defer runtimeState.mu.Unlock()
	return runtimeState.libPath, runtimeState.version
}

// ResolveLibrary returns the library path Init would load for libPath,
// without loading it: libPath itself when non-empty, else $ONNXRUNTIME_LIB,
// else the first existing DefaultLibraryRel found in the executable's folder
// or the working directory or any of their parents. The error lists the
// places searched (each path once, in search order).
func ResolveLibrary(libPath string) (string, error) {
	if libPath != "" {
		return filepath.Abs(libPath)
	}
	if env := os.Getenv(EnvLibraryPath); env != "" {
		return filepath.Abs(env)
	}
	var starts, tried []string
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	seen := map[string]bool{}
	for _, dir := range starts {
		for {
			p := filepath.Join(dir, DefaultLibraryRel)
			if !seen[p] {
				seen[p] = true
				tried = append(tried, p)
			}
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", fmt.Errorf("onnxruntime: library not found: pass --onnxruntime, set $%s, or run scripts/install-onnxruntime.sh (looked for %s above the executable and working directory: %s)", EnvLibraryPath, DefaultLibraryRel, strings.Join(tried, ", "))
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	return os.SameFile(sa, sb)
}

// checkLibraryFile rejects, before dlopen, files that are missing, not a
// shared library, or visibly older than MinRuntimeVersion.
func checkLibraryFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("onnxruntime: library %s: %w (run scripts/install-onnxruntime.sh or set $%s)", path, errors.Unwrap(err), EnvLibraryPath)
	}
	if st.IsDir() {
		return fmt.Errorf("onnxruntime: library %s is a directory, not a shared library file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("onnxruntime: library %s: %w", path, err)
	}
	defer f.Close()
	magic := make([]byte, 4)
	if _, err := io.ReadFull(f, magic); err != nil {
		return fmt.Errorf("onnxruntime: library %s: too short to be a shared library (%d bytes)", path, st.Size())
	}
	switch {
	case bytes.Equal(magic, []byte{0x7f, 'E', 'L', 'F'}): // Linux
	case bytes.Equal(magic[:2], []byte{'M', 'Z'}): // Windows
	case bytes.Equal(magic, []byte{0xcf, 0xfa, 0xed, 0xfe}), bytes.Equal(magic, []byte{0xca, 0xfe, 0xba, 0xbe}): // macOS
	default:
		return fmt.Errorf("onnxruntime: library %s is not a shared library (starts with % x)", path, magic)
	}
	if v, src := fileVersion(path); v != "" {
		if !versionAtLeast(v, MinRuntimeVersion) {
			return fmt.Errorf("onnxruntime: library %s is version %s (from %s); onnxruntime_go v1.27.0 needs >= %s (C API 24): run scripts/install-onnxruntime.sh", path, v, src, MinRuntimeVersion)
		}
	}
	return nil
}

var versionSuffix = regexp.MustCompile(`\.so\.(\d+\.\d+(?:\.\d+)?)$|-(\d+\.\d+\.\d+)\.dylib$`)

// fileVersion reads a library version without loading it: from the name the
// path resolves to (libonnxruntime.so.1.24.3), or from a VERSION file beside
// it (written by scripts/install-onnxruntime.sh). It returns "" when neither
// says.
func fileVersion(path string) (version, source string) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		if m := versionSuffix.FindStringSubmatch(filepath.Base(real)); m != nil {
			v := m[1]
			if v == "" {
				v = m[2]
			}
			return v, "file name " + filepath.Base(real)
		}
	}
	stamp := filepath.Join(filepath.Dir(path), "VERSION")
	if b, err := os.ReadFile(stamp); err == nil {
		v := strings.TrimSpace(string(b))
		if _, ok := parseVersion(v); ok {
			return v, stamp
		}
	}
	return "", ""
}

// parseVersion parses "major.minor[.patch]" (a suffix after '-' or '+' is
// ignored).
func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "-+ "); i >= 0 {
		s = s[:i]
	}
	parts := strings.Split(s, ".")
	if len(parts) < 2 || len(parts) > 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

func versionAtLeast(v any, min string) bool {
	var have [3]int
	switch x := v.(type) {
	case string:
		p, ok := parseVersion(x)
		if !ok {
			return true
		}
		have = p
	case [3]int:
		have = x
	}
	want, _ := parseVersion(min)
	for i := range have {
		if have[i] != want[i] {
			return have[i] > want[i]
		}
	}
	return true
}
