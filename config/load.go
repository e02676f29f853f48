package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ragbench/ragbench/internal/srcpos"
)

// Load reads a config file strictly (unknown fields are errors naming the
// line), fills defaults, resolves relative paths and validates values. It
// does not check that files exist: sweep.Check does, before any work.
func Load(path string, opts LoadOptions) (*Config, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	cfg, err := parse(abs, data, opts)
	if err != nil {
		return nil, err
	}
	if err := cfg.resolve(opts); err != nil {
		return nil, err
	}
	return cfg, nil
}

var (
	lineRe      = regexp.MustCompile(`^line (\d+): (.*)$`)
	unmarshalRe = regexp.MustCompile("^cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)$")
)

func parse(file string, data []byte, opts LoadOptions) (*Config, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &srcpos.Error{File: file, Msg: "empty config file"}
		}
		return nil, yamlErr(file, data, nil, err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, &srcpos.Error{File: file, Line: next.Line, Msg: "a second YAML document (after ---): a config is one document; remove it or merge it into the first"}
	} else if !errors.Is(err, io.EOF) {
		return nil, yamlErr(file, data, nil, err)
	}
	var cfg Config
	dec = yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, yamlErr(file, data, &root, err)
		}
		// yaml.v3 decodes every value it can past a type error (an
		// unknown field, a string for a number): those are checked in the
		// same pass, so that one run of bench run --check lists every
		// fault of the file, not the type errors first and the values on
		// the next try.
		cfg.path = file
		cfg.spanLabels = cfg.detectSpanLabels(opts)
		return nil, withValueErrors(file, yamlErr(file, data, &root, err), cfg.checkPartial(&root))
	}
	cfg.path = file
	// The metrics default and the checks of primary_metric and
	// significance.metrics depend on whether the labels are spans, so that
	// is known before check.
	cfg.spanLabels = cfg.detectSpanLabels(opts)
	if err := cfg.check(&root); err != nil {
		return nil, err
	}
	return &cfg, nil
}

// checkPartial is check on a config yaml.v3 decoded only partly (a type
// error): nil if check fails on the values left zero (its errors are then
// the type errors' consequences, not faults of their own).
func (c *Config) checkPartial(root *yaml.Node) (err error) {
	defer func() {
		if recover() != nil {
			err = nil
		}
	}()
	return c.check(root)
}

// withValueErrors merges typeErr, yamlErr's "file:line: …" lines, and
// valueErr, check's errors on the partly decoded config, in file order:
// a value error on a line that has a type error is left out (the value
// did not decode: its check would report the zero left in its place).
func withValueErrors(file string, typeErr, valueErr error) error {
	if valueErr == nil {
		return typeErr
	}
	type msg struct {
		line int
		text string
	}
	lineOf := regexp.MustCompile(`^` + regexp.QuoteMeta(file) + `:(\d+):`)
	var msgs []msg
	typeLines := map[int]bool{}
	for _, t := range strings.Split(typeErr.Error(), "\n") {
		n := 0
		if m := lineOf.FindStringSubmatch(t); m != nil {
			n, _ = strconv.Atoi(m[1])
		}
		typeLines[n] = true
		msgs = append(msgs, msg{n, t})
	}
	var errs []error
	if j, ok := valueErr.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	} else {
		errs = []error{valueErr}
	}
	for _, e := range errs {
		var se *srcpos.Error
		if !errors.As(e, &se) || se.Line <= 0 || typeLines[se.Line] {
			continue
		}
		msgs = append(msgs, msg{se.Line, e.Error()})
	}
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].line < msgs[j].line })
	texts := make([]string, len(msgs))
	for i, m := range msgs {
		texts[i] = m.text
	}
	return errors.New(strings.Join(texts, "\n"))
}

