package spans

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ragbench/ragbench/anchor"
)

// This file words the problems of passage labels and finds their hints
// and repairs (package anchor does the finding).

// unknownDoc reports a label whose document is not in the corpus, with
// the id it probably meant (anchor.Index.SuggestID; a sure repair when the
// label then places cleanly in it) or the document its text is in.
func (l *label) unknownDoc() {
	p := Problem{Msg: fmt.Sprintf("doc %q: no such document in the corpus", l.ls.Doc), Anchored: l.ls.HasText, Status: anchor.Lost}
	id := l.ls.Doc
	cand, sure := l.c.ix.SuggestID(id)
	switch {
	case sure:
		p.Hint = fmt.Sprintf("the corpus has %q (doc ids are file paths inside the corpus folder, without the extension, case as on disk)", cand)
		if l.placesIn(cand) {
			p.Repair = &Repair{Doc: cand, Note: fmt.Sprintf("doc %q → %q", id, cand)}
		}
		l.problem(p)
		return
	case cand != "":
		p.Hint = fmt.Sprintf("the nearest doc id is %q", cand)
	}
	if l.ls.HasText {
		if loc := l.c.ix.Locate(l.ls.Text, anchor.FoldAll, 2); loc.Unique() {
			m := loc.Matches[0]
			p.Hint = join(p.Hint, fmt.Sprintf("its text is in doc %q at %s%s", m.Doc.ID, where(m.Doc, m.Range), foldedNote(loc.Folded)))
		}
	}
	l.problem(p)
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

func foldedNote(folded bool) string {
	if folded {
		return " (once white space, quote marks, dashes and case are ignored)"
	}
	return ""
}

// placesIn reports whether the label places cleanly in document id.
func (l *label) placesIn(id string) bool {
	scratch := &checker{ix: l.c.ix, opt: l.c.opt, out: &Checked{Docs: map[string]bool{}}}
	ls := l.ls
	ls.Doc = id
	tl := &label{c: scratch, q: &Query{ID: l.q.ID}, who: l.who, line: l.line, ls: ls}
	_, ok := tl.place()
	return ok
}

// emptyText reports "text": "" (filled from the document when the offsets
// are good: a sure repair).
func (l *label) emptyText() {
	p := Problem{Msg: fmt.Sprintf("doc %q: text is empty: give the passage's text, or leave \"text\" out", l.doc.ID)}
	if l.ls.HasOffsets {
		if r, msg := l.offsets(); msg == "" {
			p.Hint = fmt.Sprintf("the document has %q there", clip(l.doc.Slice(r)))
			p.Repair = &Repair{HasText: true, Text: l.doc.Slice(r), Note: fmt.Sprintf("text filled from the document at [%d, %d)", r.Start, r.End)}
		}
	}
	l.problem(p)
}

// badOffsets reports offsets outside the document or inside a character
// (msg); when the label gives its text, where that text is (found at one
// place, the label counts as moved).
func (l *label) badOffsets(msg string) {
	p := Problem{Msg: msg}
	if l.ls.HasText {
		a := l.doc.Anchor(anchor.Quote{Text: l.ls.Text, Prefix: l.ls.Prefix, Suffix: l.ls.Suffix}, l.c.opt.Threshold)
		if a.Status == anchor.Unchanged {
			a.Status = anchor.Moved
		}
		l.status(a.Status) // counted; the problem itself is the offsets (Anchored false)
		p.Status = a.Status
		p.Hint, p.Repair = l.hint(nil, a)
	}
	l.problem(p)
}

// anchorProblem reports a label whose text is not where it says (at, nil
// for a label of text alone) and what became of it (a).
func (l *label) anchorProblem(at *anchor.Range, a anchor.Anchoring) {
	d := l.doc
	p := Problem{Anchored: true, Status: a.Status}
	switch {
	case at != nil:
		p.Msg = fmt.Sprintf("doc %q: text differs from the document at [%d, %d) %s (%s): label %q, document %q",
			d.ID, l.ls.Start, l.ls.End, unitWord(l.ls.Unit), l.since(), clip(l.ls.Text), clip(d.Slice(*at)))
	case len(a.Places) > 0 && a.Folds == 0:
		cps := make([]string, 0, len(a.Places))
		for _, r := range a.Places {
			cps = append(cps, fmt.Sprint(r.Start))
		}
		p.Msg = fmt.Sprintf("doc %q: text %q found more than once, at %s (code points %s): give start and end, or the text just before it as \"prefix\"",
			d.ID, clip(l.ls.Text), places(d, a.Places), strings.Join(cps, ", "))
		l.problem(p)
		return
	default:
		p.Msg = fmt.Sprintf("doc %q: text %q not found in the document", d.ID, clip(l.ls.Text))
	}
	p.Hint, p.Repair = l.hint(at, a)
	l.problem(p)
}

// hint words where the label's text is now (a) and the sure repair, if
// any.
func (l *label) hint(at *anchor.Range, a anchor.Anchoring) (string, *Repair) {
	d, r := l.doc, a.Range
	switch {
	case a.Status <= anchor.Moved:
		word := "the text is"
		if at != nil {
			word = "moved: the same text is now"
		}
		note := fmt.Sprintf("offsets → [%d, %d)", r.Start, r.End)
		if l.ls.HasOffsets {
			note = fmt.Sprintf("offsets [%d, %d) → [%d, %d)", l.ls.Start, l.ls.End, r.Start, r.End)
		}
		return fmt.Sprintf("%s at %s [%d, %d)", word, where(d, r), r.Start, r.End), l.repair(r, false, note)
	case a.Status == anchor.Changed && len(a.Places) > 0:
		what := "the same text"
		if a.Folds != 0 {
			what = "the text, with different " + a.Folds.String() + ","
		}
		return fmt.Sprintf("%s is at %s: give a prefix or suffix to choose, or start and end", what, places(d, a.Places)), nil
	case a.Status == anchor.Changed && a.Sure:
		return fmt.Sprintf("found with different %s at %s [%d, %d): %q", a.Folds, where(d, r), r.Start, r.End, clip(d.Slice(r))),
			l.repair(r, true, fmt.Sprintf("text → the document's spelling (%s)%s", a.Folds, l.offsetNote(at, r)))
	case a.Status == anchor.Changed:
		return fmt.Sprintf("changed: the nearest passage, %.0f%% similar, is at %s [%d, %d): %q; check it and correct the label by hand", 100*a.Similarity, where(d, r), r.Start, r.End, clip(d.Slice(r))), nil
	}
	h := fmt.Sprintf("lost: no passage of the document is %.0f%% similar to it", 100*l.c.opt.Threshold)
	if a.Similarity > 0 {
		h += fmt.Sprintf(" (the nearest: %.0f%%)", 100*a.Similarity)
	}
	if loc := l.c.ix.Locate(l.ls.Text, anchor.FoldAll, 2); loc.Unique() && loc.Matches[0].Doc != d {
		m := loc.Matches[0]
		h += fmt.Sprintf("; its text is in doc %q at %s%s", m.Doc.ID, where(m.Doc, m.Range), foldedNote(loc.Folded))
	}
	return h, nil
}

// offsetNote mentions new offsets in a repair's note when the label gives
// offsets that change.
func (l *label) offsetNote(at *anchor.Range, r anchor.Range) string {
	if !l.ls.HasOffsets || at != nil && at.Start == r.Start && at.End == r.End && l.ls.Unit != Bytes {
		return ""
	}
	return fmt.Sprintf(", offsets → [%d, %d)", r.Start, r.End)
}

// repair is the sure repair placing the label at r: its offsets when it
// gives offsets, its text when text (or the document's differs), its
// context when it gives context.
func (l *label) repair(r anchor.Range, text bool, note string) *Repair {
	rp := &Repair{Note: note}
	if l.ls.HasOffsets {
		rp.HasOffsets, rp.Start, rp.End = true, r.Start, r.End
	}
	if text {
		rp.HasText, rp.Text = true, l.doc.Slice(r)
	}
	if l.ls.Prefix != "" || l.ls.Suffix != "" {
		rp.HasContext = true
		rp.Prefix, _ = l.doc.Context(r, utf8.RuneCountInString(l.ls.Prefix))
		_, rp.Suffix = l.doc.Context(r, utf8.RuneCountInString(l.ls.Suffix))
	}
	if !rp.HasOffsets && !rp.HasText && !rp.HasContext {
		return nil // a label of text alone found at one place needs nothing
	}
	return rp
}

// since says whether the label's document changed since the labels were
// recorded (CheckOptions.Recorded).
func (l *label) since() string {
	rec := l.c.opt.Recorded
	if rec == nil {
		return "the corpus changed since labelling?"
	}
	want, ok := rec[l.doc.ID]
	switch {
	case !ok:
		return "no digest of this document is recorded"
	case want == l.c.digest(l.doc):
		return "the document is as recorded: the label was wrong when written"
	}
	return "the document changed since the labels were recorded"
}

// digest is DocDigest of d's text, computed once per document.
func (c *checker) digest(d *anchor.Doc) string {
	if c.digests == nil {
		c.digests = map[string]string{}
	}
	s, ok := c.digests[d.ID]
	if !ok {
		s = DocDigest(d.Text)
		c.digests[d.ID] = s
	}
	return s
}
