package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ragbench/ragbench/kinds"
)

// RetrieverConfig is one named retriever: its name, its type (a kind of
// the kinds registry) and that kind's settings. In the YAML file and in
// results.json it is one flat object — name, type, then the settings' keys
// in the kind's order — as it was when one struct held every kind's
// fields; that shape is part of results.json's contract.
type RetrieverConfig struct {
	// Name identifies the retriever in cell names, file names and the
	// inputs of other retrievers: letters, digits, '-', '_', '.'.
	Name string
	// Type is the kind: bm25, dense, hybrid, rerank, elasticsearch or
	// opensearch (kinds.Names).
	Type string
	// Settings are the kind's settings, defaults filled by Load; nil for
	// a type no kind has (Load then fails), or for a retriever of a kind
	// this version does not know read back from a results.json.
	Settings kinds.Settings

	// gridKeys are the keys given as lists (grids), in file order.
	gridKeys []string
	// raw is the JSON of a retriever of a kind this version does not
	// know, read back from a results.json and written back as it was.
	raw json.RawMessage
}

// InputNames are the retrievers r reads (kinds.Staged), none for a first
// stage.
func (r RetrieverConfig) InputNames() []string {
	if s, ok := r.Settings.(kinds.Staged); ok {
		return s.InputNames()
	}
	return nil
}

// Describe is report.md's one-line summary of r's settings.
func (r RetrieverConfig) Describe() string {
	if r.Settings == nil {
		return ""
	}
	return r.Settings.Describe()
}

// Model is r's model folder, resolved ("" for a kind without one).
func (r RetrieverConfig) Model() string { return kinds.ModelOf(r.Settings) }

// namePart is the name and type of a retriever, as decoded and written.
type namePart struct {
	Name string `yaml:"name" json:"name"`
	Type string `yaml:"type" json:"type"`
}

// UnmarshalYAML decodes a retriever strictly: a key no kind has is an
// unknown field, as for the rest of the config; a key of the retriever's
// kind goes into its settings; a key of another kind is decoded (so that
// a wrongly typed value is named) and reported by the check as not
// applying; a list given where the key holds one value — or a list of
// lists for weights — is a grid (kinds.TuneGrid), which the check reports
// on a key or kind that is not tuned.
func (r *RetrieverConfig) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		type plain namePart // errors name it "plain", as they always have
		return n.Decode(new(plain))
	}
	pairs, badMerge := mergedPairs(n) // {<<: *r, name: bm25b}
	if badMerge != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: <<: a merge key takes an anchored mapping (<<: *name) or a list of them", badMerge.Line)}}
	}
	n = &yaml.Node{Kind: yaml.MappingNode, Tag: n.Tag, Line: n.Line, Column: n.Column, Content: pairs}
	var head namePart
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "type" {
			n.Content[i+1].Decode(&head.Type) // a type error is reported below
		}
	}
	r.Type = head.Type
	if k, ok := kinds.Lookup(r.Type); ok {
		r.Settings = k.New()
	}
	var grid kinds.TuneGrid
	tuned := false
	var keyErrs, valueErrs []string // unknown keys and grids first, as yaml.v3 decoded them
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		var into any
		switch k.Value {
		case "name", "type":
			if kinds.IsGridNode(reflect.TypeFor[string](), k.Value, v) {
				r.gridKeys = append(r.gridKeys, k.Value) // reported as a grid, as any list given for one value
				continue
			}
			into = &head
		default:
			owner, f, ok := kinds.KeyField(r.Settings, k.Value)
			if !ok {
				keyErrs = append(keyErrs, fmt.Sprintf("line %d: field %s not found in type config.RetrieverConfig", k.Line, k.Value))
				continue
			}
			if kinds.IsGridNode(f.Type, k.Value, v) {
				r.gridKeys = append(r.gridKeys, k.Value)
				t, terrs, err := grid.DecodeAxis(k.Value, v)
				if err != nil {
					return err
				}
				tuned = tuned || t
				keyErrs = append(keyErrs, terrs...)
				continue
			}
			into = owner
		}
		pair := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Line: n.Line, Column: n.Column, Content: []*yaml.Node{k, v}}
		if err := pair.Decode(into); err != nil {
			te, ok := err.(*yaml.TypeError)
			if !ok {
				return err
			}
			valueErrs = append(valueErrs, te.Errors...)
		}
	}
	r.Name = head.Name
	if t, ok := r.Settings.(kinds.Tunable); ok && tuned {
		t.SetGrid(&grid)
	}
	if errs := append(keyErrs, valueErrs...); len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	return nil
}

