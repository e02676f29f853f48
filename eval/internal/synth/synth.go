// Package synth writes synthetic qrels and TREC runs for ragbench's
// evaluation speed benchmarks. The data are deterministic for a given Config.
package synth

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Config describes a synthetic collection: Queries queries, each with Docs
// retrieved documents (written in rank order, scores descending, about one
// tie in 50), Rel relevant judged documents (grades 1 or 2) and as many
// judged non-relevant ones; about half the relevant and half the
// non-relevant documents are retrieved, at uniform random ranks. Seed fixes
// the random stream.
type Config struct {
	Queries, Docs, Rel int
	Seed               uint64
}

// Write writes dir/qrels.txt (TREC qrels) and dir/run.trec (TREC run, tag
// "synth") and returns their paths.
func Write(dir string, c Config) (qrelsPath, runPath string, err error) {
	qrelsPath = filepath.Join(dir, "qrels.txt")
	runPath = filepath.Join(dir, "run.trec")
	qf, err := os.Create(qrelsPath)
	if err != nil {
		return "", "", err
	}
	defer qf.Close()
	rf, err := os.Create(runPath)
	if err != nil {
		return "", "", err
	}
	defer rf.Close()
	qw := bufio.NewWriterSize(qf, 1<<20)
	rw := bufio.NewWriterSize(rf, 1<<20)
	rng := rand.New(rand.NewPCG(c.Seed, 42))
	docs := make([]string, c.Docs)
	var line []byte
	for q := 0; q < c.Queries; q++ {
		qid := fmt.Sprintf("q%06d", q)
		// Random doc ids from a large collection.
		for i := range docs {
			docs[i] = "d" + strconv.Itoa(rng.IntN(50_000_000))
		}
		// Judged docs: Rel relevant and Rel non-relevant; about half of
		// each placed at random ranks of the run.
		for j := 0; j < 2*c.Rel; j++ {
			did := fmt.Sprintf("j%s-%d", qid, j)
			grade := 0
			if j < c.Rel {
				grade = 1 + rng.IntN(2)
			}
			fmt.Fprintf(qw, "%s 0 %s %d\n", qid, did, grade)
			if rng.IntN(2) == 0 {
				docs[rng.IntN(c.Docs)] = did
			}
		}
		// Duplicates from the random draw are replaced by unique ids.
		seen := make(map[string]bool, c.Docs)
		for i, d := range docs {
			if seen[d] {
				d = "u" + qid + "-" + strconv.Itoa(i)
				docs[i] = d
			}
			seen[d] = true
		}
		score := 30.0
		for i, d := range docs {
			if rng.IntN(50) != 0 {
				score -= rng.Float64() * 0.02
			}
			line = line[:0]
			line = append(line, qid...)
			line = append(line, " Q0 "...)
			line = append(line, d...)
			line = append(line, ' ')
			line = strconv.AppendInt(line, int64(i+1), 10)
			line = append(line, ' ')
			line = strconv.AppendFloat(line, score, 'f', 6, 64)
			line = append(line, " synth\n"...)
			rw.Write(line)
		}
	}
	if err := qw.Flush(); err != nil {
		return "", "", err
	}
	if err := rw.Flush(); err != nil {
		return "", "", err
	}
	return qrelsPath, runPath, nil
}
