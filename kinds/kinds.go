// Package kinds is the registry of the retriever kinds of a sweep (the
// type of a retriever in a bench run config): bm25, dense, hybrid, rerank,
// elasticsearch, opensearch, and run and http (a pipeline's own passages:
// a run file, a retriever service; passages.go). Each kind is one file of this package and
// one line of registry.go; the file holds everything ragbench knows about
// the kind:
//
//   - its settings: the config keys beside name and type (a struct whose
//     yaml tags are the YAML keys and whose json tags are the keys of the
//     retriever object in results.json, in the order results.json writes
//     them; an `empty` tag is the message for a value written empty, see
//     EmptyMessage);
//   - Check: its defaults and checks, validated by its package's own
//     Options.Validate (bm25, hybrid, rerank, engine), each problem reported
//     on the key at fault through a Checker;
//   - the conversion to its package's Options (what is checked is what runs);
//   - Describe: report.md's one-line summary;
//   - NeedsRuntime (ONNX Runtime must load before any work) and Cacheable
//     (the run cache may serve the cell);
//   - Run: how a cell's chunk-level run is made (Cell), with its timings.
//
// Optional interfaces say what only some kinds do: Staged (a run made from
// other retrievers' runs: hybrid, rerank), Modeled (an ONNX model folder:
// dense, rerank, engine vector queries), Tunable (grids in place of values:
// hybrid, rerank), Reorderer (rerank's recall ceiling), Preflighter and
// Dialer (engines' credentials and clusters), TimingNoter, CacheKeyed,
// Pathed and Deep; a first stage's retriever may be Failing (queries
// scored as misses after errors) and Loading (documents it indexed).
//
// The config (package config) decodes and checks a retriever through this
// registry, the sweep runs its cells through it, and the reports describe
// it through it: no other package tests a retriever's type. Adding a kind
// is a file here (its settings type implementing Settings) and its line in
// registry.go.
package kinds

import (
	"context"
	"fmt"
	"reflect"
	"strings"
)

// Settings are one retriever's kind-specific settings: the fields of its
// config entry besides name and type. Each kind's settings type (a pointer
// to its struct) implements Settings; the registry's New makes an empty one
// to decode into.
type Settings interface {
	// Check fills the defaults and validates the settings once the YAML
	// is decoded, reporting each problem on c (the key at fault, relative
	// to the retriever). It does not touch files (the sweep's preflight
	// does).
	Check(c Checker)
	// Describe is report.md's one-line summary of the checked settings
	// (what was measured, never where: no URL, no credential).
	Describe() string
	// NeedsRuntime reports whether the retriever runs an ONNX model, so
	// that ONNX Runtime is found and loaded before any work.
	NeedsRuntime() bool
	// Cacheable reports whether the cell's run may be read from and
	// written to the run cache (false when the same config can give
	// another run, e.g. a user's engine index that may change).
	Cacheable() bool
	// Run makes the cell's chunk-level run into c.Run, with its timings
	// and counters in c.Stats, reporting its stages on c.Progress. Errors
	// are the kind's, wrapped with the retriever's name where useful.
	Run(ctx context.Context, c *Cell) error
}

// Checker is what a kind's Check reports to (package config implements
// it): keys are relative to the retriever ("alpha", "urls.1"; "" is the
// retriever itself), and errors carry the config's file and line.
type Checker interface {
	// Type is the retriever's type as written (for messages).
	Type() string
	// Bad records an error on key (the first error of a key is kept).
	Bad(key, format string, a ...any)
	// Has reports whether key is written in the config.
	Has(key string) bool
	// Null reports whether key is written as an explicit null.
	Null(key string) bool
	// Explicit reports format on key when the file writes key with a zero
	// value (0, "", []) that the decoded settings cannot tell from an
	// absent key, unless key holds a grid.
	Explicit(key string, zero bool, format string, a ...any)
	// Only reports every key written for this retriever that is a key of
	// some kind but not one of allowed: "does not apply to type T".
	Only(allowed ...string)
	// GridKeys are the keys given as grids (lists in place of values).
	GridKeys() []string
}

