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

// EngineConnection is one distinct connection of a config's engine
// retrievers: the same URLs, credential variables and CA file (the unit
// bench run --check dials once, and --check --offline lists).
type EngineConnection struct {
	// URLs are the nodes' URLs as configured.
	URLs []string
	// Retrievers are the names of the retrievers on this connection, in
	// config order.
	Retrievers []string

	first int // index in Config.Retrievers of the first of Retrievers
}

// EngineConnections are cfg's engine connections in the order of their
// first retriever; none when cfg has no engine retriever. It makes no
// request. It is the one grouping of engine retrievers into connections.
func EngineConnections(cfg *Config) []EngineConnection {
	var out []EngineConnection
	seen := map[string]int{} // connection key → index in out
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
		out = append(out, EngineConnection{URLs: r.URLs, Retrievers: []string{r.Name}, first: i})
	}
	return out
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
	conns := EngineConnections(cfg)
	out := make([]EngineHealth, len(conns))
	errs := make([]error, len(conns))
	for j, c := range conns {
		nodes, err := engine.Ping(ctx, cfg.Retrievers[c.first].engineConn(), timeout)
		out[j] = EngineHealth{Retrievers: c.Retrievers, Nodes: nodes}
		errs[j] = err // nil for a healthy connection
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
		bad = append(bad, cfg.errf(fmt.Sprintf("retrievers.%d.urls", conns[j].first), "%s %s: %s", noun, strings.Join(names, ", "), msg))
	}
	return out, errors.Join(bad...)
}
