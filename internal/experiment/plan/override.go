package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
)

// Override replaces a plan variable's value (loadlab run -set NAME=VALUE):
// one set under vars:, a matrix axis (which is then run at that one
// value) or a variable a step sets.
type Override struct {
	Name, Value string
}

// RunArgs are the arguments of the loadlab run that reads this plan with
// its overrides: -set NAME=VALUE ... FILE.
func (p *Plan) RunArgs() []string {
	var args []string
	for _, o := range p.Overrides {
		args = append(args, "-set", o.Name+"="+o.Value)
	}
	return append(args, p.File)
}

// RecordedOverrides are the overrides among the arguments of a run as
// RunArgs recorded them (-set NAME=VALUE ... FILE), in order: what the run
// applied to its plan, to apply again to the plan's copy.
func RecordedOverrides(args []string) []Override {
	var set []Override
	for i := 0; i+1 < len(args); i++ {
		if args[i] != "-set" {
			continue
		}
		i++
		if o, err := ParseOverride(args[i]); err == nil {
			set = append(set, o)
		}
	}
	return set
}

// ParseOverride reads NAME=VALUE; the error says what is wrong, the
// caller where (a flag).
func ParseOverride(s string) (Override, error) {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || !nameRE.MatchString(name) {
		return Override{}, fmt.Errorf("want NAME=VALUE (e.g. duration=300s), got %q", s)
	}
	return Override{Name: name, Value: value}, nil
}

// applyOverrides checks that every override names a variable of the plan
// and applies those of vars: and the matrix; steps() applies the others.
func (b *builder) applyOverrides() error {
	known := map[string]bool{}
	for k := range b.vars {
		known[k] = true
	}
	r := b.raw
	for _, k := range r.Matrix.Keys {
		known[k.Value] = true
	}
	for _, st := range r.Steps {
		for _, k := range st.Vars.Keys {
			known[k.Value] = true
		}
	}
	for _, o := range b.set {
		if known[o.Name] {
			continue
		}
		names := make([]string, 0, len(known))
		for k := range known {
			names = append(names, k)
		}
		sort.Strings(names)
		if len(names) == 0 {
			return badinput.Field("-set", "the plan has no variable %q (it has no variables: see vars: and matrix: in docs/experiments.md)", o.Name)
		}
		return badinput.Field("-set", "the plan has no variable %q (known: %s)", o.Name, strings.Join(names, ", "))
	}
	for _, o := range b.set {
		if _, ok := b.vars[o.Name]; ok {
			b.vars[o.Name] = o.Value
		}
		for i, k := range r.Matrix.Keys {
			if k.Value == o.Name {
				r.Matrix.Vals[i] = Strs{{Value: o.Value, Line: k.Line, Set: true}}
			}
		}
	}
	return nil
}

// overrideStep applies the overrides to a step's own variables.
func (b *builder) overrideStep(vars map[string]string) {
	for _, o := range b.set {
		if _, ok := vars[o.Name]; ok {
			vars[o.Name] = o.Value
		}
	}
}
