package labels

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"

	"github.com/ragbench/ragbench/corpus"
	"github.com/ragbench/ragbench/spans"
)

// Change is one repair written by Fix.
type Change struct {
	Line  int
	Field string
	Query string
	Note  string // spans.Repair.Note
}

// Fixed is what Fix did.
type Fixed struct {
	Path    string   // the file written
	Backup  string   // the original's copy (in place), "" otherwise
	Changes []Change // the repairs written, in file order
	// After is the check of the file written: its remaining problems
	// (the ones no sure repair exists for) are After.Problems.
	After *Report
	// Recorded says the anchor record of the written file was written (it
	// checks clean and holds span labels).
	Recorded bool
}

// Fix writes the sure repairs of r (a check of a JSONL labels file against
// docs) into a copy of the file: to out, or, with out "", into the file
// itself after copying it to a backup (Backup: the first of FILE.bak,
// FILE.bak.1, … that does not exist). Each repaired row is rewritten with
// its keys in their order and its other values as they were; every other
// line is kept byte for byte. The file written is checked again (After);
// when it checks clean, the anchor record of its documents is written
// beside it (spans.WriteAnchorRecord). Writes are atomic
// (fileutil.WriteAtomic). Errors: a Chroma CSV (not rewritten: its
// repairs are listed), a file that cannot be read or written.
func Fix(r *Report, docs []corpus.Document, out string, opt Options) (*Fixed, error) {
	if r.Format == FormatChroma {
		return nil, fmt.Errorf("%s: --fix rewrites JSONL labels; Chroma's questions.csv is listed, not rewritten: apply its repairs by hand", r.Path)
	}
	data, err := os.ReadFile(r.Path)
	if err != nil {
		return nil, err
	}
	newData, changes, err := applyRepairs(data, r.Problems)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", r.Path, err)
	}
	w, err := writeChecked(r.Path, data, newData, out, docs, opt)
	if err != nil {
		return nil, err
	}
	f := &Fixed{Path: w.path, Backup: w.backup, Changes: changes, After: w.after, Recorded: w.recorded}
	return f, nil
}

// backup copies data (the file at path) to the first free name of
// path.bak, path.bak.1, …, and returns it.
func backup(path string, data []byte) (string, error) {
	for i := 0; ; i++ {
		name := path + ".bak"
		if i > 0 {
			name += "." + strconv.Itoa(i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(data)
		if werr == nil {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return "", fmt.Errorf("backup %s: %w", name, werr)
		}
		return name, nil
	}
}

// applyRepairs rewrites the rows of data (a JSONL file) that problems
// give sure repairs for.
func applyRepairs(data []byte, problems []spans.Problem) ([]byte, []Change, error) {
	byLine := map[int][]spans.Problem{}
	for _, p := range problems {
		if p.Repair != nil && p.Line > 0 {
			byLine[p.Line] = append(byLine[p.Line], p)
		}
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var changes []Change
	for i := range lines {
		ps := byLine[i+1]
		if len(ps) == 0 {
			continue
		}
		body, end := splitEOL(lines[i])
		bom := []byte(nil)
		if i == 0 && bytes.HasPrefix(body, []byte("\ufeff")) {
			bom, body = body[:3], body[3:]
		}
		row, err := repairRow(body, ps)
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		lines[i] = append(append(append([]byte(nil), bom...), row...), end...)
		for _, p := range ps {
			changes = append(changes, Change{Line: p.Line, Field: p.Field, Query: p.Query, Note: p.Repair.Note})
		}
	}
	return bytes.Join(lines, nil), changes, nil
}

// splitEOL splits a line into its text and its line end ("\n", "\r\n" or
// none).
func splitEOL(line []byte) ([]byte, []byte) {
	n := len(line)
	switch {
	case bytes.HasSuffix(line, []byte("\r\n")):
		return line[:n-2], line[n-2:]
	case bytes.HasSuffix(line, []byte("\n")):
		return line[:n-1], line[n-1:]
	}
	return line, nil
}

// spanField is a passage's field: gold_spans[i] or
// gold_spans[i].any_of[j].
var spanField = regexp.MustCompile(`^gold_spans\[(\d+)\](?:\.any_of\[(\d+)\])?$`)

// repairRow applies the repairs ps to one row (a JSON object).
func repairRow(row []byte, ps []spans.Problem) ([]byte, error) {
	obj, err := members(row)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		if p.Field == "gold" {
			if err := obj.renameGold(p.Doc, p.Repair.Doc); err != nil {
				return nil, err
			}
			continue
		}
		m := spanField.FindStringSubmatch(p.Field)
		if m == nil {
			return nil, fmt.Errorf("no repair of field %s", p.Field)
		}
		i, _ := strconv.Atoi(m[1])
		j := -1
		if m[2] != "" {
			j, _ = strconv.Atoi(m[2])
		}
		if err := obj.repairSpan(i, j, p.Repair); err != nil {
			return nil, err
		}
	}
	return obj.encode(), nil
}

// object is a JSON object's members in their order, values as written.
type object []member

type member struct {
	key string
	raw json.RawMessage
}

// members decodes a JSON object keeping its keys' order and raw values.
func members(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	var out object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, member{key, raw})
	}
	return out, nil
}

