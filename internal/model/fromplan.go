package model

import (
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/experiment/plan"
	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/targets"
)

// modelHost is the host a component stands at in the model: the plan's
// ${name.url} references expand to http://name.model.invalid so that each
// request can be traced to the component it goes to.
func modelHost(name string) string { return plan.PlaceholderHost(name) }

// StepInput builds the model's input for step st of plan p, as the runner
// would start it: the step's origin recipe, its proxy config with the
// variant's settings, and its scenarios. What the model cannot represent
// is returned as notes (one line each); scenarios it cannot follow are
// left out. An error means the step cannot be modelled at all.
func StepInput(p *plan.Plan, st *plan.Step, seed uint64) (Input, []string, error) {
	in := Input{Seed: seed}
	var notes []string
	urls := map[string]string{}
	kinds := map[string]string{}
	var proxyComp, originComp *plan.Component
	for _, c := range p.Components {
		urls[c.Name] = "http://" + modelHost(c.Name)
		kinds[modelHost(c.Name)] = c.Kind
		switch c.Kind {
		case plan.KindOrigin:
			if originComp != nil {
				notes = append(notes, fmt.Sprintf("component %s: the model follows one origin (%s)", c.Name, originComp.Name))
				continue
			}
			originComp = c
		case plan.KindProxy:
			if proxyComp != nil {
				notes = append(notes, fmt.Sprintf("component %s: the model follows one proxy (%s)", c.Name, proxyComp.Name))
				continue
			}
			proxyComp = c
		case plan.KindCommand:
			notes = append(notes, fmt.Sprintf("component %s is a command: the model does not know what it does", c.Name))
		}
	}
	if originComp == nil {
		return in, notes, fmt.Errorf("plan %s has no origin component: the model needs the origin's recipe", p.File)
	}
	rfile, _, _ := originComp.Files(st)
	in.OriginSeed, _ = originComp.OriginSeed(st)
	var err error
	if in.Origin, err = ReadRecipe(rfile); err != nil {
		return in, notes, err
	}
	if proxyComp != nil {
		_, cfile, set := proxyComp.Files(st)
		text, err := plan.RenderConfig(cfile, set, urls, p.Target)
		if err != nil {
			return in, notes, badinput.Wrap(cfile, err)
		}
		cfg, err := config.ParseEnv(text, cfile, proxyComp.LookupEnv(st))
		if err != nil {
			return in, notes, err
		}
		for _, rc := range cfg.Routes {
			if u, err := url.Parse(rc.Upstream); err != nil || u.Host != modelHost(originComp.Name) {
				notes = append(notes, fmt.Sprintf("proxy route %s goes to %s, not to the plan's origin: answered as the origin would", rc.Name, rc.Upstream))
			}
		}
		in.Proxy = cfg
	}
	// Components kept running from earlier steps: those steps' attacks
	// are simulated first, so what they left is there.
	if kept := keptSteps(p, st, proxyComp, originComp); len(kept) > 0 {
		var at time.Duration
		for _, prev := range kept {
			var longest time.Duration
			for _, sc := range prev.Scenarios {
				ms, note, err := scenarioInput(p, sc, urls, kinds)
				if err != nil || note != "" {
					continue
				}
				ms.StartAfter += at + p.Warmup
				in.Before = append(in.Before, ms)
				longest = max(longest, sc.StartAfter+sc.Duration)
			}
			at += p.Warmup + longest + p.Cooldown
		}
		in.Start = at
		if originComp.RestartEach && stagesTimed(in.Origin) {
			notes = append(notes, fmt.Sprintf("component %s is restarted for this step but its recipe's stages are timed: the model runs them from the first of the %d earlier steps kept on the proxy", originComp.Name, len(kept)))
		}
	}
	for _, sc := range st.Scenarios {
		ms, note, err := scenarioInput(p, sc, urls, kinds)
		if err != nil {
			return in, notes, err
		}
		if note != "" {
			notes = append(notes, note)
			continue
		}
		in.Scenarios = append(in.Scenarios, ms)
	}
	return in, notes, nil
}

