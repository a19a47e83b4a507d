package plan

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

var varRE = regexp.MustCompile(`\$\{([^}]*)\}`)

// substitute replaces ${name} with vars[name]. References to components
// (${proxy.url}, ${proxy.addr}, ${target}) are left for the runner; anything
// else unknown is an error.
func (b *builder) substitute(s string, vars map[string]string) (string, error) {
	var bad string
	out := varRE.ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-1]
		if v, ok := vars[name]; ok {
			return v
		}
		if name == "target" && b.plan.Target != "" {
			return m
		}
		if comp, field, ok := strings.Cut(name, "."); ok && b.plan.Component(comp) != nil && (field == "url" || field == "addr") {
			return m
		}
		if bad == "" {
			bad = name
		}
		return m
	})
	if bad != "" {
		return "", errors.New("unknown reference ${" + bad + "} (known: " + strings.Join(b.known(vars), ", ") + ")")
	}
	return out, nil
}

func (b *builder) known(vars map[string]string) []string {
	var out []string
	for k := range vars {
		out = append(out, "${"+k+"}")
	}
	for _, c := range b.plan.Components {
		out = append(out, "${"+c.Name+".url}")
	}
	if b.plan.Target != "" {
		out = append(out, "${target}")
	}
	sort.Strings(out)
	return out
}

func (b *builder) steps() error {
	r := b.raw
	p := b.plan
	switch {
	case r.Matrix.Len() > 0 && len(r.Steps) > 0:
		return at(r.Matrix.Line, "use either matrix: or steps:, not both")
	case len(r.Steps) > 0:
		for i, rs := range r.Steps {
			vars := copyVars(b.vars)
			variants := map[string]string{}
			for j, k := range rs.Vars.Keys {
				vars[k.Value] = rs.Vars.Vals[j].Value
			}
			b.overrideStep(vars)
			for j, k := range rs.Variants.Keys {
				v := rs.Variants.Vals[j]
				if err := b.selectVariant(k, v, variants, vars); err != nil {
					return err
				}
			}
			scen := rs.Scenarios
			if len(scen) == 0 {
				scen = r.Scenarios
			}
			name := rs.Name.Value
			if name == "" {
				name = r.StepName.Value
			}
			base := "scenarios"
			if len(rs.Scenarios) > 0 {
				base = fmt.Sprintf("steps[%d].scenarios", i)
			}
			if err := b.addStep(i, name, rs.Name.Line, vars, variants, base, scen); err != nil {
				return err
			}
		}
	default:
		for i, k := range r.Matrix.Keys {
			vals := r.Matrix.Vals[i]
			if len(vals) == 0 {
				return at(k.Line, "matrix.%s: needs at least one value", k.Value)
			}
			ax := Axis{Key: k.Value}
			if c := p.Component(k.Value); c != nil {
				ax.Component = true
				for _, v := range vals {
					if c.Variant(v.Value) == nil {
						return at(v.Line, "matrix.%s: component %q has no variant %q (it has: %s)", k.Value, c.Name, v.Value, variantNames(c))
					}
				}
			} else if !nameRE.MatchString(k.Value) {
				return at(k.Line, "matrix: bad variable name %q", k.Value)
			}
			ax.Values = strs(vals)
			p.Axes = append(p.Axes, ax)
		}
		total := 1
		for _, ax := range p.Axes {
			total *= len(ax.Values)
			if total > maxSteps {
				return at(r.Matrix.Line, "matrix: more than %d steps", maxSteps)
			}
		}
		if len(r.Scenarios) == 0 {
			return at(1, "missing scenarios: (the attacks every step runs)")
		}
		idx := make([]int, len(p.Axes))
		for n := 0; n < total; n++ {
			vars := copyVars(b.vars)
			variants := map[string]string{}
			var parts []string
			for a, ax := range p.Axes {
				val := ax.Values[idx[a]]
				vars[ax.Key] = val
				if ax.Component {
					variants[ax.Key] = val
					c := p.Component(ax.Key)
					vars[ax.Key+".label"] = labelOf(c.Variant(val))
				}
				parts = append(parts, ax.Key+"="+val)
			}
			name := r.StepName.Value
			if name == "" {
				name = strings.Join(parts, " ")
			}
			if err := b.addStep(n, name, r.StepName.Line, vars, variants, "scenarios", r.Scenarios); err != nil {
				return err
			}
			// Odometer: the last axis turns fastest, so the first is outermost.
			for a := len(idx) - 1; a >= 0; a-- {
				idx[a]++
				if idx[a] < len(p.Axes[a].Values) {
					break
				}
				idx[a] = 0
			}
		}
		if total == 0 {
			return at(1, "missing steps")
		}
	}
	if len(p.Steps) == 0 {
		if len(r.Scenarios) == 0 {
			return at(1, "missing scenarios: (the attacks every step runs)")
		}
		if err := b.addStep(0, r.StepName.Value, r.StepName.Line, copyVars(b.vars), map[string]string{}, "scenarios", r.Scenarios); err != nil {
			return err
		}
	}
	return nil
}

