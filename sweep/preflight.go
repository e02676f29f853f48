package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ragbench/ragbench/encoder"
)

// checkModelKind checks that r's model folder holds the kind of model r's
// type needs: an embedder for dense, a cross-encoder for rerank.
func checkModelKind(r RetrieverConfig) error {
	want := encoder.KindEmbedder
	if r.Type == "rerank" {
		want = encoder.KindCrossEncoder
	}
	kind, how, err := modelKind(r.Model)
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

// modelKind returns a model folder's kind as the encoder package resolves
// it: ragbench.json's "kind" when set, else "cross-encoder" when the ONNX
// graph has an output named "logits", else "embedder". The graph's output
// names are read from the protobuf (onnx.proto: ModelProto field 7 graph;
// GraphProto field 12 output; ValueInfoProto field 1 name), so ONNX
// Runtime is not needed. how says where the kind came from.
func modelKind(dir string) (kind, how string, err error) {
	cfgPath := filepath.Join(dir, encoder.ConfigFile)
	b, err := os.ReadFile(cfgPath)
	switch {
	case err == nil:
		var c struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal(b, &c); err != nil {
			return "", "", fmt.Errorf("%s: %v", cfgPath, err)
		}
		switch c.Kind {
		case encoder.KindEmbedder, encoder.KindCrossEncoder:
			return c.Kind, fmt.Sprintf("%s says kind %q", encoder.ConfigFile, c.Kind), nil
		case "":
		default:
			return "", "", fmt.Errorf("%s: kind %q: want %q or %q", cfgPath, c.Kind, encoder.KindEmbedder, encoder.KindCrossEncoder)
		}
	case !errors.Is(err, os.ErrNotExist):
		return "", "", err
	}
	modelPath := filepath.Join(dir, encoder.ModelFile)
	outs, err := graphOutputs(modelPath)
	if err != nil {
		return "", "", err
	}
	for _, o := range outs {
		if o == "logits" {
			return encoder.KindCrossEncoder, "inferred: its graph has an output named \"logits\"", nil
		}
	}
	return encoder.KindEmbedder, fmt.Sprintf("inferred: its graph's outputs %q include no \"logits\"", outs), nil
}

// graphOutputs reads the output names of an ONNX graph.
func graphOutputs(modelPath string) ([]string, error) {
	b, err := os.ReadFile(modelPath)
	if err != nil {
		return nil, err
	}
	bad := fmt.Errorf("%s: not an ONNX model (cannot read the graph's outputs)", modelPath)
	graph, ok := protoField(b, 7)
	if !ok {
		return nil, bad
	}
	var outs []string
	for len(graph) > 0 {
		num, typ, n := protowire.ConsumeTag(graph)
		if n < 0 {
			return nil, bad
		}
		graph = graph[n:]
		if num == 12 && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(graph)
			if m < 0 {
				return nil, bad
			}
			if name, ok := protoField(v, 1); ok {
				outs = append(outs, string(name))
			}
			graph = graph[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, graph)
		if m < 0 {
			return nil, bad
		}
		graph = graph[m:]
	}
	if len(outs) == 0 {
		return nil, bad
	}
	return outs, nil
}

// protoField returns the first length-delimited field num of message b.
func protoField(b []byte, num protowire.Number) ([]byte, bool) {
	for len(b) > 0 {
		n, typ, k := protowire.ConsumeTag(b)
		if k < 0 {
			return nil, false
		}
		b = b[k:]
		if n == num && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return nil, false
			}
			return v, true
		}
		m := protowire.ConsumeFieldValue(n, typ, b)
		if m < 0 {
			return nil, false
		}
		b = b[m:]
	}
	return nil, false
}

// CheckWritable checks, before any work, that the output folder can be
// created and written (a probe file is created and removed) and, when
// history is true, that the history CSV's folder can be written and an
// existing history file opened for appending. Folders it had to create
// are removed again, so a failed or check-only run leaves nothing behind.
// The cache folder is checked the same way, and an existing non-empty
// output folder must be an earlier bench run's (checkOutputDir), so
// --check and the run refuse the same folders. Errors name the config
// field, the path and what to do.
func (c *Config) CheckWritable(history bool) error {
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
	if history {
		probe("history", filepath.Dir(c.History), "history CSV's folder")
		if fi, err := os.Stat(c.History); err == nil {
			if fi.IsDir() {
				errs = append(errs, c.errf("history", "history CSV %s is a folder; name a file (%s)", c.History, writableHint["history"]))
			} else if f, err := os.OpenFile(c.History, os.O_WRONLY|os.O_APPEND, 0); err != nil {
				errs = append(errs, c.errf("history", "history CSV %s cannot be appended to: %v (%s)", c.History, err, writableHint["history"]))
			} else {
				f.Close()
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
// file in it, then removes the folders it created.
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
