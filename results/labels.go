package results

// LabelNotes is what the sweep's label checks counted (results.json
// "labels"; docs/labelling.md): the judgements the labels hold, those of
// grade 0 among them (looked at and judged not relevant: kept, never
// scored as gold), and the span labels whose exact text had moved in its
// document and that the run placed at their new offsets.
type LabelNotes struct {
	// Judgements counts the labels' judgements: span labels' passages
	// (every member of a group of alternatives, and grade 0 ones), or id
	// labels' judged ids (grade ≥ 0).
	Judgements int `json:"judgements"`
	// NotRelevant counts the judgements of grade 0.
	NotRelevant int `json:"not_relevant"`
	// Moved counts the span labels placed at new offsets (bench labels
	// check --fix writes them into the file).
	Moved int `json:"moved"`
}
