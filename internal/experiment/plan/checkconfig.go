package plan

import (
	"os"
	"strings"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/proxy/config"
)

// CheckProxyConfigs validates every proxy component's config as the proxy
// will read it in each step (component addresses filled in with stand-ins,
// the variant's overrides and environment applied), so that `loadlab run
// -check` refuses what the proxy would refuse at start: a route on the
// reserved /metrics, an upstream port out of range, a bad pool.
func (p *Plan) CheckProxyConfigs() error {
	urls := map[string]string{}
	for _, c := range p.Components {
		urls[c.Name] = "http://127.0.0.1:1"
	}
	seen := map[string]bool{}
	for _, st := range p.Steps {
		for _, c := range p.Components {
			if c.Kind != KindProxy {
				continue
			}
			_, file, set := c.Files(st)
			if file == "" {
				continue
			}
			text, err := RenderConfig(file, set, urls, p.Target)
			if err != nil {
				return badinput.Wrap(file, err)
			}
			key := file + "\x00" + string(text)
			if seen[key] {
				continue
			}
			seen[key] = true
			if _, err := config.ParseEnv(text, file, c.LookupEnv(st)); err != nil {
				return err
			}
		}
	}
	return nil
}

// LookupEnv looks a variable up in the environment component c runs with in
// step st: its env: and its variant's, then the process's.
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
