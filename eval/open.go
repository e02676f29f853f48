package eval

import "io"

// Open opens a qrels, run or JSONL file as every reader of this package
// does: a name ending in ".gz", or content starting with the gzip magic
// bytes 1f 8b, is decompressed (a stream cut short reads as a *SyntaxError
// "corrupt gzip"); a folder is a *SyntaxError. Other readers of such files
// (diagnose.ReadSlices, the sweep) open them here, so that one rule decides
// what is compressed. The caller closes the result.
func Open(path string) (io.ReadCloser, error) { return openMaybeGzip(path) }
