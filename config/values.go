package config

import (
	"math"
	"reflect"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// checkNumbers walks the YAML document beside the Config type and reports
// every number that yaml.v3 would silently change or that no field can
// hold: a non-integral value for an integer field (yaml.v3 truncates 3.9
// to 3), and .inf or .nan for a float field (every float in a config is a
// finite parameter; ±Inf and NaN would also make results.json
// unwritable). It reads the nodes, not the decoded values, because the
// decoded int no longer shows the fraction.
func checkNumbers(n *yaml.Node, t reflect.Type, path string, bad func(field, format string, a ...any)) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			checkNumbers(c, t, path, bad)
		}
	case yaml.MappingNode:
		if t.Kind() != reflect.Struct {
			return
		}
		fieldType := func(k string) (reflect.Type, bool) {
			f, ok := yamlField(t, k)
			return f.Type, ok
		}
		if t == reflect.TypeFor[RetrieverConfig]() {
			fieldType = retrieverKeyType(n)
		}
		pairs, _ := mergedPairs(n) // a number brought by a merge key is checked too
		for i := 0; i+1 < len(pairs); i += 2 {
			k := pairs[i].Value
			if ft, ok := fieldType(k); ok {
				checkNumbers(pairs[i+1], ft, joinPath(path, k), bad)
			}
		}
	case yaml.SequenceNode:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return
		}
		for i, c := range n.Content {
			checkNumbers(c, t.Elem(), joinPath(path, strconv.Itoa(i)), bad)
		}
	case yaml.ScalarNode:
		if n.ShortTag() != "!!float" {
			return
		}
		var v float64
		if err := n.Decode(&v); err != nil {
			return // yaml.v3's own type error names it
		}
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if v != math.Trunc(v) || math.IsInf(v, 0) {
				bad(path, "not an integer: %s", n.Value)
			}
		case reflect.Float32, reflect.Float64:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				bad(path, "%s is not a finite number", n.Value)
			}
		}
	}
}

// yamlField is the field of struct type t that YAML key name decodes into.
func yamlField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == "" && opts == "inline" && f.Type.Kind() == reflect.Struct {
			if g, ok := yamlField(f.Type, name); ok {
				return g, true
			}
			continue
		}
		if tag == name || tag == "" && f.IsExported() && strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func joinPath(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}
