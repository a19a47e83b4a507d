package plan

import (
	"errors"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/targets"
	"github.com/loadlab/loadlab/internal/yamlfile"
)

// A scenario is built in parts, in the order below: its targets, name,
// rate (or stairs), duration, the schedule they make, the other
// durations, max_workers, the switches and the headers; then its targets
// are parsed with everything else in place. Each part substitutes the
// ${...} references of its own fields and names them in its errors
// (scenarios[0].rate, steps[1].scenarios[0].duration) with their line.

// scenarioBuild is one scenario's raw fields on their way to a Scenario.
type scenarioBuild struct {
	b    *builder
	path string // e.g. "scenarios[0]", for error messages
	j    int    // its index in the step
	rs   rawScenario
	vars map[string]string
	line int // the scenario's first line, for problems of the whole
	sc   *Scenario
}

// scenario builds the scenario at path (e.g. "scenarios[0]"), the j-th of
// its step.
func (b *builder) scenario(path string, j int, rs rawScenario, vars map[string]string) (*Scenario, error) {
	s := &scenarioBuild{b: b, path: path, j: j, rs: rs, vars: vars,
		line: firstLine(rs.Name, rs.Target, rs.Targets, rs.TargetsFile, rs.Flow, rs.Rate, rs.Duration)}
	s.sc = &Scenario{Line: s.line, Timeout: 30 * time.Second, KeepAlive: true}
	for _, part := range []func() error{s.targets, s.name, s.rate, s.duration, s.schedule, s.durations, s.maxWorkers, s.switches, s.headers, s.duet} {
		if err := part(); err != nil {
			return nil, err
		}
	}
	if err := b.checkTargets(s.sc, firstLine(rs.Target, rs.Targets, rs.TargetsFile, rs.Flow)); err != nil {
		return nil, err
	}
	return s.sc, nil
}

// field names one of the scenario's fields: "scenarios[0].rate".
func (s *scenarioBuild) field(name string) string { return s.path + "." + name }

// sub substitutes the ${...} references in v, the scenario's field name.
func (s *scenarioBuild) sub(v Str, name string) (string, error) {
	out, err := s.b.substitute(v.Value, s.vars)
	if err != nil {
		return "", at(v.Line, "%s: %v", s.field(name), err)
	}
	return out, nil
}

// targets takes exactly one of target, targets and targets_file.
func (s *scenarioBuild) targets() error {
	rs, sc := s.rs, s.sc
	n := 0
	for _, v := range []Str{rs.Target, rs.Targets, rs.TargetsFile, rs.Flow} {
		if v.Value != "" {
			n++
		}
	}
	if n != 1 {
		return at(s.line, "scenario %d: give exactly one of target, targets, targets_file or flow", s.j+1)
	}
	var err error
	switch {
	case rs.Target.Value != "":
		if strings.Contains(rs.Target.Value, "\n") {
			return at(rs.Target.Line, "%s: one line only; use targets: for several", s.field("target"))
		}
		sc.Targets, err = s.sub(rs.Target, "target")
	case rs.Targets.Value != "":
		sc.Targets, err = s.sub(rs.Targets, "targets")
	case rs.Flow.Value != "":
		sc.Flow, err = s.b.path(rs.Flow, s.field("flow"))
	default:
		sc.TargetsFile, err = s.b.path(rs.TargetsFile, s.field("targets_file"))
	}
	return err
}

// name is name:, or one made from the first target's path.
func (s *scenarioBuild) name() error {
	rs, sc := s.rs, s.sc
	var err error
	if sc.Name, err = s.sub(rs.Name, "name"); err != nil {
		return err
	}
	if sc.Name == "" {
		sc.Name = defaultName(sc.Targets, s.j)
		if base := strings.TrimSuffix(path.Base(sc.Flow), path.Ext(sc.Flow)); sc.Flow != "" && nameRE.MatchString(base) {
			sc.Name = base
		}
	}
	if !nameRE.MatchString(sc.Name) {
		return at(firstLine(rs.Name, rs.Target), "%s: bad scenario name %q (letters, digits, - and _); set name:", s.field("name"), sc.Name)
	}
	return nil
}

