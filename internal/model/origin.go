package model

import (
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/loadlab/loadlab/internal/routepath"
)

// origin answers as the loadlab origin does with its recipes loaded at
// virtual time 0: the route by the origin's own matching rule, the stage
// by time, status, latency and fault drawn from the stage.
type origin struct {
	recipes []recipe.Recipe
	best    *routepath.Best
	header  []http.Header // per recipe, for the proxy's cache decisions
	rng     *rand.Rand
}

func newOrigin(recipes []recipe.Recipe, rng *rand.Rand) *origin {
	o := &origin{recipes: recipes, rng: rng}
	names := make([]string, len(recipes))
	for i, r := range recipes {
		names[i] = r.Route
		h := http.Header{}
		for k, v := range r.Headers {
			h.Set(k, v)
		}
		o.header = append(o.header, h)
	}
	o.best = routepath.NewBest(names)
	return o
}

// answer is what the origin does with one request.
type answer struct {
	status  int
	latency time.Duration
	fault   recipe.Fault
	header  http.Header
}

// answer draws the origin's behaviour for path at virtual time now.
func (o *origin) answer(path string, now time.Duration) answer {
	i := o.best.Match(path)
	if i < 0 {
		return answer{status: http.StatusNotAcceptable}
	}
	rc := &o.recipes[i]
	st := stageAt(rc.Stages, now)
	if st == nil { // before the first stage, as origin_simulator: 406
		return answer{status: http.StatusNotAcceptable, header: o.header[i]}
	}
	a := answer{header: o.header[i]}
	if code, ok := st.Status.Single(); ok {
		a.status = code
	} else {
		a.status = st.Status.Pick(o.rng)
	}
	if f, ok := st.Latency.(recipe.Fixed); ok {
		a.latency = time.Duration(f)
	} else {
		a.latency = st.Latency.Sample(o.rng)
	}
	if st.Faults.Any() {
		a.fault = st.Faults.Pick(o.rng)
	}
	return a
}

// stageAt is the stage in force at now: the last whose At has passed.
func stageAt(stages []recipe.Stage, now time.Duration) *recipe.Stage {
	var st *recipe.Stage
	for i := range stages {
		if stages[i].At > now {
			break
		}
		st = &stages[i]
	}
	return st
}
