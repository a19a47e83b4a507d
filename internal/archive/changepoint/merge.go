package changepoint

import "math"

// merge is Otava's merge step: each weak change point is judged between
// its neighbours (the points since the previous one against the points up
// to the next); the weakest failing one is dropped, its neighbours judged
// again, until every one holds. Weakest: the greatest p-value at or above
// Alpha (see weakest); else the smallest size below MinChange; else the
// greatest p-value among those the Judge did not confirm.
func (d *detector) merge(idx []int) Result {
	var res Result
	vs := make([]Change, len(idx))
	judge := func(i int) {
		if i < 0 || i >= len(idx) {
			return
		}
		a, c := 0, len(d.z)
		if i > 0 {
			a = idx[i-1]
		}
		if i+1 < len(idx) {
			c = idx[i+1]
		}
		vs[i] = d.verdict(a, idx[i], c)
	}
	for i := range idx {
		judge(i)
	}
	for len(idx) > 0 {
		w := d.weakest(idx, vs)
		if w < 0 {
			break
		}
		if vs[w].Outcome == CannotTell {
			res.Undecided = append(res.Undecided, vs[w])
		}
		idx = append(idx[:w:w], idx[w+1:]...)
		vs = append(vs[:w:w], vs[w+1:]...)
		if d.o.otava {
			// Otava's merge judges again the change after the one
			// dropped and the next, leaving the one before with the
			// figures of its former neighbour.
			judge(w)
			judge(w + 1)
		} else {
			judge(w - 1)
			judge(w)
		}
	}
	res.Changes = vs
	return res
}

// weakest returns the index of the change to drop, or −1 when all hold:
// of the changes whose p-value is at or above Alpha (or that the Judge
// did not confirm for a reason other than size), the one of greatest
// p-value; when all are significant, the one of least size below
// MinChange; last, the one of greatest p-value the Judge did not confirm.
// A change with no p-value (one point each side) fails the first stage,
// ranked after those with one.
//
// Each failing change is ranked by its verdict against its nearest
// neighbours that hold (its failing neighbours left out, as they would be
// once dropped): of a real change and a spurious neighbour that both
// fail, the spurious one goes first, and the real one, judged again,
// holds. (Otava ranks by the verdicts as they are.)
func (d *detector) weakest(idx []int, vs []Change) int {
	// A change with no p-value (one point each side: nothing to test) is
	// ranked after those the test rejects: its neighbours may go first,
	// and then it can be tested.
	pv := func(c Change) float64 {
		if math.IsNaN(c.P) && d.o.otava {
			return 1 // Otava's p-value for two points
		}
		if math.IsNaN(c.P) {
			return -1
		}
		return c.P
	}
	size := func(c Change) float64 { return math.Abs(c.Rel) }
	stages := []struct {
		fails func(c Change) bool
		worse func(a, b Change) bool // a is weaker than b
	}{
		{func(c Change) bool {
			if c.byJudge { // the Judge's p-value is on its own scale
				return c.Outcome != Changed && !(size(c) < d.o.MinChange)
			}
			return !(c.P < d.o.Alpha)
		}, func(a, b Change) bool { return pv(a) > pv(b) }},
		{func(c Change) bool { return size(c) < d.o.MinChange }, func(a, b Change) bool { return size(a) < size(b) }},
		{func(c Change) bool { return c.Outcome != Changed }, func(a, b Change) bool { return pv(a) > pv(b) }},
	}
	for _, st := range stages {
		w := -1
		var wv Change
		for i, c := range vs {
			if !st.fails(c) {
				continue
			}
			v := c
			if !d.o.otava {
				v = d.againstHolding(idx, vs, i, st.fails)
			}
			if w < 0 || st.worse(v, wv) || !st.worse(wv, v) && st.worse(c, vs[w]) {
				w, wv = i, v
			}
		}
		if w >= 0 {
			return w
		}
	}
	return -1
}

// againstHolding is the verdict on change i against its nearest
// neighbours that do not fail.
func (d *detector) againstHolding(idx []int, vs []Change, i int, fails func(Change) bool) Change {
	a, b := i-1, i+1
	for a >= 0 && fails(vs[a]) {
		a--
	}
	for b < len(vs) && fails(vs[b]) {
		b++
	}
	start, end := 0, len(d.z)
	if a >= 0 {
		start = idx[a]
	}
	if b < len(vs) {
		end = idx[b]
	}
	if start == vs[i].Start && end == vs[i].End {
		return vs[i]
	}
	return d.verdict(start, idx[i], end)
}

