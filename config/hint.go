package config

import (
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/ragbench/ragbench/kinds"
)

// fieldNames maps the Go type names yaml.v3 puts in "field x not found in
// type config.ChunkingConfig" to the YAML keys that type takes: the
// config's structs, and a retriever's name, type and every kind's keys
// (RetrieverConfig.UnmarshalYAML's own "not found" errors).
func fieldNames(typeName string) []string {
	if typeName == "config.RetrieverConfig" {
		return append([]string{"name", "type"}, kinds.Keys()...)
	}
	var found []string
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		keys := yamlKeys(t)
		if t.String() == typeName {
			found = keys
		}
		for i := range t.NumField() {
			walk(t.Field(i).Type)
		}
	}
	walk(reflect.TypeFor[Config]())
	return found
}

// yamlKeys is the YAML keys of struct type t (inlined structs' included).
func yamlKeys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case tag == "-":
		case tag == "" && opts == "inline" && f.Type.Kind() == reflect.Struct:
			out = append(out, yamlKeys(f.Type)...)
		case tag != "":
			out = append(out, tag)
		case f.IsExported():
			out = append(out, strings.ToLower(f.Name))
		}
	}
	return out
}

// didYouMean is the known key that the unknown key was probably meant as,
// or "": the same in another case ("Metrics"), its plural or singular
// ("size" for sizes), or else the one nearest within two edits
// ("promptk" for prompt_k; none when two are as near).
func didYouMean(key string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(k, key) || strings.EqualFold(k, key+"s") || strings.EqualFold(k+"s", key) {
			return k
		}
	}
	best, bestD, ties := "", 3, 0
	for _, k := range known {
		switch d := editDistance(strings.ToLower(key), k); {
		case d < bestD:
			best, bestD, ties = k, d, 0
		case d == bestD:
			ties++
		}
	}
	// A key of one or two letters is within two edits of every short key.
	if ties > 0 || bestD >= utf8.RuneCountInString(key) {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b,
// in runes: insertions, deletions, substitutions and swaps of two
// neighbours ("fusoin" is one edit from fusion), each 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			sub := d[i-1][j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			d[i][j] = min(sub, d[i-1][j]+1, d[i][j-1]+1)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
