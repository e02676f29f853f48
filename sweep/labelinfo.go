package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/ragbench/ragbench/corpus"
)

// checkLabelRecord checks chunk-id labels against the chunking recorded
// beside them (corpus.LabelInfoPath of the judgements file), for every
// chunking of the grid, before any work: chunk ids such as "d1#1" exist
// under every chunking but name other text, so labels made with another
// chunking would silently score as misses. Without a record nothing is
// checked here (corpus.CheckLabelsFile still checks the ids per chunking).
func checkLabelRecord(cfg *Config, ds *dataset) error {
	if ds.judged == "" {
		return nil
	}
	info, err := corpus.ReadLabelInfo(ds.judged)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var bad []string
	var first error
	for _, ch := range cfg.Chunkings() {
		if err := info.Check(ch.Spec(), ds.docs); err != nil {
			bad = append(bad, ch.Name)
			if first == nil {
				first = err
			}
		}
	}
	if first == nil {
		return nil
	}
	return fmt.Errorf("%s: chunk-id labels recorded for chunking %s (%s) cannot score chunking %s of %s: %w",
		ds.judged, info.Chunking, corpus.LabelInfoPath(ds.judged), strings.Join(bad, ", "), cfg.Path(), first)
}
