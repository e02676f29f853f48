package anchor

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// dpFirstBest is the semi-global dynamic programme (bestSubstring) with
// the first end reaching the least distance: (0, m) when the least is m.
func dpFirstBest(text, pat []rune) (end, dist int) {
	col := make([]int, len(pat)+1)
	for i := range col {
		col[i] = i
	}
	best := len(pat)
	for j, c := range text {
		diag := col[0]
		for i := 1; i <= len(pat); i++ {
			up := col[i]
			sub := diag
			if pat[i-1] != c {
				sub++
			}
			col[i] = min(sub, up+1, col[i-1]+1)
			diag = up
		}
		if col[len(pat)] < best {
			best, end = col[len(pat)], j+1
		}
	}
	if end == 0 {
		return 0, len(pat)
	}
	return end, best
}

// TestForwardLongPatterns: patterns of one to seventeen blocks of 64 (63,
// 64, 65, 127 … 1,031 code points; TestNearestMatchesDP stops at 200), over
// alphabets with non-ASCII, astral and combining characters, in unrelated
// text, around an edited copy, and in text shorter than the pattern: with
// the cut-off at k on each side of every block edge, at the least
// distance and beside it, forward finds the dynamic programme's first end
// and distance when the least distance is at most k, and nothing
// otherwise; start's passage is that many edits away.
func TestForwardLongPatterns(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 31))
	als := [][]rune{[]rune("ab"), []rune("abcé"), []rune("aé𝔸\u0301 b"), []rune("abcdefghijklmnopqrstuvwxyz ")}
	lens := []int{63, 64, 65, 127, 128, 129, 191, 192, 193, 256, 257, 640, 1000, 1031}
	n := 0
	for _, m := range lens {
		for rep := range 12 {
			al := als[rep%len(als)]
			pat := randText(r, m, al)
			var text []rune
			switch rep % 3 {
			case 0: // unrelated
				text = randText(r, r.IntN(3*m), al)
			case 1: // pattern edited, inside noise
				q := append([]rune(nil), pat...)
				for range r.IntN(m/3 + 1) {
					switch r.IntN(3) {
					case 0:
						q[r.IntN(len(q))] = al[r.IntN(len(al))]
					case 1:
						i := r.IntN(len(q))
						q = append(q[:i], q[i+1:]...)
					default:
						i := r.IntN(len(q) + 1)
						q = append(q[:i], append([]rune{al[r.IntN(len(al))]}, q[i:]...)...)
					}
					if len(q) == 0 {
						q = []rune{al[0]}
					}
				}
				text = append(append(randText(r, r.IntN(m), al), q...), randText(r, r.IntN(m), al)...)
			default: // shorter than the pattern
				text = randText(r, r.IntN(m), al)
			}
			p := patternOf(pat)
			we, wd := dpFirstBest(text, pat)
			ks := []int{0, 1, 62, 63, 64, 65, 127, 128, 129, wd - 1, wd, wd + 1, m - 2, m - 1, m / 4, m / 2}
			for range 6 {
				ks = append(ks, r.IntN(m))
			}
			for _, k := range ks {
				if k < 0 || k >= m {
					continue
				}
				n++
				checkForward(t, p, text, k, we, wd)
			}
			if we > 0 {
				s := p.start(text, we, wd)
				if s < 0 || s > we || levenshtein(text[s:we], pat) != wd {
					t.Fatalf("m %d: start %d end %d not at distance %d", m, s, we, wd)
				}
			}
		}
	}
	t.Logf("%d (pattern, text, k) cases", n)
}

// maxEditsBrute is the largest d in [0, m) with 1 − d/m ≥ minSim, by
// trying every d; −1 when there is none.
func maxEditsBrute(m int, minSim float64) int {
	best := -1
	for d := 0; d < m; d++ {
		if 1-float64(d)/float64(m) >= minSim {
			best = d
		}
	}
	return best
}

