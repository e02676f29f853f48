// Package encoder runs ONNX text models — bi-encoders (sentence embedders)
// and cross-encoders (rerankers) — from model folders, through ONNX Runtime
// (github.com/yalue/onnxruntime_go) with tokenization by
// github.com/sugarme/tokenizer. It is shared by retrievers/dense and rerank.
//
// A model folder holds model.onnx, tokenizer.json (Hugging Face tokenizers
// format) and an optional ragbench.json (see Config); defaults come from the
// graph's input and output names, so a standard Hugging Face export needs
// at most a one-line config.
//
// Use:
//
//	if err := encoder.Init(""); err != nil { ... }          // load the runtime once
//	e, err := encoder.LoadEmbedder("models/all-minilm-l6-v2", encoder.Options{})
//	vecs, err := e.Embed(ctx, texts, false)                // passages
//	c := encoder.NewCachedEmbedder(e, ".cache/embeddings")  // same Embed, on disk
//	ce, err := encoder.LoadCrossEncoder(dir, encoder.Options{})
//	logits, err := ce.Score(ctx, query, passages)
//
// Tokenization never goes through the paths of sugarme/tokenizer v0.3.0
// known to be wrong or fatal (see the guards in tokenize.go): each text is
// encoded alone without special tokens, then truncated and wrapped in its
// special tokens here, so the closing [SEP] is never lost.
package encoder
