package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// DefaultPingTimeout bounds each node's answer in Ping when the caller
// passes 0: a pre-flight check should say "unreachable" in seconds, not
// after the 60 s a bulk request may take.
const DefaultPingTimeout = 5 * time.Second

// NodeHealth is one node's answer to GET /_cluster/health, the request
// both engines answer to any authenticated user with the monitor privilege
// (Elasticsearch's and OpenSearch's cluster health API).
type NodeHealth struct {
	// URL is the node's base URL as configured (Conn refuses credentials
	// in URLs, so it holds none).
	URL string
	// Cluster is the cluster_name, Status its health: "green", "yellow"
	// or "red"; Nodes is number_of_nodes.
	Cluster, Status string
	Nodes           int
}

// Ping checks that every node of c is reachable and accepts c's
// credentials: one GET /_cluster/health per URL, in order, with c's auth,
// no retry, each bounded by timeout (0: DefaultPingTimeout; c.Timeout
// when that is shorter). Credentials are read from the environment as
// Load and Open read them; neither they nor the Authorization header
// appear in any error. It returns every node's health, or the errors of
// all the nodes that failed (joined, each naming its node: unreachable,
// HTTP 401 "authentication failed", 403, an answer that is not the
// health JSON), or dial's error for a bad Conn.
func Ping(ctx context.Context, c Conn, timeout time.Duration) ([]NodeHealth, error) {
	if timeout <= 0 {
		timeout = DefaultPingTimeout
	}
	if c.Timeout > 0 && c.Timeout < timeout {
		timeout = c.Timeout
	}
	c.Timeout, c.Retries = timeout, 0
	cl, err := dial(c)
	if err != nil {
		return nil, err
	}
	var out []NodeHealth
	var errs []error
	for i, u := range cl.urls {
		b, err := cl.onceAt(ctx, i, "GET", "/_cluster/health", nil)
		if err != nil {
			errs = append(errs, pingErr(u.Scheme+"://"+u.Host, err))
			continue
		}
		var h struct {
			Cluster string `json:"cluster_name"`
			Status  string `json:"status"`
			Nodes   int    `json:"number_of_nodes"`
		}
		if err := json.Unmarshal(b, &h); err != nil || h.Status == "" {
			// Redacted before the cut (a secret cut in two) and after
			// quoting (its escapes).
			errs = append(errs, fmt.Errorf("engine: node %s: GET /_cluster/health: the answer is not a cluster health (not Elasticsearch or OpenSearch?): %s", u.Scheme+"://"+u.Host, cl.engineText(fmt.Sprintf("%.80q", cl.engineText(string(b), 0)), 0)))
			continue
		}
		out = append(out, NodeHealth{URL: c.URLs[i], Cluster: h.Cluster, Status: h.Status, Nodes: h.Nodes})
	}
	if len(errs) > 0 {
		return out, errors.Join(errs...)
	}
	return out, nil
}

// pingErr names the node in an HTTP error (HTTPError carries only the
// path); a nodeError already does.
func pingErr(node string, err error) error {
	var he *HTTPError
	if errors.As(err, &he) {
		return fmt.Errorf("engine: node %s: %s", node, strings.TrimPrefix(err.Error(), "engine: "))
	}
	return err
}
