package sweep

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ragbench/ragbench/retrievers/engine"
)

// EngineHealth is the pre-flight answer of the cluster behind one or more
// engine retrievers (bench run --check): the retrievers that share the
// connection (the same URLs, credential variables and CA file) and each
// node's GET /_cluster/health.
type EngineHealth struct {
	// Retrievers are the names of the retrievers on this connection, in
	// config order.
	Retrievers []string
	// Nodes are the nodes' answers, in the order of the config's urls.
	Nodes []engine.NodeHealth
}

// CheckEngines dials every engine retriever's cluster the way the run
// will (engine.Ping: each URL's /_cluster/health with the configured
// credentials, no retry, at most timeout per node; 0 means
// engine.DefaultPingTimeout), once per distinct connection. It is the
// only check of bench run --check that needs the network; cfg must have
// passed Validate (credential variables set). The error names the config
// file and line of the first retriever's urls, every retriever sharing the
// connection, and each failing node; credentials are never part of it.
func CheckEngines(ctx context.Context, cfg *Config, timeout time.Duration) ([]EngineHealth, error) {
	var out []EngineHealth
	var errs []error
	seen := map[string]int{} // connection key → index in out
	var firstIdx []int       // per out entry: the retriever whose urls line an error names
	for i, r := range cfg.Retrievers {
		if !isEngine(r.Type) {
			continue
		}
		key := strings.Join([]string{strings.Join(r.URLs, ","), r.UserEnv, r.PasswordEnv, r.APIKeyEnv, r.CAFile}, "\x00")
		if j, ok := seen[key]; ok {
			out[j].Retrievers = append(out[j].Retrievers, r.Name)
			continue
		}
		seen[key] = len(out)
		firstIdx = append(firstIdx, i)
		nodes, err := engine.Ping(ctx, r.engineConn(), timeout)
		out = append(out, EngineHealth{Retrievers: []string{r.Name}, Nodes: nodes})
		errs = append(errs, err) // nil for a healthy connection
	}
	var bad []error
	for j, err := range errs {
		if err == nil {
			continue
		}
		names := make([]string, len(out[j].Retrievers))
		for k, n := range out[j].Retrievers {
			names[k] = fmt.Sprintf("%q", n)
		}
		noun := "retriever"
		if len(names) > 1 {
			noun = "retrievers"
		}
		// errors.Join puts one node per line; the config error is one line.
		msg := strings.ReplaceAll(err.Error(), "\n", "; ")
		bad = append(bad, cfg.errf(fmt.Sprintf("retrievers.%d.urls", firstIdx[j]), "%s %s: %s", noun, strings.Join(names, ", "), msg))
	}
	return out, errors.Join(bad...)
}
