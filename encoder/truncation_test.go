package encoder

import (
	"context"
	"testing"
)

// TestTokensCutMatchesHF: what all-minilm-l6-v2 (max_length 256) cuts from
// each of the 249 texts of testdata/hf_parity_minilm.json is the length of
// Hugging Face tokenizers' untruncated ids ([CLS] and [SEP] included) beyond
// 256, and 0 for a text that fits; the fixture holds texts far longer than
// that, and Tokenize marks exactly those truncated.
func TestTokensCutMatchesHF(t *testing.T) {
	needRuntime(t)
	e, err := LoadEmbedder(standardModel(t, "all-minilm-l6-v2"), Options{TextNormalization: TextTrim})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var ref hfParity
	readJSON(t, "testdata/hf_parity_minilm.json", &ref)
	var texts []string
	for _, s := range ref.Singles {
		if normalizeText(s.Text, TextTrim) != "" {
			texts = append(texts, s.Text)
		}
	}
	cuts, err := e.TokensCut(context.Background(), texts, false)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := e.Tokenize(context.Background(), texts, false)
	if err != nil {
		t.Fatal(err)
	}
	if e.Config().MaxLength != 256 {
		t.Fatalf("max_length %d, want 256 (ragbench.json)", e.Config().MaxLength)
	}
	long, j := 0, 0
	for _, s := range ref.Singles {
		if normalizeText(s.Text, TextTrim) == "" {
			continue
		}
		want := max(0, len(s.IDs)-256)
		if cuts[j] != want {
			t.Errorf("text %d %q: %d tokens cut, want %d (Hugging Face: %d ids)", j, trunc(s.Text), cuts[j], want, len(s.IDs))
		}
		if toks[j].Truncated != (want > 0) {
			t.Errorf("text %d: Tokenize says truncated %v, but %d tokens are cut", j, toks[j].Truncated, want)
		}
		if want > 0 {
			long++
		}
		j++
	}
	if long < 5 {
		t.Fatalf("only %d texts longer than 256 tokens: the fixture does not test truncation", long)
	}
}

// TestPairTokensCut: ce-scifact-tiny scores a pair within max_length, the
// query capped at max_query_tokens; PairTokensCut counts the passage's
// tokens beyond what is left, as the ids Score lays out (pairIDs) drop
// them: a short passage loses nothing, a passage repeated far beyond the
// window loses exactly its excess.
func TestPairTokensCut(t *testing.T) {
	needRuntime(t)
	dir, _ := ceTiny(t)
	ce, err := LoadCrossEncoder(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ce.Close()
	long := ""
	for range 200 {
		long += "retrieval evaluation measures "
	}
	q := "what does ragbench measure"
	qc, pc, err := ce.PairTokensCut(q, []string{"a short passage", long})
	if err != nil {
		t.Fatal(err)
	}
	cfg := ce.Config()
	qids, _ := ce.m.tok.encode(cfg.QueryPrefix + normalizeText(q, cfg.TextNormalization))
	pids, _ := ce.m.tok.encode(cfg.PassagePrefix + normalizeText(long, cfg.TextNormalization))
	ids, _, truncated := ce.m.tok.pairIDs(qids, pids, cfg.MaxLength, cfg.MaxQueryTokens)
	kept := len(ids) - ce.m.tok.pair.specials() - min(len(qids), cfg.MaxQueryTokens)
	if qc != 0 || pc[0] != 0 || !truncated || pc[1] != len(pids)-kept || pc[1] <= 0 || len(ids) != cfg.MaxLength {
		t.Errorf("cut query %d, passages %v; the long passage has %d ids, %d kept in a pair of %d (max_length %d)", qc, pc, len(pids), kept, len(ids), cfg.MaxLength)
	}
}
