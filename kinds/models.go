package kinds

import "github.com/ragbench/ragbench/encoder"

// Embedder is the sweep's embedder of mod (retriever name, for errors):
// the one its dense cells use, loaded once per sweep and closed by Close.
// The sweep counts with it what the model truncates (encoder's TokensCut),
// without loading the model twice.
func (e *Env) Embedder(name string, mod *ONNXModel) (*encoder.Embedder, error) {
	c, err := e.embedder(name, mod)
	if err != nil {
		return nil, err
	}
	return c.Embedder(), nil
}

// CrossEncoder is the sweep's cross-encoder of mod, as Embedder.
func (e *Env) CrossEncoder(name string, mod *ONNXModel) (*encoder.CrossEncoder, error) {
	c, err := e.cross(name, mod)
	if err != nil {
		return nil, err
	}
	return c.ce, nil
}