// Staged is implemented by the kinds whose run is made from other
// retrievers' runs (hybrid fuses its inputs, rerank reorders its input).
// The config checks that the inputs exist and come earlier; the sweep
// hands their runs to Run in Cell.Inputs.
type Staged interface {
	Settings
	// InputNames are the input retrievers' names, in order.
	InputNames() []string
	// InputKey is the config key that names them ("inputs", "input").
	InputKey() string
	// withoutInputs is a copy with the input names cleared, for the run
	// cache's key (which holds the inputs' own keys instead).
	withoutInputs() Settings
}

// WithoutInputs is s with its input names cleared (s itself when s reads
// no other retriever): the run cache keys a cell by its settings without
// them, and by its inputs' own keys.
func WithoutInputs(s Settings) Settings {
	if st, ok := s.(Staged); ok {
		return st.withoutInputs()
	}
	return s
}

// Modeled is implemented by the kinds that run an ONNX model folder.
type Modeled interface {
	Settings
	// ModelRef is the settings' model fields (nil model: none needed),
	// which config.Load resolves against the model roots.
	ModelRef() *ONNXModel
	// ModelKind is the kind of model the folder must hold
	// (encoder.KindEmbedder or encoder.KindCrossEncoder).
	ModelKind() string
}

// ModelOf is s's model folder ("" when s runs no model).
func ModelOf(s Settings) string {
	if m, ok := s.(Modeled); ok {
		return m.ModelRef().Model
	}
	return ""
}

// Reorderer is implemented by the kinds that reorder the top of one input
// (rerank): they can never find what the input's top Depth lacks, so the
// report draws that input's recall at Depth as their ceiling.
type Reorderer interface {
	Reorders() (input string, depth int)
}

// Deep is implemented by the kinds that read deeper into their inputs'
// runs than the sweep's depth (hybrid, rerank): the sweep searches every
// first stage at least ChunkDepth deep.
type Deep interface {
	ChunkDepth() int
}

// CacheKeyed is implemented by kinds whose run-cache key needs parts of
// its own besides the settings (so that runs an older ragbench cached
// under the same settings are never read back).
type CacheKeyed interface {
	CacheKeyParts() map[string]string
}

// Noter is implemented by kinds whose Run may set Cell.Notes (hybrid: the
// lists a normalisation found flat). A run of such a kind read from the run
// cache comes with the notes cached beside it; where they are missing (a
// run cached by an earlier ragbench) the run is made again.
type Noter interface {
	NotesRun()
}

// TimingNoter is implemented by kinds whose timings need explaining under
// report.md's timing table (once per distinct note).
type TimingNoter interface {
	TimingNote() string
}

// Pathed is implemented by kinds with file paths in their settings, which
// config.Load resolves against the config's folder.
type Pathed interface {
	RelativePaths() []*string
}

// FieldError is a problem on one key of a retriever (relative, "ca_file").
type FieldError struct {
	Key, Msg string
}

// Preflighter is implemented by kinds that need more than files before
// any work: the engines' credential variables (read from the environment,
// never printed) and CA file.
type Preflighter interface {
	// Preflight checks, for the retriever named name, what must hold
	// before any work; credentials says whether the credential variables
	// must be set (not for an offline check).
	Preflight(name string, credentials bool) []FieldError
}

// Kind is one entry of the registry.
type Kind struct {
	// Name is the type as a config writes it.
	Name string
	// New returns empty settings of the kind, to decode a config entry
	// or a results.json retriever into.
	New func() Settings
	// Reference marks the kind of the report's reference cells, "plain
	// BM25": the best cell overall is compared with the best cell of the
	// reference kind (or of any other kind when it is one).
	Reference bool
}

