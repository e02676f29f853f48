package anchor

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/ragbench/ragbench/corpus"
)

// cps is the code-point range [s, e) of text, in both units.
func cps(t *testing.T, d *Doc, s, e int) Range {
	t.Helper()
	r, err := d.ByCodePoints(s, e)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestFind(t *testing.T) {
	d := NewDoc("d", "aaa ’x’ aaa")
	got := d.Find("aa", 0)
	want := []Range{{0, 2, 0, 2}, {1, 3, 1, 3}, {8, 10, 12, 14}, {9, 11, 13, 15}}
	if !cmp.Equal(got, want) {
		t.Errorf("Find(aa) = %v, want %v", got, want)
	}
	if got := d.Find("aa", 2); len(got) != 2 {
		t.Errorf("limit 2: %v", got)
	}
	if got := d.Find("’x’", 0); !cmp.Equal(got, []Range{{4, 7, 4, 11}}) {
		t.Errorf("Find(’x’) = %v", got)
	}
	for _, q := range []string{"", "\x99", "b"} {
		if got := d.Find(q, 0); got != nil {
			t.Errorf("Find(%q) = %v, want none", q, got)
		}
	}
}

func TestFindFolded(t *testing.T) {
	text := "Rent is due\n  monthly — “at the latest” on the 1st.\tThe END"
	d := NewDoc("d", text)
	for _, c := range []struct {
		quote string
		f     Fold
		want  string // the document's text at the match
		diff  Fold
	}{
		{"due monthly", FoldSpace, "due\n  monthly", FoldSpace},
		{"monthly - \"at the latest\"", FoldQuotes | FoldDashes, "monthly — “at the latest”", FoldQuotes | FoldDashes},
		{"latest\" ON THE 1st. the end", FoldAll, "latest” on the 1st.\tThe END", FoldSpace | FoldQuotes | FoldCase},
		{"rent", FoldCase, "Rent", FoldCase},
	} {
		got := d.FindFolded(c.quote, c.f, 0)
		if len(got) != 1 || d.Slice(got[0]) != c.want {
			t.Errorf("FindFolded(%q, %v) = %v, want one match %q", c.quote, c.f, got, c.want)
			continue
		}
		r := got[0]
		if string([]rune(text)[r.Start:r.End]) != c.want || text[r.ByteStart:r.ByteEnd] != c.want {
			t.Errorf("%q: range %+v does not hold %q in both units", c.quote, r, c.want)
		}
		if diff := Differences(c.quote, d.Slice(r)); diff != c.diff {
			t.Errorf("Differences(%q) = %q, want %q", c.quote, diff, c.diff)
		}
	}
	if got := d.FindFolded("due monthly", FoldCase, 0); got != nil {
		t.Errorf("white space differs but only case folded: %v", got)
	}
	runs := regexp.MustCompile(`\s+`).FindAllStringIndex(text, -1)
	got := d.FindFolded(" \n ", FoldSpace, 0)
	if len(got) != len(runs) || d.Slice(got[2]) != "\n  " {
		t.Errorf("white space runs: %v, want the %d runs", got, len(runs))
	}
	if s := (FoldSpace | FoldCase).String(); s != "white space, case" {
		t.Errorf("String = %q", s)
	}
}

func TestPositionAndContext(t *testing.T) {
	d := NewDoc("d", "ab\n’cd\n\nef")
	for cp, want := range map[int]Position{0: {1, 1}, 2: {1, 3}, 3: {2, 1}, 5: {2, 3}, 7: {3, 1}, 8: {4, 1}, 10: {4, 3}, 99: {4, 3}} {
		if got := d.Position(cp); got != want {
			t.Errorf("Position(%d) = %v, want %v", cp, got, want)
		}
	}
	p, s := d.Context(cps(t, d, 4, 5), 2)
	if p != "\n’" || s != "d\n" {
		t.Errorf("Context = %q, %q", p, s)
	}
}

// levenshtein is the textbook dynamic programme (Wagner–Fischer): an
// independent reference for the bit-vector search.
func levenshtein(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// bestSubstring is the least edit distance from pat to any substring of
// text, by the semi-global dynamic programme (Sellers 1980).
func bestSubstring(text, pat []rune) int {
	_, dist := dpFirstBest(text, pat)
	return dist
}

func randText(r *rand.Rand, n int, alphabet []rune) []rune {
	out := make([]rune, n)
	for i := range out {
		out[i] = alphabet[r.IntN(len(alphabet))]
	}
	return out
}

// TestNearestMatchesDP: on 3,000 random texts and patterns (1 to 200 code
// points, so one to four blocks of 64, over small alphabets with non-ASCII
// letters), the least distance equals the semi-global dynamic programme's,
// the substring found is that many edits from the pattern, and with
// Ukkonen's cut-off at a random k the search finds the same end and
// distance when the least distance is at most k, and nothing otherwise.
func TestNearestMatchesDP(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabets := [][]rune{[]rune("ab"), []rune("abcé"), []rune("abcdefghijklmnopqrstuvwxyz’ ")}
	for n := range 3000 {
		al := alphabets[n%len(alphabets)]
		text := randText(r, r.IntN(300), al)
		pat := randText(r, 1+r.IntN(200), al)
		if n%3 == 0 && len(text) > 10 { // a pattern cut from the text, edited a little
			a := r.IntN(len(text) - 5)
			pat = append([]rune(nil), text[a:a+1+r.IntN(min(len(text)-a, 150))]...)
			for range r.IntN(4) {
				pat[r.IntN(len(pat))] = al[r.IntN(len(al))]
			}
		}
		p := patternOf(pat)
		want := bestSubstring(text, pat)
		e, dist := p.forward(text, len(pat)-1)
		if e == 0 {
			dist = len(pat)
		}
		if dist != want {
			t.Fatalf("text %q pat %q: distance %d, want %d", string(text), string(pat), dist, want)
		}
		if e > 0 {
			if s := p.start(text, e, dist); levenshtein(text[s:e], pat) != dist {
				t.Fatalf("text %q pat %q: [%d, %d) is %d edits away, not %d", string(text), string(pat), s, e, levenshtein(text[s:e], pat), dist)
			}
		}
		// With the cut-off at any k: the same end and distance when the
		// least distance is within k, nothing otherwise.
		checkForward(t, p, text, r.IntN(len(pat)), e, dist)
	}
}

// patternOf is the Pattern of pat as it is (no folding).
func patternOf(pat []rune) *Pattern {
	return &Pattern{pat: pat, fw: newPeq(pat)}
}

func TestNearest(t *testing.T) {
	d := NewDoc("d", "Section 1.\nRent is due monthly, on the first day.\nSection 2. Pets are not allowed.")
	r, sim, ok := d.Nearest("rent is due weekly, on the first day.")
	if !ok || d.Slice(r) != "Rent is due monthly, on the first day." {
		t.Fatalf("Nearest = %q, %v, %v", d.Slice(r), sim, ok)
	}
	// "weekly" → "monthly": 5 edits (w→m, e→o, e→n, +t, +h? the DP decides)
	want := 1 - float64(levenshtein([]rune("weekly"), []rune("monthly")))/float64(utf8.RuneCountInString("rent is due weekly, on the first day."))
	if sim != want {
		t.Errorf("similarity %v, want %v", sim, want)
	}
	if _, _, ok := d.Nearest("  "); ok {
		t.Error("a quote of white space only matched")
	}
	if _, sim, ok := d.Nearest("zzzz"); ok || sim != 0 {
		t.Errorf("no shared character: %v, %v", sim, ok)
	}
}

func TestAnchor(t *testing.T) {
	old := "Intro.\n\nRent is due monthly. Pets are not allowed. Rent is due monthly.\n\nEnd."
	d := NewDoc("d", "New paragraph.\n\n"+old)
	at := func(s, e int) *Range { r := cps(t, NewDoc("o", old), s, e); return &r }
	first := strings.Index(old, "Pets")
	for _, c := range []struct {
		name   string
		q      Quote
		status Status
		text   string // the document's text at Range
		sure   bool
		places int
	}{
		{"unchanged at its place", Quote{Text: "New", At: &Range{0, 3, 0, 3}}, Unchanged, "New", true, 0},
		{"text once, no place", Quote{Text: "Pets are"}, Unchanged, "Pets are", true, 0},
		{"moved", Quote{Text: "Pets are not allowed.", At: at(first, first+21)}, Moved, "Pets are not allowed.", true, 0},
		{"twice, no context", Quote{Text: "Rent is due monthly."}, Changed, "Rent is due monthly.", false, 2},
		{"twice, context picks the second", Quote{Text: "Rent is due monthly.", Prefix: "not allowed. ", At: at(8, 28)}, Moved, "Rent is due monthly.", true, 0},
		{"folded", Quote{Text: "pets ARE not\nallowed."}, Changed, "Pets are not allowed.", true, 0},
		{"edited", Quote{Text: "Cats are not allowed."}, Changed, "Pets are not allowed.", false, 0},
		{"lost", Quote{Text: "Deposits are returned within 30 days."}, Lost, "", false, 0},
		{"empty", Quote{Text: ""}, Lost, "", false, 0},
	} {
		a := d.Anchor(c.q, DefaultThreshold)
		got := ""
		if a.Status != Lost {
			got = d.Slice(a.Range)
		}
		if a.Status != c.status || got != c.text || a.Sure != c.sure || len(a.Places) != c.places {
			t.Errorf("%s: %+v (%q), want %v %q sure %v places %d", c.name, a, got, c.status, c.text, c.sure, c.places)
		}
	}
	a := d.Anchor(Quote{Text: "Rent is due monthly.", Prefix: "not allowed. "}, DefaultThreshold)
	if a.Range.Start != 16+strings.LastIndex(old, "Rent") {
		t.Errorf("context: %+v", a)
	}
}

func TestIndexLocate(t *testing.T) {
	ix := NewIndex([]corpus.Document{
		{ID: "a", Text: "alpha beta\ngamma delta"},
		{ID: "b", Text: "beta gamma “delta” alpha beta"},
		{ID: "c", Text: ""},
	})
	for _, c := range []struct {
		text   string
		f      Fold
		where  []string // doc:start
		folded bool
	}{
		{"gamma delta", FoldSpace, []string{"a:11"}, false},
		{"beta gamma", FoldSpace, []string{"b:0"}, false}, // exact first: the folded place in a is not looked for
		{"beta  gamma", FoldSpace, []string{"a:6", "b:0"}, true},
		{"beta gamma", 0, []string{"b:0"}, false},
		{"alpha beta", 0, []string{"a:0", "b:19"}, false},
		{"\"delta\" ALPHA", FoldAll, []string{"b:11"}, true},
		{"zeta", FoldAll, nil, false},
		{"q\nz", FoldAll, nil, false},
		{"a\nb", FoldAll, []string{"a:4", "b:23"}, true},
	} {
		loc := ix.Locate(c.text, c.f, 0)
		var got []string
		for _, m := range loc.Matches {
			got = append(got, m.Doc.ID+":"+strconv.Itoa(m.Start))
		}
		if !cmp.Equal(got, c.where) || loc.Folded != c.folded && len(got) > 0 {
			t.Errorf("Locate(%q, %v) = %v folded %v, want %v folded %v", c.text, c.f, got, loc.Folded, c.where, c.folded)
		}
	}
	if loc := ix.Locate("beta", 0, 2); len(loc.Matches) != 2 || loc.Matches[0].Doc.ID != "a" || loc.Unique() {
		t.Errorf("limit 2: %+v", loc)
	}
	if loc := ix.LocateIn("b", "Delta", FoldCase, 0); !loc.Unique() || !loc.Folded || loc.Matches[0].Start != 12 {
		t.Errorf("LocateIn: %+v", loc)
	}
}

// FuzzAnchor: on any text and quote, exact places hold the quote, folded
// places fold to the folded quote in both units, the nearest passage is as
// many edits away as the dynamic programme says, and a Sure anchoring holds
// the quote exactly or folded.
func FuzzAnchor(f *testing.F) {
	f.Add("Rent is due\n monthly — “now”.", "due monthly - \"now\"", "is ")
	f.Add("aaa", "aa", "")
	f.Add("é\u00a0É", "é é", "x")
	f.Fuzz(func(t *testing.T, text, quote, prefix string) {
		if !utf8.ValidString(text) || len(text) > 2000 || len(quote) > 300 {
			return
		}
		d := NewDoc("d", text)
		runes := []rune(text)
		check := func(r Range, what string) {
			if string(runes[r.Start:r.End]) != text[r.ByteStart:r.ByteEnd] {
				t.Fatalf("%s: %+v: the units disagree", what, r)
			}
		}
		for _, r := range d.Find(quote, 0) {
			check(r, "Find")
			if d.Slice(r) != quote {
				t.Fatalf("Find: %q at %+v", d.Slice(r), r)
			}
		}
		for _, r := range d.FindFolded(quote, FoldAll, 0) {
			check(r, "FindFolded")
			if FoldString(d.Slice(r), FoldAll) != FoldString(quote, FoldAll) {
				t.Fatalf("FindFolded: %q at %+v", d.Slice(r), r)
			}
		}
		if r, sim, ok := d.Nearest(quote); ok {
			check(r, "Nearest")
			fq := []rune(FoldString(quote, FoldAll))
			want := bestSubstring([]rune(FoldString(text, FoldAll)), fq)
			if got := 1 - float64(want)/float64(len(fq)); sim != got {
				t.Fatalf("Nearest: similarity %v, dynamic programme %v", sim, got)
			}
		}
		a := d.Anchor(Quote{Text: quote, Prefix: prefix}, DefaultThreshold)
		if a.Sure && FoldString(d.Slice(a.Range), FoldAll) != FoldString(quote, FoldAll) {
			t.Fatalf("Anchor: sure %+v holds %q", a, d.Slice(a.Range))
		}
	})
}

func TestSuggestID(t *testing.T) {
	ix := NewIndex([]corpus.Document{{ID: "practices/naming"}, {ID: "Policies/Leave"}, {ID: "tenancy-act"}, {ID: "a"}})
	for id, want := range map[string]struct {
		s    string
		sure bool
	}{
		"practices/naming.md": {"practices/naming", true},
		"policies/leave":      {"Policies/Leave", true},
		"tenancy_act":         {"tenancy-act", false},
		"tenancy-act.txt.md":  {"", false},
		"zzz":                 {"", false},
		"b":                   {"a", false},
	} {
		s, sure := ix.SuggestID(id)
		if s != want.s || sure != want.sure {
			t.Errorf("SuggestID(%q) = %q, %v; want %q, %v", id, s, sure, want.s, want.sure)
		}
	}
}

// TestSimilarityInMatchesNearest: on random texts with folding at play
// (case, curly quotes, runs of white space) and edited quotes, at several
// least similarities, Pattern.SimilarityIn and Doc.NearestPattern report
// a passage exactly when Nearest's is at least that similar, with
// Nearest's similarity and range.
func TestSimilarityInMatchesNearest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	al := []rune("abcdeABCDE ’'\n\t")
	for n := range 2000 {
		text := string(randText(r, r.IntN(400), al))
		quote := string(randText(r, 1+r.IntN(150), al))
		if n%2 == 0 && len(text) > 10 {
			a := r.IntN(len(text) - 5)
			q := []rune(text[a : a+1+r.IntN(min(len(text)-a, 150))])
			for range r.IntN(6) {
				q[r.IntN(len(q))] = al[r.IntN(len(al))]
			}
			quote = string(q)
		}
		d := NewDoc("d", text)
		wr, ws, wok := d.Nearest(quote)
		p := NewPattern(quote)
		for _, minSim := range []float64{0, 0.5, 0.75, 0.9, 1} {
			within := wok && ws >= minSim
			sim, ok := p.SimilarityIn(text, minSim)
			gr, gs, gok := d.NearestPattern(p, minSim)
			if ok != within || gok != within || (within && (sim != ws || gs != ws || gr != wr)) {
				t.Fatalf("text %q quote %q minSim %v: SimilarityIn %v %v, NearestPattern %v %v %v; Nearest %v %v %v",
					text, quote, minSim, sim, ok, gr, gs, gok, wr, ws, wok)
			}
		}
	}
	if p := NewPattern(" \n "); p.Len() != 0 {
		t.Fatalf("blank quote: Len %d", p.Len())
	}
}
