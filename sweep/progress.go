package sweep

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/ragbench/ragbench/report"
)

// ProgressMode is how Run reports progress on Options.Stderr. Progress is
// never part of the outputs: every mode gives the same files.
type ProgressMode int

const (
	// ProgressNone writes nothing.
	ProgressNone ProgressMode = iota
	// ProgressBar is for a terminal: one progressbar/v3 bar per stage of a
	// cell (chunk, index or embed, search, fuse, rerank, score), with its
	// own count and unit, redrawn in place with carriage returns and
	// cleared when the stage ends; then one line per finished cell.
	ProgressBar
	// ProgressPlain is for logs (CI, "2> log"): one line when a stage
	// starts and one when it ends, with its count, unit and wall time, and
	// in between a line each time another tenth of a counted stage is done
	// or plainInterval passed without one ("embed 4,096 of 11,860 chunks
	// (34%) after 1m12s"), so a long embedding or rerank step is never
	// silent for long; no carriage returns or escape codes.
	ProgressPlain
)

// String is the mode's --progress name: "none", "bar" or "plain".
func (m ProgressMode) String() string {
	switch m {
	case ProgressBar:
		return "bar"
	case ProgressPlain:
		return "plain"
	}
	return "none"
}

// ParseProgressMode reads "none", "bar" or "plain" (the --progress values
// left once "auto" has been resolved); anything else is an error.
func ParseProgressMode(s string) (ProgressMode, error) {
	switch s {
	case "none":
		return ProgressNone, nil
	case "bar":
		return ProgressBar, nil
	case "plain":
		return ProgressPlain, nil
	}
	return ProgressNone, fmt.Errorf("progress mode %q: want none, bar or plain", s)
}

// progress reports the sweep's stages on a writer (see ProgressMode). One
// stage runs at a time; set may be called from several goroutines.
type progress struct {
	mode ProgressMode
	w    io.Writer
	now  func() time.Time

	mu      sync.Mutex
	scope   string // "[3/15] fixed-128o32/dense", "chunking doc", ...
	stage   string // "embed", "search", ...
	unit    string // "chunks", "queries", ...
	total   int
	done    int
	updated bool // set was called during the stage
	start   time.Time
	// In ProgressPlain: when the last line of the stage was written, and
	// the tenths of the stage it reported.
	lastLine time.Time
	tenths   int
	active   bool
	pb       *progressbar.ProgressBar
}

func newProgress(mode ProgressMode, w io.Writer, now func() time.Time) *progress {
	if w == nil {
		mode = ProgressNone
	}
	if now == nil {
		now = time.Now
	}
	return &progress{mode: mode, w: w, now: now}
}

// what is "<stage> <total> <unit>", e.g. "embed 12,345 chunks" (unit in
// the singular for a total of 1: "1 query", "1 paired comparison").
func (p *progress) what() string {
	if p.unit == "" {
		return p.stage
	}
	unit := p.unit
	if p.total == 1 {
		if u, ok := strings.CutSuffix(unit, "ies"); ok {
			unit = u + "y"
		} else {
			unit = strings.TrimSuffix(unit, "s")
		}
	}
	return p.stage + " " + report.GroupDigits(p.total) + " " + unit
}

// begin starts a stage of scope with total items of unit.
func (p *progress) begin(scope, stage string, total int, unit string) {
	if p.mode == ProgressNone {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeBar()
	p.scope, p.stage, p.unit, p.total, p.done, p.updated, p.active = scope, stage, unit, total, 0, false, true
	p.start = p.now()
	p.lastLine, p.tenths = p.start, 0
	switch p.mode {
	case ProgressPlain:
		fmt.Fprintf(p.w, "bench run: %s: %s …\n", p.scope, p.what())
	case ProgressBar:
		p.pb = progressbar.NewOptions(max(total, 1),
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.scope+": "+p.stage),
			progressbar.OptionSetWidth(24),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString(cmp.Or(unit, "it")),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetRenderBlankState(true),
			progressbar.OptionClearOnFinish(),
		)
	}
}

