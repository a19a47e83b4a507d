package compare

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/verdict"
)

// Duet is the two sides of one duet attack (loadlab attack -duet): A, the
// targets as written, and B, the same targets sent to another base URL,
// alternately, in one attack.
type Duet struct {
	File string // the results file
	A, B *Run
}

// duetSink routes a duet's results to its sides.
type duetSink struct {
	base  string
	sides [2]*Run
}

func (d *duetSink) Add(r *results.Result) { d.sides[results.DuetSide(r, d.base)].Add(r) }

// LoadDuets reads the duets named by arg: a duet's results file, or a
// folder whose results files are read, the duets among them kept (a run
// folder of a plan with a duet scenario). A file that is not a duet's, or
// a folder without one, is a *badinput.Error.
func LoadDuets(arg string, o LoadOptions) ([]Duet, error) {
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	files, folder := []string{arg}, false
	if st, err := statDir(arg); err != nil {
		return nil, err
	} else if st {
		folder = true
		if files, err = findResults(arg); err != nil {
			return nil, err
		}
	}
	var out []Duet
	for _, path := range files {
		src, err := results.Open(path)
		if err != nil {
			return nil, badinput.Wrap(path, err)
		}
		b := ""
		if src.Meta != nil {
			b = src.Meta.Labels[results.DuetLabel]
		}
		if b == "" {
			src.Close()
			if folder {
				continue
			}
			return nil, &badinput.Error{File: path, Msg: "not the results of a duet (made by loadlab attack -duet URL or a plan scenario's duet:)"}
		}
		step, err := pairStep(path)
		if err != nil {
			src.Close()
			return nil, err
		}
		c := &pairClock{origin: duetOrigin, step: step}
		name := filepath.Clean(path)
		if folder {
			if rel, err := filepath.Rel(arg, path); err == nil {
				name = filepath.ToSlash(rel)
			}
		}
		d := Duet{File: name, A: newDuetSide("A (as written)", o.Basis, c), B: newDuetSide("B ("+b+")", o.Basis, c)}
		d.A.Files, d.B.Files = []string{path}, []string{path}
		d.A.Group, d.B.Group = name, name
		sink := &duetSink{base: b, sides: [2]*Run{d.A, d.B}}
		n, damage, err := results.ReadAll(src, sink, results.KeepBefore)
		src.Close()
		if err != nil {
			return nil, badinput.Wrap(path, err)
		}
		if damage != nil {
			o.Warn(fmt.Sprintf("%s: %v; using the %d results before it", path, damage, n))
		}
		for _, side := range []*Run{d.A, d.B} {
			if side.N() == 0 {
				return nil, &badinput.Error{File: path, Msg: "the duet has no results of side " + side.Name}
			}
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, &badinput.Error{File: arg, Msg: "folder holds no duet's results (made by loadlab attack -duet URL or a plan scenario's duet:)"}
	}
	return out, nil
}

// duetOrigin is where a duet's pair clock starts (any instant will do:
// only the pairs' places after it matter).
var duetOrigin = time.Unix(0, 0).UTC()

// ComparePaired compares side B of a duet with side A: B/A of every
// figure, judged by verdict.JudgePaired (the same time blocks drawn for
// both sides, so noise that hits both at once cancels), with Compare's
// run-level words (opt.RunLevel is implied).
func ComparePaired(d Duet, opt Options) Report {
	opt.RunLevel = true
	opt = opt.withDefaults()
	a, b := d.A, d.B
	rep := Report{Group: d.File, Baseline: a.Name, Options: opt, Duet: true}
	rep.addRun(a)
	rep.addRun(b)
	per := grainsPerBlock(max(len(a.grains()), len(b.grains())))
	as, bs := []sideRun{sideRunOf(a, per)}, []sideRun{sideRunOf(b, per)}
	stats := Stats
	if a.Users > 0 {
		stats = append([]Stat{Throughput}, Stats...)
	}
	paired := func(before, after []verdict.Run, o verdict.Options) (verdict.Verdict, error) {
		return verdict.JudgePaired(before[0], after[0], o)
	}
	for _, s := range stats {
		rep.Rows = append(rep.Rows, judgeRow(s, a, b, as, bs, opt, paired))
	}
	rep.Notes = busyNotes([]*Run{a, b})
	if len(rep.Notes) > 0 {
		rep.Notes = append(rep.Notes, "both sides of a duet share the machine's delays, which the paired intervals cancel: its verdicts stand")
	}
	return rep
}

// span measures a results stream: its requests and the span of their
// due times.
type span struct {
	n           int64
	first, last int64 // due times, ns
}

func (s *span) Add(r *results.Result) {
	at := r.Due
	if at.IsZero() {
		at = r.Sent
	}
	ns := at.UnixNano()
	if s.n == 0 || ns < s.first {
		s.first = ns
	}
	if s.n == 0 || ns > s.last {
		s.last = ns
	}
	s.n++
}

// pairStep is the mean time between two request pairs of the duet in
// path (grain when it cannot be told): a duet's sides are cut by pairs
// (pairClock), so that both requests of a pair, one a side, are always
// in the same block however the blocks' edges fall.
func pairStep(path string) (time.Duration, error) {
	src, err := results.Open(path)
	if err != nil {
		return 0, badinput.Wrap(path, err)
	}
	defer src.Close()
	var s span
	if _, _, err := results.ReadAll(src, &s, results.KeepBefore); err != nil {
		return 0, badinput.Wrap(path, err)
	}
	if s.n < 2 || s.last <= s.first {
		return grain, nil
	}
	return max(time.Duration(float64(s.last-s.first)/float64(s.n-1)*2), 1), nil
}

// statDir reports whether path is a folder.
func statDir(path string) (bool, error) {
	st, err := os.Stat(path)
	if err != nil {
		return false, badinput.Wrap(path, err)
	}
	return st.IsDir(), nil
}
