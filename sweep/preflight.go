package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/history"
)

// checkModelKind checks that r's model folder holds the kind of model r's
// type needs: an embedder for dense, a cross-encoder for rerank.
func checkModelKind(r RetrieverConfig) error {
	want := encoder.KindEmbedder
	if r.Type == "rerank" {
		want = encoder.KindCrossEncoder
	}
	kind, how, err := encoder.FolderKind(r.Model)
	if err != nil {
		return fmt.Errorf("retriever %q: %w", r.Name, err)
	}
	if kind == want {
		return nil
	}
	return fmt.Errorf("retriever %q: type %s needs %s model, but %s is %s (%s); use %s model folder, or set \"kind\" in its %s if that is wrong (check it with: bench model check %s)",
		r.Name, r.Type, article(want), r.Model, article(kind), how, article(want), encoder.ConfigFile, r.Model)
}

// article is "an embedder" or "a cross-encoder".
func article(kind string) string {
	if kind == encoder.KindEmbedder {
		return "an " + kind
	}
	return "a " + kind
}

// CheckWritable checks, before any work, that the output folder can be
// created and written (a probe file is created and removed) and, when
// withHistory is true, that the history CSV's folder can be written and an
// existing history file opened for appending and parsed (history.Read).
// Folders it had to create are removed again, so a failed or check-only
// run leaves nothing behind.
// The cache folder is checked the same way, and an existing non-empty
// output folder must be an earlier bench run's (checkOutputDir), so
// --check and the run refuse the same folders. Errors name the config
// field, the path and what to do.
func (c *Config) CheckWritable(withHistory bool) error {
	var errs []error
	probe := func(field, dir, what string) {
		if err := probeDir(dir); err != nil {
			errs = append(errs, c.errf(field, "%s %s is not writable: %v; choose another folder (%s)", what, dir, err, writableHint[field]))
		}
	}
	probe("output", c.Output, "output folder")
	if len(errs) == 0 {
		if err := checkOutputDir(c.Output); err != nil {
			errs = append(errs, err) // a foreign non-empty folder
		}
	}
	probe("cache_dir", c.CacheDir, "cache folder")
	if withHistory {
		probe("history", filepath.Dir(c.History), "history CSV's folder")
		if fi, err := os.Stat(c.History); err == nil {
			if fi.IsDir() {
				errs = append(errs, c.errf("history", "history CSV %s is a folder; name a file (%s)", c.History, writableHint["history"]))
			} else if f, err := os.OpenFile(c.History, os.O_WRONLY|os.O_APPEND, 0); err != nil {
				errs = append(errs, c.errf("history", "history CSV %s cannot be appended to: %v (%s)", c.History, err, writableHint["history"]))
			} else {
				f.Close()
				// Parsed now, not when the row is appended after every
				// cell ran: a damaged file stops the run before any work.
				if _, err := history.Read(c.History); err != nil {
					errs = append(errs, fmt.Errorf("%w (fix or move the file, or run with --no-history)", err))
				}
			}
		}
	}
	return errors.Join(errs...)
}

var writableHint = map[string]string{
	"output":    "--output, or output in the config",
	"cache_dir": "--cache-dir, cache_dir in the config, or $RAGBENCH_CACHE_DIR",
	"history":   "--history, history in the config, or --no-history",
}

// probeDir creates dir (and missing parents), writes and removes a probe
// file in it, then removes the folders it created. A dangling symbolic
// link on the way is an error naming it (and is left alone).
func probeDir(dir string) error {
	var created []string
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s is a file, not a folder", d)
			}
			break
		}
		if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return unwrapPath(err)
		}
		// A symbolic link to nothing: MkdirAll would fail on it ("file
		// exists") and the cleanup below would remove the user's link.
		if target, lerr := os.Readlink(d); lerr == nil {
			return fmt.Errorf("%s is a symbolic link to %s, which does not exist", d, target)
		}
		created = append(created, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	defer func() {
		for _, d := range created { // deepest first; only empty folders go
			os.Remove(d)
		}
	}()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return unwrapPath(err)
	}
	f, err := os.CreateTemp(dir, ".bench-probe-*")
	if err != nil {
		return unwrapPath(err)
	}
	name := f.Name()
	_, werr := f.Write([]byte("probe\n"))
	cerr := f.Close()
	os.Remove(name)
	return errors.Join(unwrapPath(werr), unwrapPath(cerr))
}

// unwrapPath drops the *PathError's path, which the caller names already.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
