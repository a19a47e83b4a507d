package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/experiment/threshold"
)

// at reports a problem at a line of the plan (Parse adds the file).
func at(line int, format string, args ...any) error {
	return badinput.At("", line, format, args...)
}

// builder turns the raw document into a Plan, validating as it goes.
type builder struct {
	file, dir string
	raw       *rawPlan
	plan      *Plan
	vars      map[string]string     // plan-level vars
	set       []Override            // -set overrides, in the order given
	record    bool                  // a run folder's copy: the files it names are not opened (ParseRecord)
	flows     map[string]*flowNames // flow scenarios' step and check names, by scenario name
}

var (
	nameRE    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)
	variantRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	// DefaultListenPattern finds the URL a component prints when listening.
	DefaultListenPattern = regexp.MustCompile(`listening on (https?://\S+)`)
)

func (b *builder) build(p *Plan) error {
	b.plan = p
	r := b.raw
	p.Name = r.Name.Value
	if p.Name == "" {
		p.Name = strings.TrimSuffix(filepath.Base(b.file), filepath.Ext(b.file))
	}
	p.Description = r.Description.Value
	p.Target = strings.TrimRight(r.Target.Value, "/")
	if p.Target != "" && !strings.HasPrefix(p.Target, "http://") && !strings.HasPrefix(p.Target, "https://") {
		return at(r.Target.Line, "target: want an absolute http:// or https:// URL, got %q", r.Target.Value)
	}
	if err := b.components(); err != nil {
		return err
	}
	if p.Target == "" && len(p.Components) == 0 {
		return at(1, "the plan starts no components and has no target: add components: or target:")
	}
	b.vars = map[string]string{}
	for i, k := range r.Vars.Keys {
		if !nameRE.MatchString(k.Value) {
			return at(k.Line, "vars: bad name %q (letters, digits, - and _)", k.Value)
		}
		if p.Component(k.Value) != nil {
			return at(k.Line, "vars: %q is also a component name", k.Value)
		}
		b.vars[k.Value] = r.Vars.Vals[i].Value
	}
	if err := b.applyOverrides(); err != nil {
		return err
	}
	p.Overrides = b.set
	p.Warmup, p.Cooldown = r.Warmup.Value, r.Cooldown.Value
	if r.Retries.Set {
		n, err := strconv.Atoi(r.Retries.Value)
		if err != nil || n < 0 || n > 5 {
			return at(r.Retries.Line, "retries: want a whole number from 0 to 5, got %q", r.Retries.Value)
		}
		p.Retries = n
	}
	if err := b.stop(); err != nil {
		return err
	}
	if err := b.steps(); err != nil {
		return err
	}
	if err := b.samplers(); err != nil {
		return err
	}
	if err := b.thresholds(); err != nil {
		return err
	}
	if err := b.search(); err != nil {
		return err
	}
	return b.repeat()
}

func (b *builder) path(s Str, field string) (string, error) {
	if s.Value == "" {
		return "", nil
	}
	path := s.Value
	if !filepath.IsAbs(path) {
		path = filepath.Join(b.dir, path)
	}
	if b.record {
		return path, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", at(s.Line, "%s: file %q not found", field, s.Value)
	}
	if st.IsDir() {
		return "", at(s.Line, "%s: %q is a directory, want a file", field, s.Value)
	}
	return path, nil
}

func strs(ss Strs) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.Value
	}
	return out
}

func env(o Ordered[Str]) []string {
	var out []string
	for i, k := range o.Keys {
		out = append(out, k.Value+"="+o.Vals[i].Value)
	}
	return out
}

