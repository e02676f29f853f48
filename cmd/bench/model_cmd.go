package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/ragbench/ragbench/encoder"
	"github.com/ragbench/ragbench/internal/modellist"
)

const modelUsage = `usage: bench model <check|embed|score> DIR [flags] [FILE]

Check an ONNX model folder (model.onnx, tokenizer.json, optional
ragbench.json; see docs/models.md), or run it on texts to confirm a
Hugging Face export works before a long sweep.

  check DIR   load the folder; print its kind, the graph's inputs and outputs
              with shapes, the resolved config, the tokenizer guards applied
              and the ONNX Runtime version; run one text through it. Exits 1
              if anything is off.
  embed DIR   read texts, one per line (FILE or stdin), write one JSON line
              {"text","ids","embedding"} per text.
  score DIR   read "query<TAB>passage" lines (FILE or stdin), write one JSON
              line {"query","passage","score"} per pair (score = the
              cross-encoder's logit).

Flags (after DIR or before it):
  --onnxruntime LIB          ONNX Runtime library (default $ONNXRUNTIME_LIB,
                             then third_party/onnxruntime/libonnxruntime.so)
  --batch N                  texts or pairs per Run (default 1 for embedders, 8 for
                             cross-encoders; 1 for dynamically quantized graphs, always)
  --threads N                ONNX Runtime intra-op threads (default 1)
  --text-normalization MODE  override the folder's: trim, collapse-whitespace, none
  --query                    (embed) apply the query prefix instead of the passage prefix
  --format jsonl             (embed) output format; jsonl is the only one

Examples:
  bench model check models/all-minilm-l6-v2
  echo "What is BM25?" | bench model embed models/e5-small-v2-q --query
  printf 'what is rrf\treciprocal rank fusion combines rankings\n' | bench model score ../shared/models/ce-scifact-tiny
`

// modelFlags are the flags shared by the model subcommands.
type modelFlags struct {
	lib       string
	batch     int
	threads   int
	textNorm  string
	query     bool
	format    string
	subcmd    string
	dir, file string
}

func parseModelFlags(stdout, stderr io.Writer, args []string) (*modelFlags, error) {
	if len(args) == 0 {
		return nil, usagef("missing subcommand (check, embed or score); see 'bench model --help'")
	}
	if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stdout, modelUsage)
		return nil, errHelp
	}
	mf := &modelFlags{subcmd: args[0]}
	switch mf.subcmd {
	case "check", "embed", "score":
	default:
		return nil, usagef("unknown subcommand %q (want check, embed or score); see 'bench model --help'", mf.subcmd)
	}
	fs := flag.NewFlagSet("model "+mf.subcmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&mf.lib, "onnxruntime", "", "ONNX Runtime library")
	fs.IntVar(&mf.batch, "batch", 0, "texts or pairs per Run (absent: the model kind's default)")
	fs.IntVar(&mf.threads, "threads", 1, "intra-op threads")
	fs.StringVar(&mf.textNorm, "text-normalization", "", "trim, collapse-whitespace or none")
	fs.BoolVar(&mf.query, "query", false, "apply the query prefix (embed)")
	fs.StringVar(&mf.format, "format", "jsonl", "output format (embed)")
	// Accept flags before and after positional arguments.
	var pos []string
	rest := args[1:]
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, modelUsage)
				return nil, errHelp
			}
			return nil, usagef("%s: %v; see 'bench model --help'", mf.subcmd, err)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		rest = fs.Args()[1:]
	}
	maxPos := 2
	if mf.subcmd == "check" {
		maxPos = 1
	}
	if len(pos) == 0 || len(pos) > maxPos {
		return nil, usagef("%s: want DIR%s, got %d argument(s); see 'bench model --help'", mf.subcmd, map[bool]string{true: "", false: " [FILE]"}[maxPos == 1], len(pos))
	}
	mf.dir = pos[0]
	if len(pos) == 2 {
		mf.file = pos[1]
	}
	batchSet := false
	fs.Visit(func(f *flag.Flag) { batchSet = batchSet || f.Name == "batch" })
	if (batchSet && mf.batch <= 0) || mf.threads <= 0 {
		return nil, usagef("model %s: --batch and --threads must be positive", mf.subcmd)
	}
	if mf.format != "jsonl" {
		return nil, usagef("model %s: --format %q: only jsonl is supported", mf.subcmd, mf.format)
	}
	if mf.subcmd != "embed" && mf.query {
		return nil, usagef("model %s: --query applies to embed only", mf.subcmd)
	}
	return mf, nil
}

func (mf *modelFlags) options() encoder.Options {
	return encoder.Options{BatchSize: mf.batch, IntraOpThreads: mf.threads, TextNormalization: mf.textNorm}
}

// cmdModel implements 'bench model check|embed|score'.
func cmdModel(stdout, stderr io.Writer, args []string) error {
	mf, err := parseModelFlags(stdout, stderr, args)
	if err != nil {
		return err
	}
	// The folder first: a missing folder or file is one clear error, before
	// ONNX Runtime is loaded and before any report line is printed.
	if err := checkModelFolder(mf.dir); err != nil {
		return err
	}
	if err := encoder.Init(mf.lib); err != nil {
		return err
	}
	switch mf.subcmd {
	case "check":
		return modelCheck(stdout, mf)
	case "embed":
		return modelEmbed(stdout, mf)
	default:
		return modelScore(stdout, mf)
	}
}

