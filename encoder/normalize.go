package encoder

import (
	"encoding/json"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Go implementations of Hugging Face tokenizers' normalizers
// (tokenizers/src/normalizers: bert.rs, unicode.rs, strip.rs, replace.rs,
// prepend.rs, utils.rs Sequence and Lowercase), applied to the text before
// sugarme sees it; sugarme's own normalizer is then removed. sugarme
// v0.3.0's versions fail in three ways the parity test found:
//   - BertNormalizer with strip_accents null does not strip accents when
//     lowercasing ("café" → [UNK]); HF does (strip_accents defaults to
//     lowercase);
//   - its clean_text maps only ' ', \t, \n, \r to space, so a no-break
//     space (U+00A0) stays inside a word ("non\u00a0breaking" → [UNK]); HF
//     maps every Unicode White_Space character;
//   - lowercasing that changes a text's byte length ("İ", "ẞ") makes its
//     offset bookkeeping slice out of range (a panic).
// Offsets are not needed here (ragbench feeds ids only), so plain string
// functions suffice.

// normalizerFunc is a normaliser as a plain string function.
type normalizerFunc func(string) string

// compileNormalizer returns a Go normaliser for a tokenizer.json
// "normalizer" value, or ok=false when it holds a type not implemented here
// (then sugarme's own is used). A null normalizer yields the identity.
func compileNormalizer(raw json.RawMessage) (normalizerFunc, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return func(s string) string { return s }, true
	}
	var spec normalizerSpec
	if json.Unmarshal(raw, &spec) != nil {
		return nil, false
	}
	switch spec.Type {
	case "BertNormalizer":
		return spec.bert(), true
	case "NFC":
		return norm.NFC.String, true
	case "NFD":
		return norm.NFD.String, true
	case "NFKC":
		return norm.NFKC.String, true
	case "NFKD":
		return norm.NFKD.String, true
	case "Lowercase":
		return strings.ToLower, true
	case "StripAccents":
		// HF's StripAccents removes combining marks only (no NFD first).
		return func(s string) string { return strings.Map(dropMn, s) }, true
	case "Strip":
		return func(s string) string {
			if spec.Left {
				s = strings.TrimLeftFunc(s, unicode.IsSpace)
			}
			if spec.Right {
				s = strings.TrimRightFunc(s, unicode.IsSpace)
			}
			return s
		}, true
	case "Prepend":
		return func(s string) string {
			if s == "" {
				return s
			}
			return spec.Prepend + s
		}, true
	case "Replace":
		if spec.Pattern.String == nil {
			return nil, false // regex patterns: leave to sugarme
		}
		old := *spec.Pattern.String
		return func(s string) string { return strings.ReplaceAll(s, old, spec.Content) }, true
	case "Sequence":
		return spec.sequence()
	}
	return nil, false
}

// normalizerSpec is a tokenizer.json normalizer, the fields of every type
// compileNormalizer knows.
type normalizerSpec struct {
	Type               string            `json:"type"`
	CleanText          bool              `json:"clean_text"`
	HandleChineseChars bool              `json:"handle_chinese_chars"`
	StripAccents       *bool             `json:"strip_accents"`
	Lowercase          bool              `json:"lowercase"`
	Normalizers        []json.RawMessage `json:"normalizers"`
	Left               bool              `json:"left"`
	Right              bool              `json:"right"`
	Prepend            string            `json:"prepend"`
	Content            string            `json:"content"`
	Pattern            struct {
		String *string `json:"String"`
	} `json:"pattern"`
}

// bert is HF's BertNormalizer.
func (spec normalizerSpec) bert() normalizerFunc {
	strip := spec.Lowercase // HF: strip_accents None ⇒ follow lowercase
	if spec.StripAccents != nil {
		strip = *spec.StripAccents
	}
	return func(s string) string {
		if spec.CleanText {
			s = bertCleanText(s)
		}
		if spec.HandleChineseChars {
			s = bertPadChinese(s)
		}
		if strip {
			s = stripAccents(s)
		}
		if spec.Lowercase {
			s = strings.ToLower(s)
		}
		return s
	}
}

// sequence is a Sequence normalizer: each of spec.Normalizers in turn.
func (spec normalizerSpec) sequence() (normalizerFunc, bool) {
	var fns []normalizerFunc
	for _, r := range spec.Normalizers {
		f, ok := compileNormalizer(r)
		if !ok {
			return nil, false
		}
		fns = append(fns, f)
	}
	return func(s string) string {
		for _, f := range fns {
			s = f(s)
		}
		return s
	}, true
}

// bertCleanText drops NUL, U+FFFD and "other" characters (Unicode
// categories Cc, Cf, Cs, Co, Cn, except \t \n \r) and maps every White_Space
// character to ' ' (HF bert.rs do_clean_text).
func bertCleanText(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == 0 || r == 0xfffd:
			return -1
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case isOther(r):
			return -1
		case unicode.Is(unicode.White_Space, r):
			return ' '
		}
		return r
	}, s)
}

// isOther reports Unicode general category C (Cc, Cf, Cs, Co, or Cn:
// unassigned).
func isOther(r rune) bool {
	if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Cs, unicode.Co) {
		return true
	}
	return !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z)
}

// bertPadChinese puts spaces around CJK ideographs (HF bert.rs is_chinese_char).
func bertPadChinese(s string) string {
	var b strings.Builder
	for _, r := range s {
		if isCJK(r) {
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isCJK(r rune) bool {
	return (r >= 0x4E00 && r <= 0x9FFF) || (r >= 0x3400 && r <= 0x4DBF) ||
		(r >= 0x20000 && r <= 0x2A6DF) || (r >= 0x2A700 && r <= 0x2B73F) ||
		(r >= 0x2B740 && r <= 0x2B81F) || (r >= 0x2B920 && r <= 0x2CEAF) ||
		(r >= 0xF900 && r <= 0xFAFF) || (r >= 0x2F800 && r <= 0x2FA1F)
}

// stripAccents is NFD followed by removing nonspacing marks (Mn), as HF's
// BertNormalizer does.
func stripAccents(s string) string {
	return strings.Map(dropMn, norm.NFD.String(s))
}

func dropMn(r rune) rune {
	if unicode.Is(unicode.Mn, r) {
		return -1
	}
	return r
}