func (b *builder) components() error {
	r := b.raw.Components
	for i, key := range r.Keys {
		rc := r.Vals[i]
		name := key.Value
		field := "components." + name
		if !nameRE.MatchString(name) {
			return at(key.Line, "%s: bad component name (letters, digits, - and _, starting with a letter)", field)
		}
		if name == "target" {
			return at(key.Line, "%s: \"target\" is reserved for the external target URL", field)
		}
		c := &Component{Name: name, Kind: rc.Kind.Value, Label: rc.Label.Value, Line: key.Line,
			Args: strs(rc.Args), Env: env(rc.Env), Command: strs(rc.Command),
			StartTimeout: 10 * time.Second, RestartEach: true, ListenPattern: DefaultListenPattern}
		if rc.StartTimeout.Set && rc.StartTimeout.Value > 0 {
			c.StartTimeout = rc.StartTimeout.Value
		}
		switch rc.Restart.Value {
		case "", "step":
		case "change":
			c.RestartEach = false
		default:
			return at(rc.Restart.Line, "%s.restart: want step or change, got %q", field, rc.Restart.Value)
		}
		var err error
		switch c.Kind {
		case KindOrigin:
			c.Health, c.MetricsPath = "/_admin/status", "/_admin/metrics"
			if c.Recipe, err = b.path(rc.Recipe, field+".recipe"); err != nil {
				return err
			}
		case KindProxy:
			c.Health, c.MetricsPath = "/status", "/metrics"
			if c.Config, err = b.path(rc.Config, field+".config"); err != nil {
				return err
			}
		case KindCommand:
			c.Health = "/"
		case "":
			return at(key.Line, "%s: missing kind (origin, proxy or command)", field)
		default:
			return at(rc.Kind.Line, "%s.kind: unknown kind %q (want origin, proxy or command)", field, c.Kind)
		}
		if rc.Health.Set {
			c.Health = rc.Health.Value
		}
		if rc.Metrics.Set {
			c.MetricsPath = rc.Metrics.Value
		}
		for _, h := range []Str{rc.Health, rc.Metrics} {
			if h.Value != "" && !strings.HasPrefix(h.Value, "/") {
				return at(h.Line, "%s: want a path starting with /, got %q", field, h.Value)
			}
		}
		if rc.ListenPattern.Value != "" {
			re, err := regexp.Compile(rc.ListenPattern.Value)
			if err != nil {
				return at(rc.ListenPattern.Line, "%s.listen_pattern: %v", field, err)
			}
			if re.NumSubexp() < 1 {
				return at(rc.ListenPattern.Line, "%s.listen_pattern: needs a (group) capturing the URL or host:port", field)
			}
			c.ListenPattern = re
		}
		if c.Kind != KindOrigin && rc.Recipe.Set {
			return at(rc.Recipe.Line, "%s.recipe: only origin components take a recipe", field)
		}
		if c.Kind != KindProxy && rc.Config.Set {
			return at(rc.Config.Line, "%s.config: only proxy components take a config", field)
		}
		if c.Kind != KindCommand && len(rc.Command) > 0 {
			return at(rc.Command[0].Line, "%s.command: only command components take a command (origin and proxy run this binary)", field)
		}
		for j, vk := range rc.Variants.Keys {
			v, err := b.variant(c, field+".variants."+vk.Value, vk, rc.Variants.Vals[j])
			if err != nil {
				return err
			}
			c.Variants = append(c.Variants, v)
		}
		// Every way of running the component must have what it needs.
		need := func(has func(v *Variant) bool, base bool, what string) error {
			if base {
				return nil
			}
			if len(c.Variants) == 0 {
				return at(key.Line, "%s: missing %s", field, what)
			}
			for _, v := range c.Variants {
				if !has(v) {
					return at(v.Line, "%s.variants.%s: missing %s (the component has none to inherit)", field, v.Name, what)
				}
			}
			return nil
		}
		switch c.Kind {
		case KindOrigin:
			err = need(func(v *Variant) bool { return v.Recipe != "" }, c.Recipe != "", "recipe")
		case KindProxy:
			err = need(func(v *Variant) bool { return v.Config != "" }, c.Config != "", "config")
		case KindCommand:
			err = need(func(v *Variant) bool { return len(v.Command) > 0 }, len(c.Command) > 0, "command")
		}
		if err != nil {
			return err
		}
		b.plan.Components = append(b.plan.Components, c)
	}
	return nil
}

func (b *builder) variant(c *Component, field string, key Str, rv rawVariant) (*Variant, error) {
	if !variantRE.MatchString(key.Value) {
		return nil, at(key.Line, "%s: bad variant name (letters, digits, ., - and _)", field)
	}
	v := &Variant{Name: key.Value, Label: rv.Label.Value, Line: key.Line,
		Command: strs(rv.Command), Args: strs(rv.Args), Env: env(rv.Env)}
	var err error
	if v.Recipe, err = b.path(rv.Recipe, field+".recipe"); err != nil {
		return nil, err
	}
	if v.Config, err = b.path(rv.Config, field+".config"); err != nil {
		return nil, err
	}
	if c.Kind != KindOrigin && rv.Recipe.Set {
		return nil, at(rv.Recipe.Line, "%s.recipe: only origin components take a recipe", field)
	}
	if c.Kind != KindProxy && (rv.Config.Set || rv.Set.Len() > 0) {
		line := rv.Config.Line
		if line == 0 {
			line = rv.Set.Line
		}
		return nil, at(line, "%s: config and set are for proxy components", field)
	}
	if c.Kind != KindCommand && len(rv.Command) > 0 {
		return nil, at(rv.Command[0].Line, "%s.command: only command components take a command", field)
	}
	for i, k := range rv.Set.Keys {
		n := rv.Set.Vals[i].Node
		if n == nil || n.Kind != yaml.ScalarNode {
			return nil, at(k.Line, "%s.set.%s: want a single value", field, k.Value)
		}
		var val any
		if err := n.Decode(&val); err != nil {
			return nil, at(n.Line, "%s.set.%s: %v", field, k.Value, err)
		}
		v.Set = append(v.Set, Setting{Path: k.Value, Value: val, Line: k.Line})
	}
	return v, nil
}