// Lookup returns the registry entry of type name.
func Lookup(name string) (Kind, bool) {
	for _, k := range registry {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// Names lists the types, in registry order, for messages: "bm25, dense,
// hybrid, rerank, elasticsearch, opensearch".
func Names() string {
	names := make([]string, len(registry))
	for i, k := range registry {
		names[i] = k.Name
	}
	return strings.Join(names, ", ")
}

// TypeError is the message for a retriever whose type is missing ("") or
// names no kind: the types to choose from.
func TypeError(name string) string {
	if name == "" {
		return "missing: one of " + Names()
	}
	return fmt.Sprintf("unknown type %q: one of %s", name, Names())
}

// IsReference reports whether type name is the reference kind (see
// Kind.Reference).
func IsReference(name string) bool {
	k, ok := Lookup(name)
	return ok && k.Reference
}

// Keys lists every config key of every kind, in registry order and each
// once: the keys Checker.Only may report, and the only keys a retriever
// entry accepts besides name and type.
func Keys() []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range registry {
		for _, f := range settingsFields(reflect.TypeOf(k.New()).Elem()) {
			if !seen[f.key] {
				seen[f.key] = true
				out = append(out, f.key)
			}
		}
	}
	return out
}

// KeyField is the struct field that key decodes into in settings s when s
// has key, else in the first kind of the registry that has it (ok false:
// no kind has key). Its settings type is returned with it, so that a key
// of another kind can be decoded (and its type errors reported) into an
// empty value of that kind.
func KeyField(s Settings, key string) (owner Settings, f reflect.StructField, ok bool) {
	if s != nil {
		if f, ok := fieldOf(reflect.TypeOf(s).Elem(), key); ok {
			return s, f, true
		}
	}
	for _, k := range registry {
		n := k.New()
		if f, ok := fieldOf(reflect.TypeOf(n).Elem(), key); ok {
			return n, f, true
		}
	}
	return nil, reflect.StructField{}, false
}

// EmptyMessage is the message for key written with an empty value (0,
// "", []) that would otherwise read as absent: the `empty` tag of the
// first kind in the registry whose field key has one. It applies whatever
// the retriever's type, as it did before kinds had files of their own.
func EmptyMessage(key string) (msg string, t reflect.Type, ok bool) {
	for _, k := range registry {
		if f, ok := fieldOf(reflect.TypeOf(k.New()).Elem(), key); ok && f.Tag.Get("empty") != "" {
			return f.Tag.Get("empty"), f.Type, true
		}
	}
	return "", nil, false
}

// field is one config key of a settings struct.
type field struct {
	key string
	sf  reflect.StructField
}

// settingsFields lists the config keys of settings struct t in field order
// (inline structs expanded; yaml:"-" fields left out).
func settingsFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case tag == "-" || !f.IsExported():
		case tag == "" && opts == "inline":
			out = append(out, settingsFields(f.Type)...)
		case tag != "":
			out = append(out, field{tag, f})
		}
	}
	return out
}

func fieldOf(t reflect.Type, key string) (reflect.StructField, bool) {
	for _, f := range settingsFields(t) {
		if f.key == key {
			return f.sf, true
		}
	}
	return reflect.StructField{}, false
}

// keysOf lists the config keys of settings s (a pointer to its struct).
func keysOf(s Settings) []string {
	var out []string
	for _, f := range settingsFields(reflect.TypeOf(s).Elem()) {
		out = append(out, f.key)
	}
	return out
}

// optionField splits a package Validate error ("k1: -1, want ...", see
// bm25.Options.Validate) into the config key and the message; an error
// without a key prefix stays on the retriever itself ("").
func optionField(err error) (key, msg string) {
	name, rest, ok := strings.Cut(err.Error(), ": ")
	if !ok || strings.ContainsAny(name, " \"") {
		return "", err.Error()
	}
	return name, rest
}

func ptr[T any](v T) *T { return &v }

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// wrapName prefixes err with the retriever's name.
func wrapName(name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("retriever %q: %w", name, err)
}
