// Package modellist is the one list of the models scripts/fetch-models.sh
// fetches (fetch-models.txt in this folder: the script reads it, and Go
// embeds it), so that the config's "model not found" hints and the script
// never disagree about which models a setup run provides.
package modellist

import (
	_ "embed"
	"strings"
)

//go:embed fetch-models.txt
var fetchModels string

// Fetched returns the names of the models scripts/fetch-models.sh fetches
// (the first |-separated field of each line of fetch-models.txt that is
// neither blank nor a # comment), in file order.
func Fetched() []string {
	var names []string
	for _, line := range strings.Split(fetchModels, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, _, _ := strings.Cut(line, "|")
		names = append(names, name)
	}
	return names
}