func (b *builder) stop() error {
	r := b.raw.Stop
	s := &b.plan.Stop
	s.Window, s.MinRequests = 5*time.Second, 20
	if r.ErrorRatio.Set {
		f, err := parseRatio(r.ErrorRatio.Value)
		if err != nil {
			return at(r.ErrorRatio.Line, "stop.error_ratio: %v", err)
		}
		s.ErrorRatio = f
	}
	if r.Window.Set {
		if r.Window.Value <= 0 {
			return at(r.Window.Line, "stop.window: must be positive")
		}
		s.Window = r.Window.Value
	}
	if r.MinRequests.Set {
		n, err := strconv.Atoi(r.MinRequests.Value)
		if err != nil || n < 0 {
			return at(r.MinRequests.Line, "stop.min_requests: want a whole number, got %q", r.MinRequests.Value)
		}
		s.MinRequests = n
	}
	switch r.OnFailure.Value {
	case "", "abort":
	case "continue":
		s.ContinueOnFailed = true
	default:
		return at(r.OnFailure.Line, "stop.on_component_failure: want abort or continue, got %q", r.OnFailure.Value)
	}
	return nil
}

// parseRatio reads "50%" or 0.5.
func parseRatio(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || f < 0 || f > 100 {
			return 0, fmt.Errorf("want a percentage between 0%% and 100%%, got %q", s)
		}
		return f / 100, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 1 {
		return 0, fmt.Errorf("want a percentage like 50%% or a fraction between 0 and 1, got %q", s)
	}
	return f, nil
}

func (b *builder) samplers() error {
	r := b.raw.Samplers
	s := &b.plan.Samplers
	s.Interval = time.Second
	if r.Interval.Set {
		if r.Interval.Value < 100*time.Millisecond {
			return at(r.Interval.Line, "samplers.interval: at least 100ms, got %s", r.Interval.Value)
		}
		s.Interval = r.Interval.Value
	}
	for _, m := range r.Metrics {
		src := MetricSource{From: m.From.Value, Path: m.Path.Value, Series: strs(m.Series)}
		switch {
		case src.From == "":
			return at(m.From.Line, "samplers.metrics: missing from (a component name or a URL)")
		case strings.HasPrefix(src.From, "http://") || strings.HasPrefix(src.From, "https://"):
		default:
			c := b.plan.Component(src.From)
			if c == nil {
				return at(m.From.Line, "samplers.metrics.from: no component named %q", src.From)
			}
			if src.Path == "" {
				src.Path = c.MetricsPath
			}
			if src.Path == "" {
				return at(m.From.Line, "samplers.metrics: component %q has no metrics path; set path:", src.From)
			}
		}
		for _, sel := range m.Series {
			if _, err := ParseSelector(sel.Value); err != nil {
				return at(sel.Line, "samplers.metrics.series: %v", err)
			}
		}
		s.Metrics = append(s.Metrics, src)
	}
	for _, pid := range r.PIDs {
		n, err := strconv.Atoi(pid.Value)
		if err != nil || n <= 0 {
			return at(pid.Line, "samplers.pids: want a process id, got %q", pid.Value)
		}
		s.PIDs = append(s.PIDs, n)
	}
	return nil
}

func (b *builder) thresholds() error {
	names := map[string]bool{}
	for _, st := range b.plan.Steps {
		for _, sc := range st.Scenarios {
			names[sc.Name] = true
		}
	}
	for _, s := range b.raw.Thresholds {
		t, err := threshold.Parse(s.Value)
		if err != nil {
			return at(s.Line, "thresholds: %v", err)
		}
		if t.Scenario != "" && t.Step == "" && !names[t.Scenario] && (b.record || b.flowStep(t.Scenario)) {
			t.Scenario, t.Step = "", t.Scenario // a flow step's name
		}
		if t.Scenario != "" && !names[t.Scenario] {
			return at(s.Line, "thresholds: no scenario or flow step named %q", t.Scenario)
		}
		if err := b.checkFlowThreshold(t); err != nil {
			return at(s.Line, "thresholds: %q: %v", t.Source, err)
		}
		b.plan.Thresholds = append(b.plan.Thresholds, t)
	}
	return nil
}