// modelFolderHint says what a model folder is and where models come from;
// the models fetch-models.sh fetches are read from its list (modellist).
func modelFolderHint() string {
	return "a model folder holds model.onnx (the ONNX graph) and tokenizer.json (Hugging Face tokenizers), " +
		"optionally ragbench.json (see docs/models.md). ./scripts/fetch-models.sh puts " + strings.Join(modellist.Fetched(), ", ") + " into models/; " +
		"the shared data root's models/ (../shared/models) holds use-lite and ce-scifact-tiny; other models: export them from Hugging Face into a folder (docs/models.md)"
}

// checkModelFolder reports, in one error, what is missing from the model
// folder dir: the folder itself, or its model.onnx and tokenizer.json.
func checkModelFolder(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("%s: no such model folder; %s", dir, modelFolderHint())
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s: not a folder; %s", dir, modelFolderHint())
	}
	var missing []string
	for _, f := range []string{encoder.ModelFile, encoder.TokenizerFile} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.IsDir() {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s: no %s in this folder; %s", dir, strings.Join(missing, " and no "), modelFolderHint())
	}
	return nil
}

func modelCheck(w io.Writer, mf *modelFlags) error {
	info, err := encoder.Check(mf.dir, mf.options())
	if info != nil && len(info.Inputs)+len(info.Outputs) > 0 {
		// Only once the graph loaded: before that the report would be
		// empty headers.
		fmt.Fprint(w, info.Report())
	}
	if err != nil {
		return fmt.Errorf("%s: FAILED: %w", mf.dir, err)
	}
	fmt.Fprintf(w, "\nOK: %s\n", mf.dir)
	return nil
}

// inputLines reads the non-final-newline lines of FILE or stdin, with a name
// for errors.
func inputLines(file string) ([]string, string, error) {
	var r io.Reader = os.Stdin
	name := "stdin"
	if file != "" && file != "-" {
		f, err := os.Open(file)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		r, name = f, file
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, "", fmt.Errorf("%s:%d: %w", name, len(lines)+1, err)
	}
	return lines, name, nil
}

// lineErr turns a TextError index into "file:line".
func lineErr(name string, lines []int, err error) error {
	var te *encoder.TextError
	if errors.As(err, &te) && te.Index >= 0 && te.Index < len(lines) {
		return fmt.Errorf("%s:%d: %s: %w", name, lines[te.Index], te.Field, te.Err)
	}
	return err
}

func modelEmbed(w io.Writer, mf *modelFlags) error {
	texts, name, err := inputLines(mf.file)
	if err != nil {
		return err
	}
	e, err := encoder.LoadEmbedder(mf.dir, mf.options())
	if err != nil {
		return err
	}
	defer e.Close()
	lineNo := make([]int, len(texts))
	for i := range lineNo {
		lineNo[i] = i + 1
	}
	ctx := context.Background()
	toks, err := e.Tokenize(ctx, texts, mf.query)
	if err != nil {
		return lineErr(name, lineNo, err)
	}
	vecs, err := e.EmbedTokens(ctx, toks)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i, t := range texts {
		rec := struct {
			Text      string    `json:"text"`
			IDs       []int64   `json:"ids"`
			Embedding []float32 `json:"embedding"`
		}{t, toks[i].IDs, vecs[i]}
		if err := enc.Encode(rec); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func modelScore(w io.Writer, mf *modelFlags) error {
	lines, name, err := inputLines(mf.file)
	if err != nil {
		return err
	}
	type pair struct{ q, p string }
	pairs := make([]pair, len(lines))
	for i, l := range lines {
		q, p, ok := strings.Cut(l, "\t")
		if !ok {
			return fmt.Errorf("%s:%d: want query<TAB>passage, found no tab", name, i+1)
		}
		pairs[i] = pair{q, p}
	}
	c, err := encoder.LoadCrossEncoder(mf.dir, mf.options())
	if err != nil {
		return err
	}
	defer c.Close()
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	ctx := context.Background()
	// Score runs of consecutive lines with the same query together.
	for start := 0; start < len(pairs); {
		end := start + 1
		for end < len(pairs) && pairs[end].q == pairs[start].q {
			end++
		}
		passages := make([]string, end-start)
		lineNo := make([]int, end-start)
		for j := range passages {
			passages[j] = pairs[start+j].p
			lineNo[j] = start + j + 1
		}
		scores, err := c.Score(ctx, pairs[start].q, passages)
		if err != nil {
			var te *encoder.TextError
			if errors.As(err, &te) && te.Field == "query" {
				return fmt.Errorf("%s:%d: query: %w", name, start+1, te.Err)
			}
			return lineErr(name, lineNo, err)
		}
		for j, s := range scores {
			if math.IsNaN(float64(s)) || math.IsInf(float64(s), 0) {
				return fmt.Errorf("%s:%d: model returned %v", name, start+j+1, s)
			}
			rec := struct {
				Query   string  `json:"query"`
				Passage string  `json:"passage"`
				Score   float32 `json:"score"`
			}{pairs[start].q, passages[j], s}
			if err := enc.Encode(rec); err != nil {
				return err
			}
		}
		start = end
	}
	return bw.Flush()
}