// rate is rate: (a constant rate or a ramp) or steps: with step_duration:.
func (s *scenarioBuild) rate() error {
	rs, sc := s.rs, s.sc
	rate, err := s.sub(rs.Rate, "rate")
	if err != nil {
		return err
	}
	if len(rs.Steps) > 0 {
		if rate != "" {
			return at(rs.Steps[0].Line, "scenario %q: give rate or steps, not both", sc.Name)
		}
		sc.Rate, err = s.stairs()
		return err
	}
	if rate == "" {
		return at(s.line, "scenario %q: missing rate (e.g. rate: 50/s)", sc.Name)
	}
	if sc.Rate, err = schedule.ParseSpec(rate); err != nil {
		return at(rs.Rate.Line, "%s: %v", s.field("rate"), err)
	}
	if sc.Rate.From.IsZero() && sc.Rate.To.IsZero() && !rs.Workers.Set { // rate: 0 with workers: closedLoop
		return at(rs.Rate.Line, "%s: must be above zero, got %s (or rate: 0 with workers: N for a closed loop of N users)", s.field("rate"), yamlfile.Quote(rate))
	}
	if rs.StepDur.Set {
		return at(rs.StepDur.Line, "%s: only with steps", s.field("step_duration"))
	}
	return nil
}

// duration is duration:, or by default as long as the stairs take.
func (s *scenarioBuild) duration() error {
	sc, d := s.sc, s.rs.Duration
	dur, err := s.sub(d, "duration")
	if err != nil {
		return err
	}
	switch {
	case dur == "" && len(sc.Rate.Steps) > 0:
		sc.Duration = sc.Rate.StepDuration * time.Duration(len(sc.Rate.Steps))
	case dur == "":
		return at(s.line, "scenario %q: missing duration (e.g. duration: 10s)", sc.Name)
	default:
		if sc.Duration, err = yamlfile.ParseDuration(dur); err != nil {
			return at(d.Line, "%s: %v", s.field("duration"), err)
		}
		if sc.Duration <= 0 {
			return at(d.Line, "%s: must be positive", s.field("duration"))
		}
	}
	return nil
}

// schedule checks the rate and duration together: the attack builds the
// same schedule; its checks name plan fields here.
func (s *scenarioBuild) schedule() error {
	rs, sc := s.rs, s.sc
	_, err := schedule.New(sc.Rate, sc.Duration)
	if err == nil {
		return nil
	}
	var ie *schedule.InputError
	if !errors.As(err, &ie) {
		return at(s.line, "%s: %v", s.path, err)
	}
	l := map[string]int{"rate": rs.Rate.Line, "duration": rs.Duration.Line, "step_duration": rs.StepDur.Line}[ie.Input]
	if l == 0 {
		l = s.line
	}
	return at(l, "%s: %s", s.field(ie.Input), ie.Message(s.field))
}

// durations reads timeout: and start_after:.
func (s *scenarioBuild) durations() error {
	for _, d := range []struct {
		v   Str
		dst *time.Duration
		f   string
	}{{s.rs.Timeout, &s.sc.Timeout, "timeout"}, {s.rs.StartAfter, &s.sc.StartAfter, "start_after"}} {
		if !d.v.Set {
			continue
		}
		v, err := s.sub(d.v, d.f)
		if err != nil {
			return err
		}
		if *d.dst, err = yamlfile.ParseDuration(v); err != nil {
			return at(d.v.Line, "%s: %v", s.field(d.f), err)
		}
	}
	return nil
}

// maxWorkers reads max_workers:.
func (s *scenarioBuild) maxWorkers() error {
	if !s.rs.MaxWorkers.Set {
		return nil
	}
	v, err := s.sub(s.rs.MaxWorkers, "max_workers")
	if err != nil {
		return err
	}
	if s.sc.MaxWorkers, err = strconv.Atoi(v); err != nil || s.sc.MaxWorkers <= 0 {
		return at(s.rs.MaxWorkers.Line, "%s: want a positive whole number, got %q", s.field("max_workers"), v)
	}
	return nil
}

