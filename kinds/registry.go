package kinds

import "github.com/ragbench/ragbench/retrievers/engine"

// registry lists the kinds, in the order messages name them. A new kind
// is a file of this package and one line here.
var registry = []Kind{
	{Name: "bm25", New: func() Settings { return new(BM25) }, Reference: true},
	{Name: "dense", New: func() Settings { return new(Dense) }},
	{Name: "hybrid", New: func() Settings { return new(Hybrid) }},
	{Name: "rerank", New: func() Settings { return new(Rerank) }},
	{Name: "elasticsearch", New: func() Settings { return &Engine{dialect: engine.Elasticsearch} }},
	{Name: "opensearch", New: func() Settings { return &Engine{dialect: engine.OpenSearch} }},
	{Name: "run", New: func() Settings { return new(RunFile) }},
	{Name: "http", New: func() Settings { return new(HTTP) }},
}