// yamlErr turns yaml.v3's errors into file:line: field: messages: "yaml:
// unmarshal errors:\n  line 3: field x not found in type sweep.Config"
// becomes "file:3: x: unknown field", "line 4: cannot unmarshal !!str `abc`
// into int" becomes "file:4: k[1]: not an integer: abc" (the field found
// in root), and a syntax error keeps its line and says what a tab is.
func yamlErr(file string, data []byte, root *yaml.Node, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		var msgs []string
		for _, e := range te.Errors {
			m := lineRe.FindStringSubmatch(e)
			if m == nil {
				msgs = append(msgs, file+": "+e)
				continue
			}
			msg := m[2]
			line, _ := strconv.Atoi(m[1])
			if strings.HasPrefix(msg, "field ") && strings.Contains(msg, " not found in type ") {
				f := strings.TrimPrefix(msg[:strings.Index(msg, " not found")], "field ")
				hint := ""
				if k := didYouMean(f, fieldNames(msg[strings.Index(msg, " not found in type ")+len(" not found in type "):])); k != "" {
					hint = fmt.Sprintf("; did you mean %q?", k)
				}
				msg = fmt.Sprintf("%s: unknown field%s (see docs/config.md for the fields)", f, hint)
			} else if u := unmarshalRe.FindStringSubmatch(msg); u != nil {
				msg = typeMsg(root, line, u[1], u[2], u[3])
			}
			msgs = append(msgs, fmt.Sprintf("%s:%s: %s", file, m[1], msg))
		}
		return errors.New(strings.Join(msgs, "\n"))
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := lineRe.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		text := m[2]
		// yaml.v3 reports a tab as "found character that cannot start any
		// token" (sometimes on the line after the tab).
		for _, l := range []int{line, line - 1} {
			if src := sourceLine(data, l); strings.Contains(src, "\t") {
				line = l
				text = "tab character: YAML indents with spaces only; replace the tab with spaces (yaml: " + text + ")"
				break
			}
		}
		return fmt.Errorf("%s:%d: %s", file, line, text)
	}
	return fmt.Errorf("%s: %s", file, msg)
}

// sourceLine is line n (1-based) of data, or "".
func sourceLine(data []byte, n int) string {
	ls := strings.Split(string(data), "\n")
	if n < 1 || n > len(ls) {
		return ""
	}
	return ls[n-1]
}

// typeMsg words yaml.v3's "cannot unmarshal !!tag `value` into type" for
// the node at line (found in root): "k[1]: not an integer: abc".
func typeMsg(root *yaml.Node, line int, tag, value, into string) string {
	field := ""
	if root != nil {
		field = fieldPath(findNode(root, "", line, tag, value))
	}
	var what string
	switch {
	case strings.HasPrefix(into, "[]"):
		what = "want a list, e.g. [" + cmp.Or(value, "…") + "]"
	case into == "int" || into == "int64":
		what = "not an integer"
	case into == "float64":
		what = "not a number"
	case into == "bool":
		what = "not true or false"
	case into == "string":
		what = "want a single value, not a " + map[string]string{"seq": "list", "map": "mapping"}[tag]
	default:
		what = fmt.Sprintf("want a mapping of fields (%s), not a %s", goTypeName(into), map[string]string{"seq": "list", "str": "string", "int": "number", "float": "number", "bool": "boolean", "null": "null"}[tag])
	}
	if value != "" && !strings.HasPrefix(into, "[]") {
		what += ": " + value
	}
	if field == "" {
		return what
	}
	return field + ": " + what
}

// goTypeName is a Go type's name without its package ("config.DatasetConfig"
// → "DatasetConfig"; a retriever that is not a mapping is "plain", the
// name its decoder has had since the config was package sweep's).
func goTypeName(into string) string {
	return strings.TrimPrefix(strings.TrimPrefix(into, "sweep."), "config.")
}

// findNode returns the dotted path of the first node at line whose tag is
// !!tag (and whose value is value, when given).
func findNode(n *yaml.Node, prefix string, line int, tag, value string) string {
	found := "" // the first match in document order, as walkYAML visits
	walkYAML(n, prefix, func(path string, _, v *yaml.Node) {
		if found == "" && v.Line == line && v.ShortTag() == "!!"+tag && (value == "" || v.Value == value) {
			found = path
		}
	})
	return found
}

// lines maps dotted field paths ("retrievers.2.alpha") to their line in the
// YAML document, for error messages.
type lines map[string]int

func collectLines(n *yaml.Node, prefix string, out lines) {
	walkYAML(n, prefix, func(path string, key, v *yaml.Node) {
		if key != nil {
			out[path] = key.Line
		} else {
			out[path] = v.Line
		}
	})
}

