package encoder

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// kindFromOutputs is the kind of a model whose ragbench.json sets none:
// KindCrossEncoder when the graph has an output named "logits" (the name
// Hugging Face's sequence-classification export gives the relevance head),
// else KindEmbedder. It is the one place this rule lives: Load, Check and
// FolderKind all apply it.
func kindFromOutputs(names []string) string {
	if slices.Contains(names, "logits") {
		return KindCrossEncoder
	}
	return KindEmbedder
}

// FolderKind says which kind of model the folder dir holds, KindEmbedder or
// KindCrossEncoder, as Load resolves it but without ONNX Runtime (for
// checks before any work): ConfigFile's "kind" when set, else
// kindFromOutputs over the graph's output names read from ModelFile's
// protobuf. how says where the kind came from, for messages ("ragbench.json
// says kind \"embedder\"", "inferred: its graph has an output named
// \"logits\""). Errors: ConfigFile unreadable or invalid (file:line), a
// kind other than the two, ModelFile missing or not an ONNX model.
func FolderKind(dir string) (kind, how string, err error) {
	cfg, _, err := readConfig(dir)
	if err != nil {
		return "", "", err
	}
	switch cfg.Kind {
	case KindEmbedder, KindCrossEncoder:
		return cfg.Kind, fmt.Sprintf("%s says kind %q", ConfigFile, cfg.Kind), nil
	case "":
	default:
		return "", "", fmt.Errorf("%s: kind %q: want %q or %q", filepath.Join(dir, ConfigFile), cfg.Kind, KindEmbedder, KindCrossEncoder)
	}
	modelPath := filepath.Join(dir, ModelFile)
	outs, err := graphOutputs(modelPath)
	if err != nil {
		return "", "", err
	}
	if kind := kindFromOutputs(outs); kind == KindCrossEncoder {
		return kind, "inferred: its graph has an output named \"logits\"", nil
	}
	return KindEmbedder, fmt.Sprintf("inferred: its graph's outputs %q include no \"logits\"", outs), nil
}

// graphOutputs reads the output names of an ONNX graph from its protobuf
// (onnx.proto: ModelProto field 7 graph; GraphProto field 12 output;
// ValueInfoProto field 1 name).
func graphOutputs(modelPath string) ([]string, error) {
	b, err := os.ReadFile(modelPath)
	if err != nil {
		return nil, err
	}
	var outs []string
	forEach(field(b, 7), func(num protowire.Number, v []byte) {
		if num == 12 {
			if name := field(v, 1); name != nil {
				outs = append(outs, string(name))
			}
		}
	})
	if len(outs) == 0 {
		return nil, fmt.Errorf("%s: not an ONNX model (cannot read the graph's outputs)", modelPath)
	}
	return outs, nil
}
