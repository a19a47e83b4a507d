package plan

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/yamlfile"
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

// scenario builds the scenario at path (e.g. "scenarios[0]"), the j-th of
// its step.
func (b *builder) scenario(path string, j int, rs rawScenario, vars map[string]string) (*Scenario, error) {
	line := firstLine(rs.Name, rs.Target, rs.Targets, rs.TargetsFile, rs.Rate, rs.Duration)
	field := func(name string) string { return path + "." + name }
	sub := func(s Str, name string) (string, error) {
		v, err := b.substitute(s.Value, vars)
		if err != nil {
			return "", at(s.Line, "%s: %v", field(name), err)
		}
		return v, nil
	}
	sc := &Scenario{Line: line, Timeout: 30 * time.Second, KeepAlive: true}
	n := 0
	for _, s := range []Str{rs.Target, rs.Targets, rs.TargetsFile} {
		if s.Value != "" {
			n++
		}
	}
	if n != 1 {
		return nil, at(line, "scenario %d: give exactly one of target, targets or targets_file", j+1)
	}
	var err error
	switch {
	case rs.Target.Value != "":
		if strings.Contains(rs.Target.Value, "\n") {
			return nil, at(rs.Target.Line, "%s: one line only; use targets: for several", field("target"))
		}
		if sc.Targets, err = sub(rs.Target, "target"); err != nil {
			return nil, err
		}
	case rs.Targets.Value != "":
		if sc.Targets, err = sub(rs.Targets, "targets"); err != nil {
			return nil, err
		}
	default:
		if sc.TargetsFile, err = b.path(rs.TargetsFile, field("targets_file")); err != nil {
			return nil, err
		}
	}
	if sc.Name, err = sub(rs.Name, "name"); err != nil {
		return nil, err
	}
	if sc.Name == "" {
		sc.Name = defaultName(sc.Targets, j)
	}
	if !nameRE.MatchString(sc.Name) {
		return nil, at(firstLine(rs.Name, rs.Target), "%s: bad scenario name %q (letters, digits, - and _); set name:", field("name"), sc.Name)
	}
	rate, err := sub(rs.Rate, "rate")
	if err != nil {
		return nil, err
	}
	switch {
	case len(rs.Steps) > 0 && rate != "":
		return nil, at(rs.Steps[0].Line, "scenario %q: give rate or steps, not both", sc.Name)
	case len(rs.Steps) > 0:
		if sc.Rate, err = b.stairs(rs, sub, field); err != nil {
			return nil, err
		}
	case rate == "":
		return nil, at(line, "scenario %q: missing rate (e.g. rate: 50/s)", sc.Name)
	default:
		if sc.Rate, err = schedule.ParseSpec(rate); err != nil {
			return nil, at(rs.Rate.Line, "%s: %v", field("rate"), err)
		}
		if sc.Rate.From.IsZero() && sc.Rate.To.IsZero() && !rs.Workers.Set { // rate: 0 with workers: closedLoop
			return nil, at(rs.Rate.Line, "%s: must be above zero, got %s (or rate: 0 with workers: N for a closed loop of N users)", field("rate"), yamlfile.Quote(rate))
		}
		if rs.StepDur.Set {
			return nil, at(rs.StepDur.Line, "%s: only with steps", field("step_duration"))
		}
	}
	dur, err := sub(rs.Duration, "duration")
	if err != nil {
		return nil, err
	}
	switch {
	case dur == "" && len(sc.Rate.Steps) > 0:
		sc.Duration = sc.Rate.StepDuration * time.Duration(len(sc.Rate.Steps))
	case dur == "":
		return nil, at(line, "scenario %q: missing duration (e.g. duration: 10s)", sc.Name)
	default:
		if sc.Duration, err = yamlfile.ParseDuration(dur); err != nil {
			return nil, at(rs.Duration.Line, "%s: %v", field("duration"), err)
		}
		if sc.Duration <= 0 {
			return nil, at(rs.Duration.Line, "%s: must be positive", field("duration"))
		}
	}
	// The attack builds the same schedule; its checks name plan fields here.
	if _, err := schedule.New(sc.Rate, sc.Duration); err != nil {
		var ie *schedule.InputError
		if !errors.As(err, &ie) {
			return nil, at(line, "%s: %v", path, err)
		}
		l := map[string]int{"rate": rs.Rate.Line, "duration": rs.Duration.Line, "step_duration": rs.StepDur.Line}[ie.Input]
		if l == 0 {
			l = line
		}
		return nil, at(l, "%s: %s", field(ie.Input), ie.Message(field))
	}
	for _, d := range []struct {
		s   Str
		dst *time.Duration
		f   string
	}{{rs.Timeout, &sc.Timeout, "timeout"}, {rs.StartAfter, &sc.StartAfter, "start_after"}} {
		if !d.s.Set {
			continue
		}
		v, err := sub(d.s, d.f)
		if err != nil {
			return nil, err
		}
		if *d.dst, err = yamlfile.ParseDuration(v); err != nil {
			return nil, at(d.s.Line, "%s: %v", field(d.f), err)
		}
	}
	if rs.MaxWorkers.Set {
		v, err := sub(rs.MaxWorkers, "max_workers")
		if err != nil {
			return nil, err
		}
		if sc.MaxWorkers, err = strconv.Atoi(v); err != nil || sc.MaxWorkers <= 0 {
			return nil, at(rs.MaxWorkers.Line, "%s: want a positive whole number, got %q", field("max_workers"), v)
		}
	}
	for _, f := range []struct {
		s   Str
		dst *bool
		n   string
	}{{rs.HTTP2, &sc.HTTP2, "http2"}, {rs.KeepAlive, &sc.KeepAlive, "keepalive"}, {rs.Calibrate, &sc.Calibrate, "calibrate"}} {
		if f.s.Set {
			v, err := strconv.ParseBool(f.s.Value)
			if err != nil {
				return nil, at(f.s.Line, "%s: want true or false, got %q", field(f.n), f.s.Value)
			}
			*f.dst = v
		}
	}
	for i, k := range rs.Headers.Keys {
		v, err := sub(rs.Headers.Vals[i], "headers."+k.Value)
		if err != nil {
			return nil, err
		}
		if k.Value == "" || strings.ContainsAny(k.Value, " :\r\n") {
			return nil, at(k.Line, "%s: bad header name %q", field("headers"), k.Value)
		}
		if strings.ContainsAny(v, "\r\n") {
			return nil, at(rs.Headers.Vals[i].Line, "%s: value spans lines", field("headers."+k.Value))
		}
		sc.Headers = append(sc.Headers, [2]string{k.Value, v})
	}
	if err := b.checkTargets(sc, firstLine(rs.Target, rs.Targets, rs.TargetsFile)); err != nil {
		return nil, err
	}
	return sc, nil
}

