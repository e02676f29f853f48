package corpus

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// CL100kBase is tiktoken's cl100k_base encoding (GPT-4's, and Chroma's
// FixedTokenChunker default), the one BPE tokenizer Spec.Tokenizer names.
const CL100kBase = "cl100k_base"

// BPE is a tiktoken byte-pair encoding, loaded offline from the BPE file
// embedded in github.com/pkoukk/tiktoken-go-loader (cl100k_base.tiktoken,
// sha1 6494e42d5aad2bbb441ea9793af9e7db335c8d9c). It is safe for concurrent
// use.
type BPE struct {
	name string
	enc  *tiktoken.Tiktoken
}

var (
	bpeMu    sync.Mutex
	bpeCache = map[string]*BPE{}
)

// LoadBPE returns the named encoding (only CL100kBase), loading it once per
// process (about 0.5 s and 20 MB). Another name is an error.
func LoadBPE(name string) (*BPE, error) {
	if name != CL100kBase {
		return nil, fmt.Errorf("unknown tokenizer %q (want %q)", name, CL100kBase)
	}
	bpeMu.Lock()
	defer bpeMu.Unlock()
	if b, ok := bpeCache[name]; ok {
		return b, nil
	}
	// The loader is package state of tiktoken-go; ragbench sets the
	// offline one and never another, so nothing is fetched over the network.
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(name)
	if err != nil {
		return nil, fmt.Errorf("tokenizer %s: %w", name, err)
	}
	b := &BPE{name: name, enc: enc}
	bpeCache[name] = b
	return b, nil
}

// Name is the encoding's name, e.g. "cl100k_base".
func (b *BPE) Name() string { return b.name }

// Encode returns the token ids of text. Special-token strings such as
// "<|endoftext|>" are encoded as ordinary text (tiktoken's
// encode(disallowed_special=())); tiktoken's default, and so Chroma's, is to
// raise an error on them instead.
func (b *BPE) Encode(text string) []int { return b.enc.EncodeOrdinary(text) }

// Count is len(Encode(text)): text's length in tokens.
func (b *BPE) Count(text string) int { return len(b.enc.EncodeOrdinary(text)) }

// Decode returns the text of ids as tiktoken's decode does: the tokens'
// bytes joined, with each invalid UTF-8 sequence (a character cut by a
// window's edge) replaced by U+FFFD the way Python's
// bytes.decode("utf-8", errors="replace") does it: one U+FFFD per maximal
// subpart of an ill-formed sequence (Unicode §3.9, "U+FFFD substitution of
// maximal subparts"), not one per byte as Go's range over a string.
func (b *BPE) Decode(ids []int) string { return replaceInvalidUTF8(b.enc.Decode(ids)) }

// replaceInvalidUTF8 applies Python's errors="replace" rule (see Decode).
func replaceInvalidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var out strings.Builder
	for i := 0; i < len(s); {
		if r, size := utf8.DecodeRuneInString(s[i:]); r != utf8.RuneError || size > 1 {
			out.WriteString(s[i : i+size])
			i += size
			continue
		}
		// s[i] starts an ill-formed sequence: skip the lead byte and the
		// continuation bytes that could still begin a valid character
		// (Unicode Table 3-7), then write one U+FFFD.
		lo, hi, n := leadRange(s[i])
		i++
		for k := 0; k < n && i < len(s); k++ {
			if s[i] < lo || s[i] > hi {
				break
			}
			lo, hi = 0x80, 0xBF
			i++
		}
		out.WriteRune(utf8.RuneError)
	}
	return out.String()
}

// leadRange gives, for a lead byte, the allowed range of the next byte and
// how many continuation bytes follow (0 for a byte that starts no
// character), per Unicode Table 3-7.
func leadRange(c byte) (lo, hi byte, n int) {
	switch {
	case c >= 0xC2 && c <= 0xDF:
		return 0x80, 0xBF, 1
	case c == 0xE0:
		return 0xA0, 0xBF, 2
	case c == 0xED:
		return 0x80, 0x9F, 2
	case c >= 0xE1 && c <= 0xEF:
		return 0x80, 0xBF, 2
	case c == 0xF0:
		return 0x90, 0xBF, 3
	case c >= 0xF1 && c <= 0xF3:
		return 0x80, 0xBF, 3
	case c == 0xF4:
		return 0x80, 0x8F, 3
	}
	return 0, 0, 0
}