// scenarioInput reads one scenario's targets and schedule. A scenario
// aimed at something the model does not know comes back as a note.
func scenarioInput(p *plan.Plan, sc *plan.Scenario, urls, kinds map[string]string) (Scenario, string, error) {
	ms := Scenario{Name: sc.Name, Timeout: sc.Timeout, StartAfter: sc.StartAfter}
	if ms.Timeout <= 0 {
		ms.Timeout = attack.DefaultOptions().Timeout
	}
	if sc.Flow != "" {
		return ms, fmt.Sprintf("scenario %s runs a flow (user journeys), which the model does not predict yet: left out", sc.Name), nil
	}
	text := sc.Targets
	file := p.File
	if sc.TargetsFile != "" {
		data, err := os.ReadFile(sc.TargetsFile)
		if err != nil {
			return ms, "", badinput.Wrap(sc.TargetsFile, err)
		}
		text, file = string(data), sc.TargetsFile
	}
	text, err := plan.Expand(text, urls, p.Target)
	if err != nil {
		return ms, "", err
	}
	hdr := http.Header{}
	for _, h := range sc.Headers {
		hdr.Add(h[0], h[1])
	}
	ts, err := targets.ReadAll(strings.NewReader(text), targets.Options{File: file, Dir: p.Dir, Header: hdr})
	if err != nil {
		return ms, "", fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	for _, t := range ts {
		host := ""
		if u := targetURL(t); u != nil {
			host = u.Host
		}
		switch kinds[host] {
		case plan.KindProxy:
			ms.ToProxy = append(ms.ToProxy, true)
		case plan.KindOrigin:
			ms.ToProxy = append(ms.ToProxy, false)
		default:
			return ms, fmt.Sprintf("scenario %s goes to %s, which the model does not know: left out", sc.Name, host), nil
		}
	}
	ms.Targets = ts
	if ms.Schedule, err = schedule.New(sc.Rate, sc.Duration); err != nil {
		return ms, "", fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	if ms.Schedule.Unpaced() {
		if sc.MaxWorkers <= 0 {
			return ms, fmt.Sprintf("scenario %s has no rate (-rate=0) and no max_workers: its load depends on the answers, left out", sc.Name), nil
		}
		ms.Workers = sc.MaxWorkers // a closed loop of max_workers users
	}
	return ms, "", nil
}

// targetURL is where a target goes (a templated URL is rendered once:
// hosts and route prefixes are not expected to vary), or nil.
func targetURL(t *targets.Target) *url.URL {
	if u := t.StaticURL(); u != nil {
		return u
	}
	u, err := url.Parse(string(t.URL.Append(nil, targets.NewRand(1), 0)))
	if err != nil {
		return nil
	}
	return u
}

// ReadRecipe reads an origin recipe file as the origin does.
func ReadRecipe(file string) ([]recipe.Recipe, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, badinput.Wrap(file, err)
	}
	rs, err := recipe.Parse(data)
	if err != nil {
		return nil, badinput.Wrap(file, err)
	}
	return rs, nil
}

// keptSteps are the steps before st that ran on the same proxy process
// (kept between steps: restart when its variant changes, and the variant
// did not change), oldest first.
func keptSteps(p *plan.Plan, st *plan.Step, proxyComp, originComp *plan.Component) []*plan.Step {
	if proxyComp == nil || proxyComp.RestartEach {
		return nil
	}
	var out []*plan.Step
	for j := st.Index - 1; j >= 0; j-- {
		prev := p.Steps[j]
		if prev.Variants[proxyComp.Name] != st.Variants[proxyComp.Name] ||
			!originComp.RestartEach && prev.Variants[originComp.Name] != st.Variants[originComp.Name] {
			break
		}
		out = append([]*plan.Step{prev}, out...)
	}
	return out
}

// stagesTimed reports whether a recipe changes behaviour over time.
func stagesTimed(rs []recipe.Recipe) bool {
	for _, r := range rs {
		for _, st := range r.Stages {
			if st.At > 0 {
				return true
			}
		}
	}
	return false
}
