package plan

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/loadlab/loadlab/internal/proxy/config"
)

// ForeignUpstream is a proxy route whose upstream is an address written in
// its config (or its environment) rather than the plan's origin: the
// origin the plan starts gets no traffic from that route.
type ForeignUpstream struct {
	Component string // the proxy component
	Config    string // its config file, as the step uses it
	Route     string // the route's name
	Upstream  string // where the route goes
	Origin    string // the plan's origin component
}

// String is the one-line warning `loadlab run -check` prints.
func (f ForeignUpstream) String() string {
	return fmt.Sprintf("%s (component %s): route %s goes to %s, not to the plan's origin (component %s, ${%s.url}): its requests will not reach the origin this plan starts; write upstream: ${%s.url} to send them there",
		f.Config, f.Component, f.Route, f.Upstream, f.Origin, f.Origin, f.Origin)
}

// PlaceholderHost is the host a component's ${name.url} stands for when
// nothing runs yet (the check, the model): each address can then be traced
// to the component it names.
func PlaceholderHost(name string) string { return name + ".model.invalid" }

// ForeignUpstreams lists the routes of the plan's proxy configs, in every
// variant its steps use, that go somewhere other than the plan's origin.
// A plan without an origin component, or without a proxy, has none. A
// route to another component of the plan (a command under test) is not
// foreign. Configs that do not render or parse are left to the run, which
// reports them.
func (p *Plan) ForeignUpstreams() []ForeignUpstream {
	var origin *Component
	urls := map[string]string{}
	known := map[string]bool{}
	for _, c := range p.Components {
		urls[c.Name] = "http://" + PlaceholderHost(c.Name)
		known[PlaceholderHost(c.Name)] = true
		if c.Kind == KindOrigin && origin == nil {
			origin = c
		}
	}
	if origin == nil {
		return nil
	}
	var out []ForeignUpstream
	seen := map[string]bool{}
	for _, st := range p.Steps {
		for _, c := range p.Components {
			if c.Kind != KindProxy {
				continue
			}
			_, file, set := c.Files(st)
			text, err := RenderConfig(file, set, urls, p.Target)
			if err != nil {
				continue
			}
			cfg, err := config.ParseEnv(text, file, c.LookupEnv(st))
			if err != nil {
				continue
			}
			for _, rc := range cfg.Routes {
				u, err := url.Parse(rc.Upstream)
				if err == nil && known[u.Host] {
					continue
				}
				f := ForeignUpstream{Component: c.Name, Config: file, Route: rc.Name, Upstream: rc.Upstream, Origin: origin.Name}
				if key := f.String(); !seen[key] {
					seen[key] = true
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// LookupEnv looks a variable up as component c started for step st sees
// it: its plan and variant env first, then loadlab's own environment.
func (c *Component) LookupEnv(st *Step) func(string) (string, bool) {
	env := append([]string(nil), c.Env...)
	if v := c.Variant(st.Variants[c.Name]); v != nil {
		env = append(env, v.Env...)
	}
	return func(name string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
				return v, true
			}
		}
		return os.LookupEnv(name)
	}
}
