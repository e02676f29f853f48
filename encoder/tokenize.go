package encoder

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sugarme/tokenizer"
	"github.com/sugarme/tokenizer/normalizer"
	"github.com/sugarme/tokenizer/pretrained"
)

// textTokenizer wraps a sugarme tokenizer.json, avoiding the paths of
// sugarme/tokenizer v0.3.0 known to be wrong or fatal:
//
//   - Normalizers: sugarme's BertNormalizer keeps accents when
//     strip_accents is null ("café" → [UNK]), keeps no-break spaces inside
//     words, and panics when lowercasing changes the byte length ("İ"). The
//     normalizer is therefore applied in Go with Hugging Face's semantics
//     (normalize.go) and removed from the sugarme instance.
//   - Truncation and padding set in tokenizer.json: sugarme's LongestFirst
//     pair truncation cuts too much and its OnlyFirst/OnlySecond strategies
//     and EncodeBatch can call log.Fatal, ending the process. We clear both
//     and encode each text alone without special tokens
//     (EncodeSingle(text, false)); truncation and special tokens are applied
//     here, by hand, from the template.
//
// Each text is encoded by its own sugarme Tokenizer instance taken from a
// free list, so parallel encoding shares no mutable tokenizer state.
type textTokenizer struct {
	path   string
	raw    []byte
	guards []string       // guards applied, for Check
	norm   normalizerFunc // Go normaliser replacing sugarme's; nil: sugarme's own
	added  []addedToken   // non-normalized added tokens, longest first (with norm)
	// metaspace: the pre-tokenizer is Metaspace, where sugarme turns \t \n
	// \f \r into "▁" but Hugging Face only ' '; those characters are
	// swapped for an out-of-vocabulary private-use character first, which
	// both then treat as the unknown character it is in HF.
	metaspace bool
	// metaspaceRep, when not "", is the Metaspace replacement ("▁") that
	// encode puts in place of every ASCII space before sugarme sees the
	// text. sugarme's Metaspace does that replacement itself, one
	// NormalizedString.Replace per match, each rewriting the whole
	// alignment table: quadratic in the piece, 70 % of the tokenization
	// CPU of ce-scifact-tiny (pprof, issue 14). The string its Split then
	// cuts is the same byte for byte, so the ids are too. Set only where
	// that holds: normaliser applied in Go (sugarme's removed, so nothing
	// runs between the two replacements) and no added token holding a
	// space or the replacement (sugarme matches added tokens before
	// pre-tokenizing).
	metaspaceRep string
	// words, when not nil, memoizes the ids of each space-separated word
	// and encode tokenizes word by word (wordmemo.go says why that is
	// exact). Set only for a WordPiece model under BertPreTokenizer with
	// the normaliser applied in Go (so a word reaching sugarme is already
	// normalised) and no added token holding a space (sugarme matches added
	// tokens before pre-tokenizing, and such a token would span words).
	words *wordMemo
	// wordPiece is sugarme's WordPiece model, read-only (a vocabulary
	// lookup), so shared by all workers; with words set, a word not in the
	// memo is pre-tokenized here as sugarme's BertPreTokenizer does and
	// handed to it directly (wordIDs).
	wordPiece tokenizer.Model
	// addedContents are all added tokens' contents: a word holding one is
	// left to sugarme's whole pipeline, which matches them.
	addedContents []string

	mu   sync.Mutex // guards free
	free []*tokenizer.Tokenizer

	vocab     map[string]int // token → id, with added tokens
	maxID     int            // largest id the tokenizer can emit
	single    template
	pair      template
	padID     int
	hasPad    bool
	truncLen  int // tokenizer.json truncation.max_length (0: none)
	hasTrunc  bool
	padConfig bool
}