// TestMaxEdits: for every length up to 400 and some longer, at least
// similarities on and beside the similarities 1 − d/m, at 0, −0, the
// smallest float, 1 and beyond, negative, infinite and NaN, maxEdits is
// the brute force's answer (NaN: −1).
func TestMaxEdits(t *testing.T) {
	sims := []float64{0, math.Copysign(0, -1), 1e-300, math.SmallestNonzeroFloat64, 0.75, 0.7499999999999999, 0.7500000000000001, 1, math.Nextafter(1, 0), math.Nextafter(1, 2), 2, -1, -1e300, math.Inf(1), math.Inf(-1), math.NaN(), 0.5, 1.0 / 3, 2.0 / 3, 0.1, 0.9}
	for _, m := range append(rangeInts(1, 400), 1000, 1023, 1024, 1500, 2999, 3000, 65537) {
		extra := []float64{1 - 1.0/float64(m), 1 - 2.0/float64(m), 1 / float64(m), 0.75 - 1/float64(m)}
		for _, s := range append(sims, extra...) {
			p := &Pattern{pat: make([]rune, m)}
			got := p.maxEdits(s)
			want := maxEditsBrute(m, s)
			if math.IsNaN(s) {
				want = -1
			}
			if got != want {
				t.Fatalf("m %d minSim %v: maxEdits %d, want %d", m, s, got, want)
			}
		}
	}
}

// TestForwardEveryK: every k for patterns crossing block edges, texts
// made of noisy copies and pieces of the pattern (scores that rise and
// fall, blocks dropped and restarted often).
func TestForwardEveryK(t *testing.T) {
	iters := 150
	r := rand.New(rand.NewPCG(11, 13))
	al := []rune("abé𝔸")
	cases := 0
	for it := range iters {
		m := 1 + r.IntN(330)
		if it%5 == 0 {
			m = 64*(1+r.IntN(4)) + r.IntN(3) - 1
		}
		pat := randText(r, m, al)
		var text []rune
		for len(text) < 4*m {
			switch r.IntN(4) {
			case 0:
				text = append(text, randText(r, r.IntN(20), al)...)
			case 1:
				a := r.IntN(m)
				b := a + r.IntN(m-a+1)
				text = append(text, pat[a:b]...)
			default:
				q := append([]rune(nil), pat...)
				for range r.IntN(m/4 + 1) {
					q[r.IntN(len(q))] = al[r.IntN(len(al))]
				}
				if r.IntN(2) == 0 {
					q = q[r.IntN(len(q)):]
				}
				text = append(text, q...)
			}
		}
		text = text[:r.IntN(len(text)+1)]
		p := patternOf(pat)
		we, wd := dpFirstBest(text, pat)
		for k := range m {
			cases++
			checkForward(t, p, text, k, we, wd)
		}
	}
	t.Logf("%d cases", cases)
}

// TestPatternFolded: SimilarityIn and NearestPattern against the DP on
// the folded strings, with text that folds (white-space runs, curly quotes,
// dashes, case changes that change UTF-8 length, astral letters with case,
// combining marks), long quotes and odd least similarities.
func TestPatternFolded(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	al := []rune("aAİiıKKẞßΣσς𐐀𐐨\u0301e\u00a0 \t\n\u2028’'“\"—-–xyz𝔸")
	sims := []float64{0, math.Copysign(0, -1), 1e-300, 0.5, 0.74, 0.75, 0.76, 0.9, 0.99, 1, 1.5, -1, math.NaN(), math.Inf(1), math.Inf(-1)}
	cases := 0
	for it := range 150 {
		m := 1 + r.IntN(200)
		if it%4 == 0 {
			m = 60 + r.IntN(1100)
		}
		text := randText(r, r.IntN(3*m+1), al)
		var quote []rune
		if it%2 == 0 && len(text) > 0 {
			a := r.IntN(len(text))
			quote = append([]rune(nil), text[a:min(len(text), a+m)]...)
			for range r.IntN(len(quote)/3 + 1) {
				quote[r.IntN(len(quote))] = al[r.IntN(len(al))]
			}
		} else {
			quote = randText(r, m, al)
		}
		fq := []rune(FoldString(string(quote), FoldAll))
		ft := []rune(FoldString(string(text), FoldAll))
		p := NewPattern(string(quote))
		d := NewDoc("d", string(text))
		blank := true
		for _, c := range fq {
			if c != ' ' {
				blank = false
			}
		}
		if blank {
			if p.Len() != 0 {
				t.Fatalf("blank quote %q: Len %d", string(quote), p.Len())
			}
			continue
		}
		if p.Len() != len(fq) {
			t.Fatalf("Len %d, folded %d", p.Len(), len(fq))
		}
		_, wd := dpFirstBest(ft, fq)
		for _, s := range sims {
			cases++
			wsim := 1 - float64(wd)/float64(len(fq))
			want := wd < len(fq) && wsim >= s && !math.IsNaN(s)
			sim, ok := p.SimilarityIn(string(text), s)
			rg, nsim, nok := d.NearestPattern(p, s)
			if ok != want || nok != want {
				t.Fatalf("it %d minSim %v: SimilarityIn ok %v NearestPattern ok %v, want %v (dist %d of %d)", it, s, ok, nok, want, wd, len(fq))
			}
			if !want {
				if sim != 0 || nsim != 0 || rg != (Range{}) {
					t.Fatalf("it %d minSim %v: not ok but sim %v %v range %+v", it, s, sim, nsim, rg)
				}
				continue
			}
			if sim != wsim || nsim != wsim {
				t.Fatalf("it %d minSim %v: sim %v %v, want %v", it, s, sim, nsim, wsim)
			}
			got := []rune(FoldString(d.Slice(rg), FoldAll))
			if lv := levenshtein(got, fq); lv != wd {
				t.Fatalf("it %d: range %+v folds to %q, %d edits, want %d", it, rg, string(got), lv, wd)
			}
			if string([]rune(d.Text)[rg.Start:rg.End]) != d.Slice(rg) {
				t.Fatalf("it %d: units disagree %+v", it, rg)
			}
		}
	}
	t.Logf("%d cases", cases)
}