// MarshalJSON writes r as results.json holds it: {"name", "type", then
// the settings' keys} (a retriever of an unknown kind read back: as it
// was read).
func (r RetrieverConfig) MarshalJSON() ([]byte, error) {
	if r.raw != nil {
		return r.raw, nil
	}
	head, err := marshalNoEscape(namePart{r.Name, r.Type})
	if err != nil || r.Settings == nil {
		return head, err
	}
	body, err := marshalNoEscape(r.Settings)
	if err != nil {
		return nil, err
	}
	if string(body) == "{}" {
		return head, nil
	}
	// {"name":…,"type":…} + {"k1":…} → {"name":…,"type":…,"k1":…}
	return append(append(head[:len(head)-1], ','), body[1:]...), nil
}

// marshalNoEscape is json.Marshal without HTML escaping: the encoder that
// calls MarshalJSON escapes the result itself when it escapes HTML
// (json.Marshal), and leaves it when it does not (results.json).
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads a retriever of results.json (MarshalJSON's form,
// also as earlier versions wrote it): its kind's settings from the keys
// after name and type; a kind this version does not know is kept as
// written.
func (r *RetrieverConfig) UnmarshalJSON(b []byte) error {
	var head namePart
	if err := json.Unmarshal(b, &head); err != nil {
		return err
	}
	*r = RetrieverConfig{Name: head.Name, Type: head.Type}
	k, ok := kinds.Lookup(head.Type)
	if !ok {
		r.raw = append(json.RawMessage(nil), b...)
		return nil
	}
	r.Settings = k.New()
	return json.Unmarshal(b, r.Settings)
}

// retrieverCheck is the kinds.Checker of retriever r at dotted field f
// ("retrievers.2").
type retrieverCheck struct {
	ck *configCheck
	f  string
	r  *RetrieverConfig
}

func (c *retrieverCheck) key(k string) string {
	if k == "" {
		return c.f
	}
	return c.f + "." + k
}

func (c *retrieverCheck) Type() string { return c.r.Type }

func (c *retrieverCheck) Bad(key, format string, a ...any) { c.ck.bad(c.key(key), format, a...) }

func (c *retrieverCheck) Has(key string) bool { return c.ck.has(c.key(key)) }

func (c *retrieverCheck) Null(key string) bool { return isNull(c.ck.root, c.key(key)) }

func (c *retrieverCheck) Explicit(key string, zero bool, format string, a ...any) {
	c.ck.explicit(c.key(key), zero, format, a...)
}

func (c *retrieverCheck) Only(allowed ...string) {
	for _, k := range kinds.Keys() {
		if c.Has(k) && !slices.Contains(allowed, k) {
			c.Bad(k, "does not apply to type %s", c.r.Type)
		}
	}
}

func (c *retrieverCheck) GridKeys() []string { return c.r.gridKeys }

// retrievers checks names, each retriever by its kind (grids first), then
// references.
func (ck *configCheck) retrievers() {
	c := ck.c
	if len(c.Retrievers) == 0 {
		ck.bad("retrievers", "missing: give at least one retriever (e.g. - {name: bm25, type: bm25})")
	}
	names := map[string]int{}
	for i := range c.Retrievers {
		r := &c.Retrievers[i]
		f := fmt.Sprintf("retrievers.%d", i)
		if !nameRe.MatchString(r.Name) {
			ck.bad(f+".name", "name %q: use letters, digits, '.', '-', '_'", r.Name)
		} else if j, dup := names[r.Name]; dup {
			ck.bad(f+".name", "duplicate name %q (also retrievers[%d])", r.Name, j)
		}
		names[r.Name] = i
		rc := &retrieverCheck{ck: ck, f: f, r: r}
		kinds.CheckGridKeys(rc, r.Settings)
		if r.Settings == nil {
			ck.bad(f+".type", "%s", kinds.TypeError(r.Type))
			continue
		}
		r.Settings.Check(rc)
	}
	ck.references(names)
}

// references checks inputs: defined, not itself, not twice, and defined
// earlier (so the config order is an evaluation order and has no cycle).
func (ck *configCheck) references(names map[string]int) {
	for i, r := range ck.c.Retrievers {
		st, ok := r.Settings.(kinds.Staged)
		if !ok {
			continue
		}
		field := fmt.Sprintf("retrievers.%d.%s", i, st.InputKey())
		seen := map[string]bool{}
		for _, in := range st.InputNames() {
			j, ok := names[in]
			switch {
			case !ok:
				ck.bad(field, "unknown retriever %q (defined: %s)", in, strings.Join(slices.Sorted(maps.Keys(names)), ", "))
			case in == r.Name:
				ck.bad(field, "retriever %q cannot take itself as input", in)
			case seen[in]:
				ck.bad(field, "retriever %q listed twice", in)
			case j > i:
				ck.bad(field, "retriever %q must be defined before %q", in, r.Name)
			}
			seen[in] = true
		}
	}
}

// retrieverEmpty reports, on every retriever, each key written with an
// empty value (0, "", []) that a kind gives a message for
// (kinds.EmptyMessage), whatever the retriever's type: such a value would
// otherwise read as absent and silently become the default.
func (ck *configCheck) retrieverEmpty() {
	for i, n := range retrieverNodes(ck.root) {
		for j := 0; j+1 < len(n.Content); j += 2 {
			key, v := n.Content[j].Value, n.Content[j+1]
			msg, t, ok := kinds.EmptyMessage(key)
			if !ok {
				continue
			}
			ck.explicit(fmt.Sprintf("retrievers.%d.%s", i, key), zeroNode(v, t), "%s", msg)
		}
	}
}

// retrieverNodes are the mapping nodes of the retrievers list, in order
// (nil for an item that is not a mapping).
func retrieverNodes(root *yaml.Node) []*yaml.Node {
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != "retrievers" || n.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		var out []*yaml.Node
		for _, item := range n.Content[i+1].Content {
			if item.Kind == yaml.AliasNode && item.Alias != nil {
				item = item.Alias
			}
			if item.Kind != yaml.MappingNode {
				item = &yaml.Node{Kind: yaml.MappingNode}
			}
			pairs, _ := mergedPairs(item)
			out = append(out, &yaml.Node{Kind: yaml.MappingNode, Tag: item.Tag, Line: item.Line, Column: item.Column, Content: pairs})
		}
		return out
	}
	return nil
}

// zeroNode reports whether v decodes into a zero value of type t (an
// empty list counts as zero).
func zeroNode(v *yaml.Node, t reflect.Type) bool {
	p := reflect.New(t)
	if v.Decode(p.Interface()) != nil {
		return false
	}
	e := p.Elem()
	if e.Kind() == reflect.Slice {
		return e.Len() == 0
	}
	return e.IsZero()
}

// retrieverKeyType is the Go type of each key of the retriever mapping n,
// by its type's kind (checkNumbers).
func retrieverKeyType(n *yaml.Node) func(string) (reflect.Type, bool) {
	var s kinds.Settings
	pairs, _ := mergedPairs(n)
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i].Value == "type" {
			if k, ok := kinds.Lookup(pairs[i+1].Value); ok {
				s = k.New()
			}
		}
	}
	return func(key string) (reflect.Type, bool) {
		if key == "name" || key == "type" {
			return reflect.TypeFor[string](), true
		}
		_, f, ok := kinds.KeyField(s, key)
		return f.Type, ok
	}
}
