package origin

import (
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/loadlab/loadlab/internal/routepath"
)

// route is one loaded recipe and the stage it is in.
type route struct {
	name   string
	rec    *recipe.Recipe
	drawer recipe.Drawer // the per-request draws, shared with the model
	pay    *payload
	cur    atomic.Pointer[stageState]
	// busy counts the requests in service, for a stage's contention.
	busy atomic.Int64
	// bytes is what the route's bodies hold, counted against
	// Options.MaxRecipeMemory.
	bytes int64

	mu      sync.Mutex
	timers  []*time.Timer
	stopped bool
}

// stageState is the stage a route is in; idx -1 means before the first
// stage, when the route answers 406 like origin_simulator.
type stageState struct {
	idx   int
	stage *recipe.Stage
	fixed bool          // one status, fixed latency, no faults: nothing to draw
	seq   atomic.Uint64 // requests served in this stage
}

func newStageState(idx int, st *recipe.Stage) *stageState {
	_, single := st.Status.Single()
	_, fixedLatency := st.Latency.(recipe.Fixed)
	return &stageState{idx: idx, stage: st, fixed: single && fixedLatency && !st.Faults.Any()}
}

func newRoute(rec *recipe.Recipe, pay *payload, seed uint64) *route {
	r := &route{name: rec.Route, rec: rec, pay: pay, drawer: recipe.NewDrawer(seed, rec.Route)}
	r.cur.Store(&stageState{idx: -1})
	return r
}

// start enters the stages due at 0 now and schedules the others with
// timers. onSwitch is called (outside locks) each time a stage begins.
func (r *route) start(onSwitch func(r *route, idx int)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.rec.Stages {
		st := &r.rec.Stages[i]
		if st.At <= 0 {
			r.cur.Store(newStageState(i, st))
			continue
		}
		i := i
		r.timers = append(r.timers, time.AfterFunc(st.At, func() {
			r.mu.Lock()
			switched := false
			// Equal "at" times may fire in any order: the later stage wins.
			if !r.stopped && r.cur.Load().idx < i {
				r.cur.Store(newStageState(i, st))
				switched = true
			}
			r.mu.Unlock()
			if switched && onSwitch != nil {
				onSwitch(r, i)
			}
		}))
	}
	if onSwitch != nil && r.cur.Load().idx >= 0 {
		defer onSwitch(r, r.cur.Load().idx)
	}
}

// stop cancels the stages still pending.
func (r *route) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	for _, t := range r.timers {
		t.Stop()
	}
	r.timers = nil
	r.pay.release()
}

// table is the set of loaded routes; it is replaced, never mutated.
type table struct {
	best      *routepath.Best // picks among list's names
	list      []*route        // all routes by name
	isDefault bool            // only the welcome recipe
}

func newTable(routes []*route, isDefault bool) *table {
	t := &table{list: routes, isDefault: isDefault}
	sort.Slice(t.list, func(i, j int) bool { return t.list[i].name < t.list[j].name })
	names := make([]string, len(routes))
	for i, r := range routes {
		names[i] = r.name
	}
	t.best = routepath.NewBest(names)
	return t
}

// match finds the route for path: an exact route wins, otherwise the
// longest matching prefix route ("/news*" before "/*").
func (t *table) match(path string) *route {
	if i := t.best.Match(path); i >= 0 {
		return t.list[i]
	}
	return nil
}
