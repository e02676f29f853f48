package encoder

// embeddingRows returns the row count of the graph's token embedding table,
// or 0 when it cannot be identified.
func embeddingRows(modelPath string) int { return 0 }