func (o object) get(key string) (json.RawMessage, int) {
	for i, m := range o {
		if m.key == key {
			return m.raw, i
		}
	}
	return nil, -1
}

// set replaces key's value, or appends it; a json.RawMessage is written as
// it is (encoding/json would compact it).
func (o *object) set(key string, v any) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		raw = marshal(v)
	}
	if _, i := o.get(key); i >= 0 {
		(*o)[i].raw = raw
		return
	}
	*o = append(*o, member{key, raw})
}

func (o *object) del(key string) {
	if _, i := o.get(key); i >= 0 {
		*o = append((*o)[:i], (*o)[i+1:]...)
	}
}

// encode writes the object as {"key": value, …}.
func (o object) encode() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(marshal(m.key))
		b.WriteString(": ")
		b.Write(m.raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshal is JSON without HTML escaping (labels quote text with < and &).
func marshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic("labels: " + err.Error()) // strings, ints and raw JSON always encode
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// list decodes a JSON list's raw items.
func list(raw json.RawMessage) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	return items, nil
}

func encodeList(items []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// repairSpan applies rp to the passage gold_spans[i] (its any_of[j] when
// j ≥ 0).
func (o *object) repairSpan(i, j int, rp *spans.Repair) error {
	raw, _ := o.get("gold_spans")
	items, err := list(raw)
	if err != nil || i >= len(items) {
		return fmt.Errorf("gold_spans[%d]: not in the row", i)
	}
	target := items[i]
	var group object
	var members []json.RawMessage
	if j >= 0 {
		if group, err = membersOf(target); err != nil {
			return err
		}
		gr, _ := group.get("any_of")
		if members, err = list(gr); err != nil || j >= len(members) {
			return fmt.Errorf("gold_spans[%d].any_of[%d]: not in the row", i, j)
		}
		target = members[j]
	}
	sp, err := membersOf(target)
	if err != nil {
		return err
	}
	sp.apply(rp)
	if j >= 0 {
		members[j] = sp.encode()
		group.set("any_of", json.RawMessage(encodeList(members)))
		items[i] = group.encode()
	} else {
		items[i] = sp.encode()
	}
	o.set("gold_spans", json.RawMessage(encodeList(items)))
	return nil
}

func membersOf(raw json.RawMessage) (object, error) { return members(raw) }

// apply writes a repair into a passage.
func (sp *object) apply(rp *spans.Repair) {
	if rp.Doc != "" {
		sp.set("doc", rp.Doc)
	}
	if rp.HasOffsets {
		sp.set("start", rp.Start)
		sp.set("end", rp.End)
		sp.del("unit") // the repair's offsets are code points, the default
	}
	if rp.HasText {
		sp.set("text", rp.Text)
	}
	if rp.HasContext {
		sp.set("prefix", rp.Prefix)
		sp.set("suffix", rp.Suffix)
	}
}

// renameGold renames doc id from to to in the row's "gold" (a list of ids
// or an object id → grade).
func (o *object) renameGold(from, to string) error {
	raw, _ := o.get("gold")
	if items, err := list(raw); err == nil {
		for k, it := range items {
			var id string
			if json.Unmarshal(it, &id) == nil && id == from {
				items[k] = marshal(to)
			}
		}
		o.set("gold", json.RawMessage(encodeList(items)))
		return nil
	}
	grades, err := members(raw)
	if err != nil {
		return fmt.Errorf("gold: neither a list nor an object")
	}
	for k := range grades {
		if grades[k].key == from {
			grades[k].key = to
		}
	}
	o.set("gold", json.RawMessage(grades.encode()))
	return nil
}