// verdict judges the change at b between z[a:b) and z[b:c): the t-test,
// the size, then the Judge.
func (d *detector) verdict(a, b, c int) Change {
	key := [3]int{a, b, c}
	if v, ok := d.judged[key]; ok {
		return v
	}
	ch := d.seriesVerdict(a, b, c)
	// The Judge sees the points nearest the change, half a window each
	// side at most: its figures (pooled from the runs) cost in proportion.
	half := d.o.Window / 2
	ja, jc := max(a, b-half), min(c, b+half)
	// It is asked when the t-test found a change, or could not have found
	// one of the minimum size: a "no" from a t-test that could see such a
	// change stands.
	if d.o.Judge != nil && d.worthJudging(ja, b, jc) && (ch.Outcome == Changed || d.tooFewToTell(a, b, c, d.o.Alpha)) {
		ch.Start, ch.End = ja, jc
		ch = d.judge(ch)
		if ch.Outcome == Changed && d.o.MinChange > 0 && !(math.Abs(ch.Rel) >= d.o.MinChange) {
			ch.Outcome = NoChange
		}
	}
	if d.judged == nil {
		d.judged = map[[3]int]Change{}
	}
	d.judged[key] = ch
	return ch
}

// seriesVerdict is the verdict of the points alone: Student's t-test
// between the sides at level Alpha, and the size of the change.
func (d *detector) seriesVerdict(a, b, c int) Change {
	s := summarize(d.z, a, b, c)
	p, se, df := tTest(s)
	ch := Change{Index: b, Start: a, End: c, P: p, SeriesP: p, Q: d.q[b], Lo: math.NaN(), Hi: math.NaN()}
	diff := s.m2 - s.m1
	var half float64 // half the width of the 95% interval of diff
	if df > 0 {
		half = tQuantile(0.975, float64(df)) * se
	}
	if d.logged {
		ch.Before, ch.After = math.Exp(s.m1), math.Exp(s.m2)
		ch.Rel = math.Expm1(diff)
		if df > 0 {
			ch.Lo, ch.Hi = math.Expm1(diff-half), math.Expm1(diff+half)
		}
	} else {
		ch.Before, ch.After = s.m1, s.m2
		ch.Rel = rel(s.m1, s.m2)
		if df > 0 && s.m1 > 0 {
			ch.Lo, ch.Hi = (diff-half)/s.m1, (diff+half)/s.m1
		}
	}
	switch {
	case d.o.MinChange > 0 && math.Abs(ch.Rel) < d.o.MinChange:
		ch.Outcome = NoChange
	case p < d.o.Alpha:
		ch.Outcome = Changed
	case d.o.MinChange > 0 || math.IsNaN(p):
		ch.Outcome = CannotTell
	default:
		ch.Outcome = NoChange
	}
	return ch
}

// worthJudging reports whether the sides' figures may differ by
// MinChange. A shortcut, not a bound, on the mean: figures pooled from
// runs that differ by less than 80% of the minimum on average do not
// differ by the minimum (a pooled figure lies within its runs' range, and
// near their mean). It spares the Judge the candidates of a stable series.
func (d *detector) worthJudging(a, b, c int) bool {
	if d.o.MinChange <= 0 {
		return true
	}
	before, after := d.xs[a:b], d.xs[b:c]
	if maxRel(before, after) < d.o.MinChange {
		return false
	}
	return math.Abs(rel(mean(before), mean(after))) >= 0.8*d.o.MinChange
}

// judgement is a question to the Judge and its answer.
type judgement struct{ in, out Change }

// judge asks the Judge about ch, or reuses its answer about the same runs:
// the merge step judges a change again each time a neighbour goes, and
// the Judge sees the same runs while its neighbours are more than half a
// window away. The answer is reused as it is when the question is the
// same, and with the new question's figures replaced when the Judge had
// replaced them all (its verdict rests on its own figures, not on the
// points'); otherwise the Judge is asked again.
func (d *detector) judge(ch Change) Change {
	key := [3]int{ch.Start, ch.Index, ch.End}
	if j, ok := d.judgements[key]; ok {
		if same(j.in, ch) {
			return j.out
		}
		if replaced(j.in, j.out) {
			ch.Before, ch.After, ch.Rel, ch.Lo, ch.Hi, ch.P = j.out.Before, j.out.After, j.out.Rel, j.out.Lo, j.out.Hi, j.out.P
			ch.Outcome, ch.byJudge = j.out.Outcome, true
			return ch
		}
	}
	in := ch
	ch.Outcome, ch.byJudge = d.o.Judge(&ch), true
	if d.judgements == nil {
		d.judgements = map[[3]int]judgement{}
	}
	d.judgements[key] = judgement{in, ch}
	return ch
}

// same reports whether two questions to the Judge are the same.
func same(a, b Change) bool {
	eq := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	return a.Outcome == b.Outcome && eq(a.Before, b.Before) && eq(a.After, b.After) && eq(a.Rel, b.Rel) &&
		eq(a.Lo, b.Lo) && eq(a.Hi, b.Hi) && eq(a.P, b.P) && eq(a.SeriesP, b.SeriesP)
}

// replaced reports whether the Judge replaced every figure of the
// question with its own.
func replaced(in, out Change) bool {
	ne := func(x, y float64) bool { return math.Float64bits(x) != math.Float64bits(y) }
	return ne(in.Before, out.Before) && ne(in.After, out.After) && ne(in.Rel, out.Rel) && ne(in.P, out.P)
}
