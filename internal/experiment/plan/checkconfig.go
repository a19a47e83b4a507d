package plan

import (
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
		urls[c.Name] = "http://" + PlaceholderHost(c.Name)
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
