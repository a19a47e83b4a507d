package plan

import (
	"fmt"
	"strconv"
)

// RepeatVar is the step variable a repeated plan's steps carry: the
// replicate, 1..N, of the step (see Plan.Repeat).
const RepeatVar = "repeat"

// MaxRepeat bounds how many times a plan's steps are repeated.
const MaxRepeat = 20

// Repeat makes every step (every cell of the steps or the matrix) run n
// times, interleaved: all the steps once, then all of them again, and so
// on, so that a drift of the machine during the run falls on every cell
// rather than on the last ones. Each copy carries its replicate, 1..n, in
// the step variable RepeatVar, and its name says which it is. n of 1 does
// nothing. It is an error with a capacity search, or past MaxRepeat or
// maxSteps.
func (p *Plan) Repeat(n int) error {
	switch {
	case n < 1 || n > MaxRepeat:
		return fmt.Errorf("want a whole number from 1 to %d, got %d", MaxRepeat, n)
	case n == 1:
		return nil
	case p.Search != nil:
		return fmt.Errorf("a capacity search runs its own steps: it cannot be repeated")
	case len(p.Steps)*n > maxSteps:
		return fmt.Errorf("%d steps repeated %d times are more than %d steps", len(p.Steps), n, maxSteps)
	}
	for _, st := range p.Steps {
		if _, ok := st.Vars[RepeatVar]; ok {
			return fmt.Errorf("step %q already has a variable %q, which a repeat sets", st.Name, RepeatVar)
		}
	}
	once := p.Steps
	p.Steps = nil
	for rep := 1; rep <= n; rep++ {
		for _, st := range once {
			c := *st
			c.Index = len(p.Steps)
			c.Vars = copyVars(st.Vars)
			c.Vars[RepeatVar] = strconv.Itoa(rep)
			c.Name = fmt.Sprintf("%s (repeat %d/%d)", st.Name, rep, n)
			p.Steps = append(p.Steps, &c)
		}
	}
	p.Repeats = n
	return nil
}

// repeat applies the plan's repeat key.
func (b *builder) repeat() error {
	r := b.raw.Repeat
	if !r.Set {
		return nil
	}
	n, err := strconv.Atoi(r.Value)
	if err != nil {
		return at(r.Line, "repeat: want a whole number from 1 to %d, got %q", MaxRepeat, r.Value)
	}
	if err := b.plan.Repeat(n); err != nil {
		return at(r.Line, "repeat: %v", err)
	}
	return nil
}
