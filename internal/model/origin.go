package model

import (
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
	header  []http.Header    // per recipe, for the proxy's cache decisions
	drawers []recipe.Drawer  // per recipe: the origin's own per-request draws
	served  []map[int]uint64 // per recipe and stage: requests drawn so far
	busy    []int            // per recipe: requests in service, for a stage's contention
}

// newOrigin answers with recipes as an origin started with seed does: the
// n-th request of a route's stage gets the same draws as there.
func newOrigin(recipes []recipe.Recipe, seed uint64) *origin {
	o := &origin{recipes: recipes}
	names := make([]string, len(recipes))
	for i, r := range recipes {
		names[i] = r.Route
		h := http.Header{}
		for k, v := range r.Headers {
			h.Set(k, v)
		}
		o.header = append(o.header, h)
		o.drawers = append(o.drawers, recipe.NewDrawer(seed, r.Route))
		o.served = append(o.served, map[int]uint64{})
		o.busy = append(o.busy, 0)
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
	// inService is the recipe's index + 1 while the answer counts among
	// its requests in service (a stage with contention), else 0.
	inService int
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
	idx := stageIndex(rc.Stages, st)
	o.served[i][idx]++
	d := o.drawers[i].Draw(st, idx, o.served[i][idx], 1)
	a := answer{header: o.header[i], status: d.Status, latency: d.Latency, fault: d.Fault}
	if c := st.Contention; c.Any() {
		// As the origin does: slowed by the requests in service when it
		// starts, itself included.
		o.busy[i]++
		a.latency, a.inService = c.Scale(a.latency, o.busy[i]), i+1
	}
	return a
}

// release ends a's service: the origin answered, or the exchange was cut
// (the origin sees its client leave). Releasing twice is harmless.
func (o *origin) release(a *answer) {
	if a.inService > 0 {
		o.busy[a.inService-1]--
		a.inService = 0
	}
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

// stageIndex is st's index in stages.
func stageIndex(stages []recipe.Stage, st *recipe.Stage) int {
	for i := range stages {
		if &stages[i] == st {
			return i
		}
	}
	return -1
}