func labelOf(v *Variant) string {
	if v.Label != "" {
		return v.Label
	}
	return v.Name
}

func variantNames(c *Component) string {
	if len(c.Variants) == 0 {
		return "no variants"
	}
	var n []string
	for _, v := range c.Variants {
		n = append(n, v.Name)
	}
	return strings.Join(n, ", ")
}

func (b *builder) selectVariant(k, v Str, variants, vars map[string]string) error {
	c := b.plan.Component(k.Value)
	if c == nil {
		return at(k.Line, "variants: no component named %q", k.Value)
	}
	vv := c.Variant(v.Value)
	if vv == nil {
		return at(v.Line, "variants.%s: component %q has no variant %q (it has: %s)", k.Value, c.Name, v.Value, variantNames(c))
	}
	variants[k.Value] = v.Value
	vars[k.Value] = v.Value
	vars[k.Value+".label"] = labelOf(vv)
	return nil
}

func copyVars(m map[string]string) map[string]string {
	out := make(map[string]string, len(m)+4)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// addStep adds step i running raws, the scenarios found at base in the
// plan (for error messages).
func (b *builder) addStep(i int, name string, nameLine int, vars, variants map[string]string, base string, raws []rawScenario) error {
	if len(raws) == 0 {
		return at(nameLine, "step %d has no scenarios", i+1)
	}
	st := &Step{Index: i, Vars: vars, Variants: variants}
	// Components with variants but none chosen run their first variant.
	for _, c := range b.plan.Components {
		if _, ok := variants[c.Name]; !ok && len(c.Variants) > 0 && c.Recipe == "" && c.Config == "" && len(c.Command) == 0 {
			variants[c.Name] = c.Variants[0].Name
		}
	}
	var err error
	if st.Name, err = b.substitute(name, vars); err != nil {
		return at(nameLine, "step_name: %v", err)
	}
	if st.Name == "" {
		st.Name = "step " + strconv.Itoa(i+1)
	}
	seen := map[string]bool{}
	for j, rs := range raws {
		sc, err := b.scenario(fmt.Sprintf("%s[%d]", base, j), j, rs, vars)
		if err != nil {
			return err
		}
		if err := b.closedLoop(fmt.Sprintf("%s[%d]", base, j), sc, rs, vars); err != nil {
			return err
		}
		if seen[sc.Name] {
			return at(rs.Name.Line, "scenarios: two scenarios named %q in step %q", sc.Name, st.Name)
		}
		seen[sc.Name] = true
		st.Scenarios = append(st.Scenarios, sc)
	}
	b.plan.Steps = append(b.plan.Steps, st)
	return nil
}

func firstLine(ss ...Str) int {
	for _, s := range ss {
		if s.Line > 0 {
			return s.Line
		}
	}
	return 0
}