// switches reads http2:, keepalive: and calibrate:.
func (s *scenarioBuild) switches() error {
	for _, f := range []struct {
		v   Str
		dst *bool
		n   string
	}{{s.rs.HTTP2, &s.sc.HTTP2, "http2"}, {s.rs.KeepAlive, &s.sc.KeepAlive, "keepalive"}, {s.rs.Calibrate, &s.sc.Calibrate, "calibrate"}} {
		if !f.v.Set {
			continue
		}
		v, err := strconv.ParseBool(f.v.Value)
		if err != nil {
			return at(f.v.Line, "%s: want true or false, got %q", s.field(f.n), f.v.Value)
		}
		*f.dst = v
	}
	return nil
}

// duet reads duet:, side B's base URL of a duet scenario.
func (s *scenarioBuild) duet() error {
	if s.rs.Duet.Value == "" {
		return nil
	}
	v, err := s.sub(s.rs.Duet, "duet")
	if err != nil {
		return err
	}
	if s.sc.Duet, err = targets.CheckDuetBase(v); err != nil {
		return at(s.rs.Duet.Line, "%s: %v", s.field("duet"), err)
	}
	if s.sc.Calibrate {
		return at(s.rs.Duet.Line, "%s: a duet is not calibrated as a black box (calibrate: true sends to one target)", s.field("duet"))
	}
	return nil
}

// headers reads headers:, each checked (name, value, template) as the
// attack checks -header, at its own line.
func (s *scenarioBuild) headers() error {
	hs := s.rs.Headers
	for i, k := range hs.Keys {
		v, err := s.sub(hs.Vals[i], "headers."+k.Value)
		if err != nil {
			return err
		}
		if k.Value == "" || strings.ContainsAny(k.Value, " :\r\n") {
			return at(k.Line, "%s: bad header name %q", s.field("headers"), k.Value)
		}
		if strings.ContainsAny(v, "\r\n") {
			return at(hs.Vals[i].Line, "%s: value spans lines", s.field("headers."+k.Value))
		}
		if err := targets.CheckHeader(k.Value, v); err != nil {
			return at(hs.Vals[i].Line, "%s: %v", s.field("headers."+k.Value), err)
		}
		s.sc.Headers = append(s.sc.Headers, [2]string{k.Value, v})
	}
	return nil
}

// stairs reads steps: [8, 16, 32] with step_duration: 5s.
func (s *scenarioBuild) stairs() (schedule.Spec, error) {
	rs := s.rs
	var sp schedule.Spec
	var texts []string
	for i, st := range rs.Steps {
		v, err := s.sub(st, "steps")
		if err != nil {
			return sp, err
		}
		part, err := schedule.ParseStepList(v)
		if err != nil {
			return sp, at(st.Line, "%s[%d]: %v", s.field("steps"), i, err)
		}
		sp.Steps = append(sp.Steps, part.Steps...)
		texts = append(texts, part.Text)
	}
	if len(sp.Steps) > 1000 {
		return sp, at(rs.Steps[0].Line, "%s: more than 1000 rates", s.field("steps"))
	}
	if !rs.StepDur.Set {
		return sp, at(rs.Steps[0].Line, "%s: missing step_duration (how long each rate is held, e.g. 5s)", s.field("steps"))
	}
	d, err := s.sub(rs.StepDur, "step_duration")
	if err != nil {
		return sp, err
	}
	if sp.StepDuration, err = yamlfile.ParseDuration(d); err != nil || sp.StepDuration <= 0 {
		return sp, at(rs.StepDur.Line, "%s: want a positive duration like 5s, got %q", s.field("step_duration"), d)
	}
	sp.From, sp.To = sp.Steps[0], sp.Steps[len(sp.Steps)-1]
	sp.Text = strings.Join(texts, ",") + " every " + sp.StepDuration.String()
	return sp, nil
}

// defaultName names a scenario after the last path segment of its first
// target ("/search?q=..." -> "search").
func defaultName(text string, j int) string {
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
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