// walkYAML calls visit, depth first in document order, for every mapping
// value (key set) and sequence item (key nil) below n, with its dotted
// path ("retrievers.2.alpha"): one walk for line numbers and for explicit
// nulls, so the two always agree on paths.
func walkYAML(n *yaml.Node, prefix string, visit func(path string, key, v *yaml.Node)) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			walkYAML(c, prefix, visit)
		}
	case yaml.MappingNode:
		pairs, _ := mergedPairs(n)
		for i := 0; i+1 < len(pairs); i += 2 {
			k, v := pairs[i], pairs[i+1]
			p := k.Value
			if prefix != "" {
				p = prefix + "." + k.Value
			}
			visit(p, k, v)
			walkYAML(v, p, visit)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := prefix + "." + strconv.Itoa(i)
			visit(p, nil, c)
			walkYAML(c, p, visit)
		}
	}
}

// mergedPairs is mapping n's keys and values (alternating, as in
// n.Content) with its merge keys resolved as YAML's merge key type defines
// them (https://yaml.org/type/merge.html), which is how yaml.v3 decodes
// them into the config's structs: "<<: *anchor", or a list of anchors,
// brings each key of the mappings named that n does not give itself, an
// earlier mapping winning over a later one; merges inside those mappings
// are resolved too. Without a merge key it is n.Content itself. Every
// walker of the config's nodes (lines, nulls, numbers, the retrievers'
// decoder and checks) reads these, so that "{<<: *r, name: bm25b}" is
// decoded and checked as if written out. bad is the first merge value that
// is not a mapping or a list of mappings (nil: none).
func mergedPairs(n *yaml.Node) (pairs []*yaml.Node, bad *yaml.Node) {
	if !slices.ContainsFunc(n.Content, isMergeKey) {
		return n.Content, nil
	}
	// Each mapping is merged once: a second time brings no key the first
	// did not, and aliases can name one mapping exponentially often.
	return mergeInto(n, map[string]bool{}, map[*yaml.Node]bool{})
}

func isMergeKey(k *yaml.Node) bool { return k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" }

// mergeInto is mergedPairs of n, given the keys seen already (they win)
// and the mappings merged already (skipped).
func mergeInto(n *yaml.Node, seen map[string]bool, done map[*yaml.Node]bool) (pairs []*yaml.Node, bad *yaml.Node) {
	done[n] = true
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		switch k := n.Content[i]; {
		case isMergeKey(k):
			merges = append(merges, n.Content[i+1])
		case !seen[k.Value]:
			seen[k.Value] = true
			pairs = append(pairs, k, n.Content[i+1])
		}
	}
	deref := func(v *yaml.Node) *yaml.Node {
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			return v.Alias
		}
		return v
	}
	for _, m := range merges {
		sources := []*yaml.Node{deref(m)}
		if sources[0].Kind == yaml.SequenceNode {
			sources = nil
			for _, item := range deref(m).Content {
				sources = append(sources, deref(item))
			}
		}
		for _, src := range sources {
			if src.Kind != yaml.MappingNode {
				if bad == nil {
					bad = m
				}
				continue
			}
			if done[src] {
				continue
			}
			sub, subBad := mergeInto(src, seen, done)
			if bad == nil {
				bad = subBad
			}
			pairs = append(pairs, sub...)
		}
	}
	return pairs, bad
}

func (l lines) errf(file, field, format string, a ...any) *srcpos.Error {
	line := l[field]
	for f := field; line == 0 && strings.Contains(f, "."); {
		f = f[:strings.LastIndex(f, ".")]
		line = l[f]
	}
	return &srcpos.Error{File: file, Line: line, Field: fieldPath(field), Msg: fmt.Sprintf(format, a...)}
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// nullFields calls bad with the dotted path of each mapping value that is
// an explicit YAML null ("k:", "k: ~", "k: null").
func nullFields(n *yaml.Node, prefix string, bad func(field string)) {
	walkYAML(n, prefix, func(path string, key, v *yaml.Node) {
		if key != nil && v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
			bad(path)
		}
	})
}

// isNull reports whether the dotted field path holds an explicit null
// (nullFields reports those).
func isNull(root *yaml.Node, field string) bool {
	null := false
	nullFields(root, "", func(f string) {
		if f == field {
			null = true
		}
	})
	return null
}

// fieldPath turns a dotted path with numeric list indices
// ("retrievers.2.alpha") into the displayed form ("retrievers[2].alpha").
func fieldPath(dotted string) string {
	if dotted == "" {
		return ""
	}
	var b strings.Builder
	for i, part := range strings.Split(dotted, ".") {
		if _, err := strconv.Atoi(part); err == nil && i > 0 {
			b.WriteString("[" + part + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(part)
	}
	return b.String()
}
