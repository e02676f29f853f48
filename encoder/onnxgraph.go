package encoder

import (
	"google.golang.org/protobuf/encoding/protowire"
)

// graphFacts are what ragbench reads from the ONNX protobuf itself.
type graphFacts struct {
	// EmbeddingRows is the token embedding table's row count (0: unknown).
	EmbeddingRows int
	// DynamicQuant: the graph has DynamicQuantizeLinear nodes, whose
	// scale is computed over the whole batch, so a text's vector depends on
	// the other texts batched (and padded) with it.
	DynamicQuant bool
}

// readGraphFacts reads graphFacts from the bytes of model.onnx (the bytes
// loadModel has read once for its sha256 as well).
func readGraphFacts(onnx []byte) graphFacts {
	rows, dq := embeddingRows(onnx)
	return graphFacts{EmbeddingRows: rows, DynamicQuant: dq}
}

// embeddingRows returns the row count of the graph's token embedding table
// (the first dimension of the initializer that a Gather node indexes with
// input_ids, possibly through Cast/Identity/Reshape/Unsqueeze nodes and, on
// the table side, Identity/Cast/DequantizeLinear), or 0 when it cannot be
// identified, and whether the graph quantizes activations dynamically. It reads the ONNX protobuf directly (onnx.proto: ModelProto
// field 7 graph; GraphProto 1 node, 5 initializer; NodeProto 1 input,
// 2 output, 4 op_type; TensorProto 1 dims, 8 name), skipping weights.
func embeddingRows(b []byte) (rows int, dynamicQuant bool) {
	graph := field(b, 7)
	if graph == nil {
		return 0, false
	}
	g := parseGraph(graph)
	for _, n := range g.nodes {
		if n.op == "DynamicQuantizeLinear" {
			dynamicQuant = true
		}
	}
	for _, n := range g.nodes {
		if n.op != "Gather" || len(n.in) < 2 || !g.fromIDs(n.in[1], 0) {
			continue
		}
		if d := g.table(n.in[0], 0); len(d) == 2 && d[0] > 0 {
			return int(d[0]), dynamicQuant
		}
	}
	return 0, dynamicQuant
}

// graphNode is a GraphProto node: op type, inputs, outputs.
type graphNode struct {
	op      string
	in, out []string
}

// graphInfo is what embeddingRows reads of a GraphProto: its nodes, the
// dimensions of its initializers, and each value's producer.
type graphInfo struct {
	nodes    []graphNode
	dims     map[string][]int64
	producer map[string]graphNode
}

func parseGraph(graph []byte) *graphInfo {
	g := &graphInfo{dims: map[string][]int64{}, producer: map[string]graphNode{}}
	forEach(graph, func(num protowire.Number, v []byte) {
		switch num {
		case 1:
			var n graphNode
			forEach(v, func(num protowire.Number, v []byte) {
				switch num {
				case 1:
					n.in = append(n.in, string(v))
				case 2:
					n.out = append(n.out, string(v))
				case 4:
					n.op = string(v)
				}
			})
			g.nodes = append(g.nodes, n)
		case 5:
			name, d := initializerDims(v)
			g.dims[name] = d
		}
	})
	for _, n := range g.nodes {
		for _, o := range n.out {
			g.producer[o] = n
		}
	}
	return g
}

// initializerDims returns a TensorProto's name and dimensions.
func initializerDims(v []byte) (name string, d []int64) {
	forEachRaw(v, func(num protowire.Number, typ protowire.Type, raw []byte) {
		switch {
		case num == 8 && typ == protowire.BytesType:
			s, _ := protowire.ConsumeBytes(raw)
			name = string(s)
		case num == 1 && typ == protowire.VarintType:
			x, _ := protowire.ConsumeVarint(raw)
			d = append(d, int64(x))
		case num == 1 && typ == protowire.BytesType: // packed
			p, _ := protowire.ConsumeBytes(raw)
			for len(p) > 0 {
				x, n := protowire.ConsumeVarint(p)
				if n < 0 {
					break
				}
				d = append(d, int64(x))
				p = p[n:]
			}
		}
	})
	return name, d
}

// fromIDs reports whether name is input_ids seen through shape-only ops.
func (g *graphInfo) fromIDs(name string, depth int) bool {
	if name == "input_ids" {
		return true
	}
	n, ok := g.producer[name]
	if !ok || depth > 8 || len(n.in) == 0 {
		return false
	}
	switch n.op {
	case "Cast", "Identity", "Reshape", "Unsqueeze", "Squeeze", "Flatten":
		return g.fromIDs(n.in[0], depth+1)
	}
	return false
}

// table returns the dimensions of the initializer name is, seen through
// casts and dequantization.
func (g *graphInfo) table(name string, depth int) []int64 {
	if d, ok := g.dims[name]; ok {
		return d
	}
	n, ok := g.producer[name]
	if !ok || depth > 8 || len(n.in) == 0 {
		return nil
	}
	switch n.op {
	case "Cast", "Identity", "DequantizeLinear":
		return g.table(n.in[0], depth+1)
	}
	return nil
}

// field returns the bytes of the first length-delimited field num in b.
func field(b []byte, num protowire.Number) []byte {
	var out []byte
	forEach(b, func(n protowire.Number, v []byte) {
		if n == num && out == nil {
			out = v
		}
	})
	return out
}

// forEach calls fn for each length-delimited field of message b.
func forEach(b []byte, fn func(protowire.Number, []byte)) {
	forEachRaw(b, func(num protowire.Number, typ protowire.Type, raw []byte) {
		if typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(raw)
			fn(num, v)
		}
	})
}

// forEachRaw calls fn for each field of message b with its raw value bytes
// (tag removed); it stops at the first malformed field.
func forEachRaw(b []byte, fn func(protowire.Number, protowire.Type, []byte)) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return
		}
		b = b[n:]
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return
		}
		fn(num, typ, b[:m])
		b = b[m:]
	}
}
