#!/usr/bin/env python3
"""Generates hf_parity_minilm.json: token ids from Hugging Face's own
`tokenizers` (PyPI, Rust implementation) for the all-MiniLM-L6-v2
tokenizer.json in all-minilm-l6-v2/, on varied texts (SciFact abstracts and
queries, accents, other scripts, control characters, very long inputs), as
an independent reference for encoder's sugarme-based tokenization.

    python3 -m venv /tmp/hfvenv && /tmp/hfvenv/bin/pip install tokenizers==0.23.3
    /tmp/hfvenv/bin/python gen_hf_parity.py ../../../shared/datasets/scifact

Single texts: encode(text) with [CLS]/[SEP], no truncation ("ids"), and
with truncation to 256 tokens ("ids_256", what the model is fed).
Pairs: encode(query, passage) truncated to 128 with strategy only_second
(the passage is cut, the query kept), as ragbench's cross-encoder lays them.
"""
import json
import sys

import tokenizers
from tokenizers import Tokenizer

here = sys.path[0]
scifact = sys.argv[1]
tok = Tokenizer.from_file(f"{here}/all-minilm-l6-v2/tokenizer.json")
tok.no_padding()

handmade = [
    "café", "Café au lait", "naïve résumé", "Ångström and Å (U+212B)", "Müller's Straße",
    "São Paulo", "Dvořák", "Łódź", "crème brûlée", "façade", "El Niño", "jalapeño",
    "e\u0301 combining acute", "Zoë Saldaña", "Beyoncé", "Ελληνικά γράμματα",
    "русский текст", "日本語のテキスト", "中文字符测试", "한국어 문장", "עברית", "العربية",
    "emoji 😀👍🏽", "ﬁnancial ﬂow ﬀ ligatures", "ＦＵＬＬＷＩＤＴＨ ａｂｃ １２３", "µg/mL and 5 µm",
    "x² + y³ = z⁴", "½ cup", "İstanbul ıı", "ß ẞ", "tab\tseparated\tvalues",
    "new\nline\r\nbreaks", "bell\x07char and NUL-free control \x1b", "zero\u200bwidth space",
    "non\u00a0breaking space", "   leading and trailing spaces   ", "MiXeD CaSe WoRdS",
    "don't can't won't", "https://example.org/path?q=1&r=2#frag", "e-mail: a.b@c.de",
    "3.14159e-10 ± 0.5%", "p < 0.05; n = 1,024", "IL-6/STAT3 (pSTAT3^Y705)", "[CLS] [SEP] literal",
    "a" * 150, "antidisestablishmentarianism " * 3, "supercalifragilisticexpialidocious",
    "The quick brown fox jumps over the lazy dog.", "?!?!...", "—–-", "“smart quotes” and ‘single’",
    "C++ and C# and F#", "HTML <b>bold</b> &amp; entities", "αβγ-secretase", "TNF-α and IFN-γ",
    "Ca²⁺ influx", "β-amyloid (Aβ42)", "COVID‑19 (non-breaking hyphen)", "naïve T cells",
    "Pokémon", "Citroën", "Øresund", "Þórr", "Ðe", "ĳ digraph", "Ǆ titlecase", "ﬅ", "㎏ ㎡",
]

texts = list(handmade)
with open(f"{scifact}/corpus.jsonl") as f:
    for i, line in enumerate(f):
        if i >= 120:
            break
        d = json.loads(line)
        texts.append((d["title"] + " " + d["text"]).strip())
queries = []
with open(f"{scifact}/queries.jsonl") as f:
    for i, line in enumerate(f):
        if i >= 60:
            break
        queries.append(json.loads(line)["text"])
texts += queries
# A very long input (several abstracts joined).
texts.append(" ".join(texts[len(handmade):len(handmade) + 8]))

singles = []
for t in texts:
    tok.no_truncation()
    full = tok.encode(t).ids
    tok.enable_truncation(256)
    cut = tok.encode(t).ids
    singles.append({"text": t, "ids": full, "ids_256": cut})

pairs = []
tok.enable_truncation(128, strategy="only_second")
for q, p in zip(queries[:40], texts[len(handmade):len(handmade) + 40]):
    e = tok.encode(q, p)
    pairs.append({"query": q, "passage": p, "ids": e.ids, "type_ids": e.type_ids})

json.dump({"generator": "gen_hf_parity.py", "tokenizers_version": tokenizers.__version__,
           "singles": singles, "pairs": pairs},
          open(f"{here}/hf_parity_minilm.json", "w"), ensure_ascii=False)
print(len(singles), "texts,", len(pairs), "pairs")

# use-lite (SentencePiece Unigram, NFKC, Metaspace) from ../shared: texts
# whitespace-trimmed as ragbench's default, no special tokens.
ul = Tokenizer.from_file(f"{scifact}/../../models/use-lite/tokenizer.json")
ul.no_truncation()
ul.no_padding()
ul_texts = [t.strip() for t in handmade + texts[len(handmade):len(handmade) + 40] + queries[:40]]
ul_texts = [t for t in ul_texts if t]
json.dump({"generator": "gen_hf_parity.py", "tokenizers_version": tokenizers.__version__,
           "singles": [{"text": t, "ids": ul.encode(t).ids} for t in ul_texts]},
          open(f"{here}/hf_parity_uselite.json", "w"), ensure_ascii=False)
print(len(ul_texts), "use-lite texts")
