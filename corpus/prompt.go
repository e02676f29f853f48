package corpus

import "unicode/utf8"

// PrefixBytes is the length in bytes of text's longest prefix of whole
// characters within its first n tokens (all of text when n ≥
// Count(text); 0 for n ≤ 0): tiktoken's decode_bytes of the first n
// tokens, which is a byte prefix of text, without a character its last
// token cuts — Python's len(enc.decode_bytes(enc.encode_ordinary(text)[:n])
// .decode("utf-8", errors="ignore")) in code points. It is how a prompt
// budget cuts its last chunk (spans.Prompt).
func (b *BPE) PrefixBytes(text string, n int) int {
	return b.PrefixBytesOf(text, b.Encode(text), n)
}

// PrefixBytesOf is PrefixBytes for a caller that holds text's ids
// (Encode(text)), so a text cut at many budgets is encoded once.
func (b *BPE) PrefixBytesOf(text string, ids []int, n int) int {
	if n <= 0 {
		return 0
	}
	if n >= len(ids) {
		return len(text)
	}
	l := len(b.enc.Decode(ids[:n])) // raw bytes, a prefix of text
	for l > 0 && l < len(text) && !utf8.RuneStart(text[l]) {
		l--
	}
	return l
}