// stairs reads steps: [8, 16, 32] with step_duration: 5s.
func (b *builder) stairs(rs rawScenario, sub func(Str, string) (string, error), field func(string) string) (schedule.Spec, error) {
	var sp schedule.Spec
	var texts []string
	for i, st := range rs.Steps {
		v, err := sub(st, "steps")
		if err != nil {
			return sp, err
		}
		part, err := schedule.ParseStepList(v)
		if err != nil {
			return sp, at(st.Line, "%s[%d]: %v", field("steps"), i, err)
		}
		sp.Steps = append(sp.Steps, part.Steps...)
		texts = append(texts, part.Text)
	}
	if len(sp.Steps) > 1000 {
		return sp, at(rs.Steps[0].Line, "%s: more than 1000 rates", field("steps"))
	}
	if !rs.StepDur.Set {
		return sp, at(rs.Steps[0].Line, "%s: missing step_duration (how long each rate is held, e.g. 5s)", field("steps"))
	}
	d, err := sub(rs.StepDur, "step_duration")
	if err != nil {
		return sp, err
	}
	if sp.StepDuration, err = yamlfile.ParseDuration(d); err != nil || sp.StepDuration <= 0 {
		return sp, at(rs.StepDur.Line, "%s: want a positive duration like 5s, got %q", field("step_duration"), d)
	}
	sp.From, sp.To = sp.Steps[0], sp.Steps[len(sp.Steps)-1]
	sp.Text = strings.Join(texts, ",") + " every " + sp.StepDuration.String()
	return sp, nil
}

// defaultName names a scenario after the last path segment of its first
// target ("/search?q=..." -> "search").
func defaultName(targets string, j int) string {
	first, _, _ := strings.Cut(strings.TrimSpace(targets), "\n")
	if f := strings.Fields(first); len(f) >= 2 {
		raw := varRE.ReplaceAllString(f[1], "http://x")
		raw = strings.NewReplacer("{{", "", "}}", "", " ", "").Replace(raw)
		if u, err := url.Parse(raw); err == nil {
			base := path.Base(u.Path)
			if nameRE.MatchString(base) {
				return base
			}
		}
	}
	return "scenario" + strconv.Itoa(j+1)
}