// lockActive takes p's lock when a stage is active, for the stage methods
// that do nothing between stages (set, end); false: there is no stage (or
// no progress at all) and the lock is not held.
func (p *progress) lockActive() bool {
	if p.mode == ProgressNone {
		return false
	}
	p.mu.Lock()
	if !p.active {
		p.mu.Unlock()
		return false
	}
	return true
}

// set records that done of the stage's items are finished; a total > 0
// replaces the stage's total (the backend's own count).
func (p *progress) set(done, total int) {
	if !p.lockActive() {
		return
	}
	defer p.mu.Unlock()
	p.updated = true
	if total > 0 && total != p.total {
		p.total = total
		if p.pb != nil {
			p.pb.ChangeMax(total)
		}
	}
	p.done = done
	if p.pb != nil && done <= p.total {
		p.pb.Set(done)
	}
	if p.mode == ProgressPlain && p.total > 0 && done < p.total {
		now := p.now()
		if t := done * 10 / p.total; t > p.tenths || now.Sub(p.lastLine) >= plainInterval {
			p.tenths, p.lastLine = max(p.tenths, t), now
			fmt.Fprintf(p.w, "bench run: %s: %s %s of %s %s (%d%%) after %s\n", p.scope, p.stage,
				report.GroupDigits(done), report.GroupDigits(p.total), p.unit, done*100/p.total, formatDuration(now.Sub(p.start)))
		}
	}
}

// plainInterval is the longest a counted stage stays silent in
// ProgressPlain while its count moves (CI logs want a sign of life about
// every 30 s; a tenth of a 4-minute embedding is 24 s).
const plainInterval = 30 * time.Second

// end ends the current stage: the bar is cleared, or the plain line
// "<scope>: <what> done in <duration>[; note]" is written.
func (p *progress) end(note string) {
	if !p.lockActive() {
		return
	}
	defer p.mu.Unlock()
	p.active = false
	d := p.now().Sub(p.start)
	if p.closeBar(); p.mode == ProgressPlain {
		if note != "" {
			note = "; " + note
		}
		fmt.Fprintf(p.w, "bench run: %s: %s done in %s%s\n", p.scope, p.what(), formatDuration(d), note)
	}
}

// line writes one finished-event line ("bench run: <scope>: <msg>") in
// either mode.
func (p *progress) line(scope, msg string) {
	if p.mode == ProgressNone {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeBar()
	fmt.Fprintf(p.w, "bench run: %s: %s\n", scope, msg)
}

// updatedStage reports whether set was called since the stage began.
func (p *progress) updatedStage() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.updated
}

// abort clears a bar left by a failed or cancelled stage (no line: the
// caller reports the error).
func (p *progress) abort() {
	if p.mode == ProgressNone {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active = false
	p.closeBar()
}

// closeBar clears and drops the current bar (p.mu held).
func (p *progress) closeBar() {
	if p.pb == nil {
		return
	}
	p.pb.Clear()
	p.pb.Exit()
	p.pb = nil
}

// formatDuration is a wall time for a progress line: "0.42s" under a
// minute, else "1m02s" or "1h02m03s" (whole seconds).
func formatDuration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
	s := int64(d.Round(time.Second) / time.Second)
	if s < 3600 {
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm%02ds", s/3600, s/60%60, s%60)
}

// stageProgress is the kinds' count callback (kinds.Progress.Count)
// for p: done of total items of stage (kinds.StageEmbed, StageRerank) move the bar of
// the stage p shows; a count for another stage, or a negative one, is
// ignored.
func (p *progress) stageProgress(stage string, done, total int) {
	p.mu.Lock()
	current := p.active && p.stage == stage
	p.mu.Unlock()
	if current && done >= 0 && total >= 0 {
		p.set(done, total)
	}
}
