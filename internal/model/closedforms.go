package model

import (
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/loadlab/loadlab/internal/prediction"
	"github.com/loadlab/loadlab/internal/proxy/config"
)

// ClosedForms returns the closed forms of the step's pools that are fed
// only by constant-rate scenarios through routes whose origin answers
// with one fixed latency, all alike: the cases the formulas describe.
func ClosedForms(in Input) []prediction.ClosedForm {
	if in.Proxy == nil {
		return nil
	}
	o := newOrigin(in.Origin, 0)
	type acc struct {
		rate        float64
		latency, rt time.Duration
		ok, seen    bool
	}
	pools := map[string]*acc{}
	var order []string
	for _, sc := range in.Scenarios {
		for i, t := range sc.Targets {
			if i >= len(sc.ToProxy) || !sc.ToProxy[i] {
				continue
			}
			u := targetURL(t)
			if u == nil {
				continue
			}
			rc := in.Proxy.RouteFor(u.Path)
			if rc == nil {
				continue
			}
			name, _ := in.Proxy.PoolFor(rc)
			a := pools[name]
			if a == nil {
				a = &acc{ok: true}
				pools[name] = a
				order = append(order, name)
			}
			lat, fixed := fixedLatency(o, u.Path)
			rt := rc.RequestTimeout.D()
			if sc.Schedule.Kind != schedule.Constant || !fixed || (a.seen && (lat != a.latency || rt != a.rt)) {
				a.ok = false
			}
			a.latency, a.rt, a.seen = lat, rt, true
			a.rate += sc.Schedule.Rate.PerSecond() / float64(len(sc.Targets))
		}
	}
	var out []prediction.ClosedForm
	for _, name := range order {
		if a := pools[name]; a.ok {
			c := Closed(poolConfig(in, name), a.rt, a.latency, a.rate)
			c.Pool = name
			out = append(out, c)
		}
	}
	return out
}

// fixedLatency is the origin's latency for path when its recipe has one
// stage, from the start, with a fixed latency and no faults.
func fixedLatency(o *origin, path string) (time.Duration, bool) {
	i := o.best.Match(path)
	if i < 0 {
		return 0, false
	}
	st := o.recipes[i].Stages
	if len(st) != 1 || st[0].At > 0 || st[0].Faults.Any() || st[0].Contention.Any() {
		return 0, false
	}
	f, ok := st[0].Latency.(recipe.Fixed)
	return time.Duration(f), ok
}

// poolConfig finds a pool's configuration, shared or a route's own.
func poolConfig(in Input, name string) *config.PoolConfig {
	for _, rc := range in.Proxy.Routes {
		if n, pc := in.Proxy.PoolFor(rc); n == name {
			return pc
		}
	}
	return nil
}