func rangeInts(a, b int) []int {
	var out []int
	for i := a; i <= b; i++ {
		out = append(out, i)
	}
	return out
}

// FuzzPattern: on any text, quote and least similarity, SimilarityIn and
// NearestPattern report a passage exactly when the dynamic programme on
// the folded strings finds one at least that similar (sharing a
// character), with its similarity; NearestPattern's range folds to a
// passage that many edits away.
func FuzzPattern(f *testing.F) {
	f.Add("Rent is due\n monthly — “now”.", "due monthly - \"now\"", 0.75)
	f.Add("İstanbul ẞ straße 𐐀𐐨 e\u0301", "istanbul ß 𐐨𐐨", 0.5)
	f.Add(strings.Repeat("ab", 100), strings.Repeat("ba", 65), 0.9)
	f.Add("abc", "", 0.0)
	f.Add("abc", "abd", math.NaN())
	f.Fuzz(func(t *testing.T, text, quote string, minSim float64) {
		if len(text) > 1500 || len(quote) > 500 {
			return
		}
		p := NewPattern(quote)
		sim, ok := p.SimilarityIn(text, minSim)
		d := NewDoc("d", text)
		r, nsim, nok := d.NearestPattern(p, minSim)
		fq := []rune(FoldString(quote, FoldAll))
		want, wsim, dist := false, 0.0, 0
		if strings.TrimSpace(string(fq)) != "" {
			dist = bestSubstring([]rune(FoldString(text, FoldAll)), fq)
			wsim = 1 - float64(dist)/float64(len(fq))
			want = dist < len(fq) && wsim >= minSim
		}
		if ok != want || nok != want {
			t.Fatalf("SimilarityIn ok %v, NearestPattern ok %v; want %v (similarity %v, least %v)", ok, nok, want, wsim, minSim)
		}
		if !want {
			return
		}
		if sim != wsim || nsim != wsim {
			t.Fatalf("similarity %v, %v; want %v", sim, nsim, wsim)
		}
		got := []rune(FoldString(d.Slice(r), FoldAll))
		if e := levenshtein(got, fq); e != dist {
			t.Fatalf("range %+v folds to %q, %d edits away", r, string(got), e)
		}
	})
}

// BenchmarkNewPattern prepares a 1,500-character quote: what a search
// costs besides its comparisons (spans.HoleFinder prepares each gold
// passage once a call, not once a run).
func BenchmarkNewPattern(b *testing.B) {
	q := strings.Repeat("Passwords expire after ninety days. ", 42)[:1500]
	for b.Loop() {
		NewPattern(q)
	}
}

// checkForward checks p.forward at cut-off k against the dynamic
// programme's first end we and least distance wd (dpFirstBest): the same
// end and distance when wd ≤ k, nothing otherwise.
func checkForward(t *testing.T, p *Pattern, text []rune, k, we, wd int) {
	t.Helper()
	e, d := p.forward(text, k)
	if wd <= k && (e != we || d != wd) {
		t.Fatalf("m %d n %d k %d: got end %d dist %d, want %d %d", len(p.pat), len(text), k, e, d, we, wd)
	}
	if wd > k && e != 0 {
		t.Fatalf("m %d n %d k %d: got end %d dist %d, want none (least %d)", len(p.pat), len(text), k, e, d, wd)
	}
}
