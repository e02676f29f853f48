package sweep

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ragbench/ragbench/kinds"
	"github.com/ragbench/ragbench/retrievers/engine"
)

// EngineHealth is the pre-flight answer of the cluster behind one or more
// engine retrievers (bench run --check): the retrievers that share the
// connection (the same URLs, credential variables and CA file) and each
// node's GET /_cluster/health.
type EngineHealth struct {
	// URLs are the nodes' URLs as configured.
	URLs []string
	// Retrievers are the names of the retrievers on this connection, in
	// config order.
	Retrievers []string
	// Nodes are the nodes' answers, in the order of the config's urls
	// (nil when not contacted: --check --offline).
	Nodes []engine.NodeHealth
}

// EngineConnection is one distinct connection of a config's retrievers
// that dial a cluster (kinds.Dialer: the engines): the unit bench run
// --check dials once, and --check --offline lists.
type EngineConnection struct {
	// URLs are the nodes' URLs as configured.
	URLs []string
	// Retrievers are the names of the retrievers on this connection, in
	// config order.
	Retrievers []string

	first int              // index in Config.Retrievers of the first of Retrievers
	conn  kinds.Connection // the first retriever's connection
}

// EngineConnections are cfg's engine connections in the order of their
// first retriever; none when cfg has no retriever that dials. It makes no
// request. It is the one grouping of retrievers into connections
// (kinds.Connection.Key).
func EngineConnections(cfg *Config) []EngineConnection {
	var out []EngineConnection
	seen := map[string]int{} // connection key → index in out
	for i, r := range cfg.Retrievers {
		d, ok := r.Settings.(kinds.Dialer)
		if !ok {
			continue
		}
		conn := d.Connection()
		if j, ok := seen[conn.Key]; ok {
			out[j].Retrievers = append(out[j].Retrievers, r.Name)
			continue
		}
		seen[conn.Key] = len(out)
		out = append(out, EngineConnection{URLs: conn.URLs, Retrievers: []string{r.Name}, first: i, conn: conn})
	}
	return out
}

// CheckEngines dials every engine connection the way the run will
// (kinds.Connection.Ping: each URL's /_cluster/health with the configured
// credentials, no retry, at most timeout per node; 0 means the kind's
// default, engine.DefaultPingTimeout), once per distinct connection. It is
// the only check of bench run --check that needs the network; cfg must
// have passed Validate (credential variables set). The error names the
// config file and line of the first retriever's urls, every retriever
// sharing the connection, and each failing node; credentials are never
// part of it.
func CheckEngines(ctx context.Context, cfg *Config, timeout time.Duration) ([]EngineHealth, error) {
	conns := EngineConnections(cfg)
	out := make([]EngineHealth, len(conns))
	var bad []error
	for j, c := range conns {
		nodes, err := c.conn.Ping(ctx, timeout)
		out[j] = EngineHealth{URLs: c.URLs, Retrievers: c.Retrievers, Nodes: nodes}
		if err == nil {
			continue
		}
		names := make([]string, len(c.Retrievers))
		for k, n := range c.Retrievers {
			names[k] = fmt.Sprintf("%q", n)
		}
		noun := "retriever"
		if len(names) > 1 {
			noun = "retrievers"
		}
		// errors.Join puts one node per line; the config error is one line.
		msg := strings.ReplaceAll(err.Error(), "\n", "; ")
		bad = append(bad, cfg.Errf(fmt.Sprintf("retrievers.%d.%s", c.first, c.conn.URLKey), "%s %s: %s", noun, strings.Join(names, ", "), msg))
	}
	return out, errors.Join(bad...)
}