// tokenizerJSON is the subset of tokenizer.json inspected here.
type tokenizerJSON struct {
	Model      json.RawMessage `json:"model"`
	Truncation *struct {
		MaxLength int `json:"max_length"`
	} `json:"truncation"`
	Padding *struct {
		PadID int `json:"pad_id"`
	} `json:"padding"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	PreTokenizer  *struct {
		Type        string `json:"type"`
		Replacement string `json:"replacement"`
	} `json:"pre_tokenizer"`
	AddedTokens []addedTokenJSON `json:"added_tokens"`
}

// addedTokenJSON is one tokenizer.json added_tokens entry.
type addedTokenJSON struct {
	ID         int    `json:"id"`
	Content    string `json:"content"`
	Normalized bool   `json:"normalized"`
}

// modelType is tokenizer.json's model.type ("" when unreadable; the model
// section is checked by checkTokenizerModel before).
func modelType(raw json.RawMessage) string {
	var m struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &m)
	return m.Type
}

// addedToken is an added token matched in the raw text, before
// normalisation (Hugging Face: normalized=false).
type addedToken struct {
	content string
	id      int
}

func loadTokenizer(path string) (tt *textTokenizer, err error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var meta tokenizerJSON
	if err := json.Unmarshal(raw, &meta); err != nil {
		return nil, fmt.Errorf("%s:%s", path, jsonErr(raw, err))
	}
	if err := checkTokenizerModel(meta.Model); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tt = &textTokenizer{path: path, raw: raw}
	if fn, ok := compileNormalizer(meta.Normalizer); ok {
		tt.norm = fn
		tt.guards = append(tt.guards, "normalizer applied in Go (Hugging Face semantics), not by sugarme")
		for _, a := range meta.AddedTokens {
			if !a.Normalized && a.Content != "" {
				tt.added = append(tt.added, addedToken{a.Content, a.ID})
			}
		}
		sort.SliceStable(tt.added, func(i, j int) bool { return len(tt.added[i].content) > len(tt.added[j].content) })
	}
	if meta.Truncation != nil {
		tt.truncLen = meta.Truncation.MaxLength
		tt.hasTrunc = true
	}
	first, err := tt.newInstance()
	if err != nil {
		return nil, err
	}
	tt.vocab = first.GetVocab(true)
	for _, id := range tt.vocab {
		tt.maxID = max(tt.maxID, id)
	}
	if meta.Padding != nil {
		tt.padID, tt.hasPad, tt.padConfig = meta.Padding.PadID, true, true
	} else {
		for _, name := range []string{"[PAD]", "<pad>"} {
			if id, ok := tt.vocab[name]; ok {
				tt.padID, tt.hasPad = id, true
				break
			}
		}
	}
	if tt.needsAccentFix() {
		tt.guards = append(tt.guards, "BertNormalizer lowercase with strip_accents null: accents stripped (NFD, drop marks) as Hugging Face does")
	}
	if tt.hasTrunc {
		tt.guards = append(tt.guards, "tokenizer.json truncation ignored: truncation is done by ragbench, keeping the closing special token")
	}
	tt.preTokenizer(meta, first)
	tt.single, tt.pair, err = templatesFromPostProcessor(meta.PostProcessor, tt.vocab)
	if err != nil {
		return nil, fmt.Errorf("%s: post_processor: %w", path, err)
	}
	tt.free = append(tt.free, first)
	return tt, nil
}

// preTokenizer sets what the pre-tokenizer of meta asks for: Metaspace's
// white-space handling and replacement, or the word memo of WordPiece under
// BertPreTokenizer.
func (tt *textTokenizer) preTokenizer(meta tokenizerJSON, first *tokenizer.Tokenizer) {
	if meta.PreTokenizer != nil && meta.PreTokenizer.Type == "Metaspace" {
		if _, inVocab := tt.vocab[string(metaspacePlaceholder)]; !inVocab {
			tt.metaspace = true
			tt.guards = append(tt.guards, `Metaspace: \t \n \f \r kept inside words as Hugging Face does (sugarme would split there)`)
		}
		if rep := meta.PreTokenizer.Replacement; tt.norm != nil && rep != "" && !strings.Contains(rep, " ") {
			tt.metaspaceRep = rep
			for _, a := range meta.AddedTokens {
				if strings.Contains(a.Content, " ") || strings.Contains(a.Content, rep) {
					tt.metaspaceRep = ""
					break
				}
			}
		}
	}
	if meta.PreTokenizer != nil && meta.PreTokenizer.Type == "BertPreTokenizer" && tt.norm != nil && modelType(meta.Model) == "WordPiece" &&
		!slices.ContainsFunc(meta.AddedTokens, func(a addedTokenJSON) bool { return strings.Contains(a.Content, " ") }) {
		tt.words = newWordMemo()
		tt.wordPiece = first.GetModel()
		for _, a := range meta.AddedTokens {
			tt.addedContents = append(tt.addedContents, a.Content)
		}
	}
}

// tokenizerModels maps the model types sugarme builds to the JSON shape of
// their "vocab" ('{': token → id; '[': Unigram's [token, score] pairs).
var tokenizerModels = map[string]byte{"BPE": '{', "WordPiece": '{', "WordLevel": '{', "Unigram": '['}

// checkTokenizerModel checks tokenizer.json's "model" section before sugarme
// reads it: sugarme logs an INFO line and guesses BPE when model.type is
// absent, and panics on a type assertion when the vocabulary is missing
// (a file holding {} gave both). The error says what is missing.
func checkTokenizerModel(raw json.RawMessage) error {
	const hint = "not a Hugging Face tokenizer.json (write one with tokenizers' Tokenizer.save or transformers' save_pretrained)"
	if len(raw) == 0 || string(raw) == "null" {
		return fmt.Errorf("no \"model\" section: %s", hint)
	}
	var m struct {
		Type  *string         `json:"type"`
		Vocab json.RawMessage `json:"vocab"`
	}
	if raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return fmt.Errorf("\"model\" must be an object with \"type\" and \"vocab\", got %.40s: %s", raw, hint)
	}
	types := slices.Sorted(maps.Keys(tokenizerModels))
	if m.Type == nil {
		return fmt.Errorf("model.type missing (want one of %s): %s", strings.Join(types, ", "), hint)
	}
	shape, ok := tokenizerModels[*m.Type]
	if !ok {
		return fmt.Errorf("model.type %q is not supported (want one of %s)", *m.Type, strings.Join(types, ", "))
	}
	if len(m.Vocab) == 0 || m.Vocab[0] != shape {
		want := "an object token → id"
		if shape == '[' {
			want = "a list of [token, score] pairs"
		}
		return fmt.Errorf("model.vocab missing or not %s (model.type %s)", want, *m.Type)
	}
	return nil
}

// newInstance parses tokenizer.json into a fresh sugarme Tokenizer with
// truncation and padding cleared and the accent guard installed. A panic
// inside sugarme's loader (it type-asserts JSON without checks) becomes an
// error.
func (tt *textTokenizer) newInstance() (tk *tokenizer.Tokenizer, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: unsupported or malformed tokenizer: %v", tt.path, r)
		}
	}()
	tk, err = pretrained.FromReader(bytes.NewReader(tt.raw))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", tt.path, err)
	}
	tk.WithTruncation(nil)
	tk.WithPadding(nil)
	if tt.norm != nil {
		tk.WithNormalizer(nil) // applied in Go before encoding
	}
	return tk, nil
}

// needsAccentFix reports a BertNormalizer with lowercase true and
// strip_accents null or absent (Hugging Face then strips accents).
func (tt *textTokenizer) needsAccentFix() bool {
	var meta struct {
		Normalizer *struct {
			Type         string `json:"type"`
			Lowercase    bool   `json:"lowercase"`
			StripAccents *bool  `json:"strip_accents"`
		} `json:"normalizer"`
	}
	if json.Unmarshal(tt.raw, &meta) != nil || meta.Normalizer == nil {
		return false
	}
	n := meta.Normalizer
	return n.Type == "BertNormalizer" && n.Lowercase && n.StripAccents == nil
}

func (tt *textTokenizer) get() (*tokenizer.Tokenizer, error) {
	tt.mu.Lock()
	if n := len(tt.free); n > 0 {
		tk := tt.free[n-1]
		tt.free = tt.free[:n-1]
		tt.mu.Unlock()
		return tk, nil
	}
	tt.mu.Unlock()
	return tt.newInstance()
}

func (tt *textTokenizer) put(tk *tokenizer.Tokenizer) {
	tt.mu.Lock()
	tt.free = append(tt.free, tk)
	tt.mu.Unlock()
}

// metaspacePlaceholder stands for \t \n \f \r under a Metaspace
// pre-tokenizer (a private-use character, unknown to the vocabulary).
const metaspacePlaceholder = '\uE000'

// chunkBytes is the length past which encode cuts a text into pieces at
// spaces. sugarme's pre-tokenizers are quadratic in the text length (a
// 96,000-character text took minutes); pieces cut just before an ASCII
// space are whole pre-tokens for the whitespace, BERT, Metaspace and
// ByteLevel pre-tokenizers, so the ids are the same as for the whole text
// (checked by the Hugging Face parity test on inputs of up to 10,000
// characters).
const chunkBytes = 256

// encode returns the ids of one text without special tokens, all of them
// when limit <= 0, else at least the first limit ids (encoding stops once
// it has them; the ids returned beyond limit are exact too). Invalid UTF-8
// is an error (never silently replaced); a panic inside sugarme becomes an
// error.
func (tt *textTokenizer) encode(text string) ([]int, error) {
	return tt.encodeLimit(text, 0)
}

func (tt *textTokenizer) encodeLimit(text string, limit int) (ids []int, err error) {
	if err := checkUTF8(text); err != nil {
		return nil, err
	}
	// The sugarme instance is taken on first use: with the word memo most
	// texts need none, and a worker that never misses parses no instance
	// of its own.
	var tk *tokenizer.Tokenizer
	defer func() {
		if r := recover(); r != nil {
			ids, err = nil, fmt.Errorf("tokenizer failed: %v", r)
			return // drop the instance: its state is unknown
		}
		if tk != nil {
			tt.put(tk)
		}
	}()
	encodeSugarme := func(s string) ([]int, error) {
		if tk == nil {
			var err error
			if tk, err = tt.get(); err != nil {
				return nil, err
			}
		}
		enc, err := tk.EncodeSingle(s, false)
		if err != nil {
			return nil, fmt.Errorf("tokenizer: %w", err)
		}
		return enc.Ids, nil
	}
	// As Hugging Face: added tokens are cut out of the raw text first
	// (leftmost, longest), the pieces between are normalised and encoded.
	segs := []segment{{text, -1}}
	if tt.norm != nil {
		segs = tt.splitAdded(text)
	}
	for _, seg := range segs {
		if seg.id >= 0 {
			ids = append(ids, seg.id)
			continue
		}
		n := seg.text
		if tt.norm != nil {
			n = tt.norm(n)
		}
		var full bool
		if tt.words != nil {
			ids, full, err = tt.appendWords(ids, n, limit, encodeSugarme)
		} else {
			ids, full, err = tt.appendChunks(ids, n, limit, encodeSugarme)
		}
		if err != nil {
			return nil, err
		}
		if full {
			return ids, nil
		}
	}
	return ids, nil
}

// checkUTF8 reports the first invalid UTF-8 byte of text.
func checkUTF8(text string) error {
	if utf8.ValidString(text) {
		return nil
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Errorf("invalid UTF-8 at byte %d", i)
		}
		i += size
	}
	return nil
}

// appendWords appends the ids of normalised text n word by word through
// the word memo (WordPiece under BertPreTokenizer); full reports that
// limit (> 0) ids were reached.
func (tt *textTokenizer) appendWords(ids []int, n string, limit int, encode func(string) ([]int, error)) (_ []int, full bool, err error) {
	for w := range strings.SplitSeq(n, " ") {
		if w == "" {
			continue
		}
		if limit > 0 && len(ids) >= limit {
			return ids, true, nil
		}
		wids, ok := tt.words.get(w)
		if !ok {
			if wids, err = tt.wordIDs(w, encode); err != nil {
				return nil, false, err
			}
			tt.words.put(w, wids)
		}
		ids = append(ids, wids...)
	}
	return ids, false, nil
}

// appendChunks appends the ids of normalised text n encoded by sugarme in
// chunks cut at spaces; full reports that limit (> 0) ids were reached.
func (tt *textTokenizer) appendChunks(ids []int, n string, limit int, encode func(string) ([]int, error)) (_ []int, full bool, err error) {
	if tt.metaspace {
		n = strings.Map(func(r rune) rune {
			switch r {
			case '\t', '\n', '\f', '\r':
				return metaspacePlaceholder
			}
			return r
		}, n)
	}
	for _, chunk := range chunkAtSpaces(n, chunkBytes) {
		if limit > 0 && len(ids) >= limit {
			return ids, true, nil
		}
		if tt.metaspaceRep != "" {
			chunk = strings.ReplaceAll(chunk, " ", tt.metaspaceRep)
		}
		cids, err := encode(chunk)
		if err != nil {
			return nil, false, err
		}
		ids = append(ids, cids...)
	}
	return ids, false, nil
}

// wordIDs returns the ids of one word (no ASCII space) under a WordPiece
// model and BertPreTokenizer, computed as sugarme v0.3.0 does but without
// its per-call machinery: the word is cut at the regexp \s+ (RE2: \t \n
// \f \r and space) with the whitespace removed, each rune for which
// sugarme's normalizer.IsBertPunctuation holds stands alone, and each
// piece goes to the WordPiece model. A word containing an added token's
// content goes to sugarme (viaSugarme) whole, since sugarme matches added
// tokens before pre-tokenizing. TestWordIDsMatchSugarme checks the two
// agree on the SciFact subset and the Hugging Face parity texts.
func (tt *textTokenizer) wordIDs(word string, viaSugarme func(string) ([]int, error)) ([]int, error) {
	for _, a := range tt.addedContents {
		if a != "" && strings.Contains(word, a) {
			return viaSugarme(word)
		}
	}
	var ids []int
	piece := func(p string) error {
		if p == "" {
			return nil
		}
		toks, err := tt.wordPiece.Tokenize(p)
		if err != nil {
			return fmt.Errorf("tokenizer: %w", err)
		}
		for _, t := range toks {
			ids = append(ids, t.Id)
		}
		return nil
	}
	start := 0
	for i, r := range word {
		ws := r == '\t' || r == '\n' || r == '\f' || r == '\r'
		if !ws && !normalizer.IsBertPunctuation(r) {
			continue
		}
		if err := piece(word[start:i]); err != nil {
			return nil, err
		}
		end := i + utf8.RuneLen(r)
		if !ws {
			if err := piece(word[i:end]); err != nil {
				return nil, err
			}
		}
		start = end
	}
	if err := piece(word[start:]); err != nil {
		return nil, err
	}
	return ids, nil
}

// chunkAtSpaces cuts s into pieces of about size bytes or more, each cut
// made just before an ASCII space (the space starts the next piece). A
// piece with no space in it stays whole.
func chunkAtSpaces(s string, size int) []string {
	if len(s) <= size {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	var out []string
	start := 0
	for i := size; i < len(s); i++ {
		if s[i] == ' ' && i-start >= size {
			out = append(out, s[start:i])
			start = i
		}
	}
	return append(out, s[start:])
}

// segment is a piece of text (id < 0) or an added token.
type segment struct {
	text string
	id   int
}

// splitAdded splits text at occurrences of non-normalized added tokens,
// leftmost first and, at one position, longest first.
func (tt *textTokenizer) splitAdded(text string) []segment {
	if len(tt.added) == 0 {
		return []segment{{text, -1}}
	}
	var out []segment
	start := 0
	for i := 0; i < len(text); {
		matched := false
		for _, a := range tt.added {
			if strings.HasPrefix(text[i:], a.content) {
				if i > start {
					out = append(out, segment{text[start:i], -1})
				}
				out = append(out, segment{"", a.id})
				i += len(a.content)
				start = i
				matched = true
				break
			}
		}
		if !matched {
			i++
		}
	}
	if start < len(text) {
		out = append(out, segment{text[start:], -1})
	}
	return out
}

// encodeAll encodes texts in parallel (workers goroutines, each filling its
// own slots), so the result does not depend on the worker count. errs[i] is
// the error of texts[i].
func (tt *textTokenizer) encodeAll(texts []string, workers, limit int) ([][]int, []error) {
	out := make([][]int, len(texts))
	errs := make([]error, len(texts))
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(texts))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = tt.encodeLimit(texts[i], limit)
			}
		}()
	}
	for i := range texts {
		next <- i
	}
	close(next)
	wg.Wait()
	return out, errs
}

// singleIDs truncates the text ids of one text so that, with the single
// template's special tokens, at most maxLen ids remain, and lays them out
// with the template: the closing special token is always kept.
func (tt *textTokenizer) singleIDs(ids []int, maxLen int) ([]int64, bool) {
	budget := maxLen - tt.single.specials()
	tr := len(ids) > budget
	if tr {
		ids = ids[:budget]
	}
	out, _ := tt.single.build(ids, nil)
	return out, tr
}

// pairIDs lays out a (query, passage) pair within maxLen ids: the query
// is capped at maxQuery tokens and the passage cut to what is left.
func (tt *textTokenizer) pairIDs(q, p []int, maxLen, maxQuery int) (ids, types []int64, truncated bool) {
	if len(q) > maxQuery {
		q, truncated = q[:maxQuery], true
	}
	budget := maxLen - tt.pair.specials() - len(q)
	if len(p) > budget {
		p, truncated = p[:max(budget, 0)], true
	}
	ids, types = tt.pair.build(q, p)
	return ids, types, truncated
}

// piece is one element of a template: a special token (seq < 0) or the
// text A (seq 0) or B (seq 1), with its token type id.
type piece struct {
	seq    int
	id     int
	typeID int
}

// template places special tokens around one or two sequences.
type template []piece

// specials counts the special tokens of the template.
func (t template) specials() int {
	n := 0
	for _, p := range t {
		if p.seq < 0 {
			n++
		}
	}
	return n
}

// build lays out a and b (b may be nil for a single template) with the
// template's special tokens, returning ids and token type ids.
func (t template) build(a, b []int) (ids, types []int64) {
	n := len(a) + len(b) + t.specials()
	ids = make([]int64, 0, n)
	types = make([]int64, 0, n)
	for _, p := range t {
		switch p.seq {
		case -1:
			ids = append(ids, int64(p.id))
			types = append(types, int64(p.typeID))
		case 0, 1:
			s := a
			if p.seq == 1 {
				s = b
			}
			for _, id := range s {
				ids = append(ids, int64(id))
				types = append(types, int64(p.typeID))
			}
		}
	}
	return ids, types
}

// String renders the template in Hugging Face TemplateProcessing syntax.
func (t template) String(idToken func(int) string) string {
	var parts []string
	for _, p := range t {
		var s string
		switch p.seq {
		case -1:
			s = idToken(p.id)
		case 0:
			s = "$A"
		case 1:
			s = "$B"
		}
		if p.typeID != 0 {
			s += ":" + strconv.Itoa(p.typeID)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// parseTemplate parses "[CLS] $A [SEP]" / "[CLS] $A [SEP] $B:1 [SEP]:1";
// each special token must be in vocab. wantB says whether $B must appear.
func parseTemplate(s string, vocab map[string]int, wantB bool) (template, error) {
	var t template
	seen := [2]bool{}
	for _, f := range strings.Fields(s) {
		name, typ := f, 0
		if i := strings.LastIndex(f, ":"); i > 0 {
			if n, err := strconv.Atoi(f[i+1:]); err == nil {
				name, typ = f[:i], n
			}
		}
		switch name {
		case "$A", "$a", "$0":
			t = append(t, piece{seq: 0, typeID: typ})
			seen[0] = true
		case "$B", "$b", "$1":
			t = append(t, piece{seq: 1, typeID: typ})
			seen[1] = true
		default:
			id, ok := vocab[name]
			if !ok {
				return nil, fmt.Errorf("template %q: token %q is not in the tokenizer's vocabulary", s, name)
			}
			t = append(t, piece{seq: -1, id: id, typeID: typ})
		}
	}
	if !seen[0] {
		return nil, fmt.Errorf("template %q: no $A", s)
	}
	if seen[1] != wantB {
		if wantB {
			return nil, fmt.Errorf("pair template %q: no $B", s)
		}
		return nil, fmt.Errorf("single template %q: has $B", s)
	}
	return t, nil
}

// templatesFromPostProcessor derives the single and pair templates from a
// tokenizer.json post_processor: TemplateProcessing, BertProcessing,
// RobertaProcessing, or none (no special tokens).
func templatesFromPostProcessor(raw json.RawMessage, vocab map[string]int) (single, pair template, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return template{{seq: 0}}, template{{seq: 0}, {seq: 1}}, nil
	}
	var pp postProcessor
	if err := json.Unmarshal(raw, &pp); err != nil {
		return nil, nil, err
	}
	switch pp.Type {
	case "TemplateProcessing":
		sraw := pp.Single
		if len(sraw) == 0 {
			sraw = json.RawMessage("null") // no single: an empty template
		}
		if single, err = pp.template(sraw, vocab); err != nil {
			return nil, nil, err
		}
		if pair, err = pp.template(pp.Pair, vocab); err != nil {
			return nil, nil, err
		}
		return single, pair, nil
	case "BertProcessing", "RobertaProcessing":
		cls, err := postProcessorTokenID(pp.Cls, "cls")
		if err != nil {
			return nil, nil, err
		}
		sep, err := postProcessorTokenID(pp.Sep, "sep")
		if err != nil {
			return nil, nil, err
		}
		single = template{{seq: -1, id: cls}, {seq: 0}, {seq: -1, id: sep}}
		if pp.Type == "BertProcessing" {
			pair = template{{seq: -1, id: cls}, {seq: 0}, {seq: -1, id: sep}, {seq: 1, typeID: 1}, {seq: -1, id: sep, typeID: 1}}
		} else {
			pair = template{{seq: -1, id: cls}, {seq: 0}, {seq: -1, id: sep}, {seq: -1, id: sep}, {seq: 1}, {seq: -1, id: sep}}
		}
		return single, pair, nil
	default:
		return nil, nil, fmt.Errorf("type %q not supported: set single_template and pair_template in %s", pp.Type, ConfigFile)
	}
}

// postProcessor is a tokenizer.json post_processor, the fields of the types
// templatesFromPostProcessor knows.
type postProcessor struct {
	Type          string          `json:"type"`
	Single        json.RawMessage `json:"single"`
	Pair          json.RawMessage `json:"pair"`
	SpecialTokens map[string]struct {
		IDs []int `json:"ids"`
	} `json:"special_tokens"`
	Sep []any `json:"sep"`
	Cls []any `json:"cls"`
}

// template converts a TemplateProcessing item list (raw) to a template,
// special tokens by their ids in pp.SpecialTokens, else in vocab.
func (pp *postProcessor) template(raw json.RawMessage, vocab map[string]int) (template, error) {
	type ref struct {
		ID     string `json:"id"`
		TypeID int    `json:"type_id"`
	}
	var items []struct {
		SpecialToken *ref `json:"SpecialToken"`
		Sequence     *ref `json:"Sequence"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, err
	}
	var t template
	for _, it := range items {
		switch {
		case it.Sequence != nil:
			seq := 0
			if it.Sequence.ID == "B" {
				seq = 1
			}
			t = append(t, piece{seq: seq, typeID: it.Sequence.TypeID})
		case it.SpecialToken != nil:
			st, ok := pp.SpecialTokens[it.SpecialToken.ID]
			if !ok || len(st.IDs) == 0 {
				id, ok := vocab[it.SpecialToken.ID]
				if !ok {
					return nil, fmt.Errorf("special token %q has no id", it.SpecialToken.ID)
				}
				st.IDs = []int{id}
			}
			for _, id := range st.IDs {
				t = append(t, piece{seq: -1, id: id, typeID: it.SpecialToken.TypeID})
			}
		}
	}
	return t, nil
}

// postProcessorTokenID reads a BertProcessing/RobertaProcessing [token, id]
// pair.
func postProcessorTokenID(v []any, field string) (int, error) {
	if len(v) != 2 {
		return 0, fmt.Errorf("%s: want [token, id]", field)
	}
	f, ok := v[1].(float64)
	if !ok {
		return 0, fmt.Errorf("%s: id is not a number", field)
	}
	return int(f), nil
}
