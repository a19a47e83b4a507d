package metrics

import (
	"sort"
	"strconv"

	"github.com/loadlab/loadlab/internal/results"
)

// OtherGroup names the group that collects keys beyond Options.MaxGroups.
const OtherGroup = "(other)"

// Group is the figures of the results sharing one key of a breakdown
// dimension. Its Metrics has no breakdown of its own, and to save memory
// records only the due-based Latencies (SendLatencies stay empty).
type Group struct {
	Key     string // attack name, "METHOD URL", or step number
	Step    uint32 // for step groups
	Metrics *Metrics
}

// dimension holds the groups of one breakdown, capped in number.
type dimension struct {
	max    int
	opts   Options
	groups []*Group
	idx    map[string]*Group
	other  *Group
}

func newDimension(o Options) *dimension {
	o.NoBreakdown = true
	return &dimension{max: o.MaxGroups, opts: o, idx: make(map[string]*Group)}
}

func newChild(o Options) *Metrics {
	m := NewWith(o)
	m.dueOnly = true
	return m
}

func (d *dimension) group(key string, step uint32) *Group {
	if g, ok := d.idx[key]; ok {
		return g
	}
	if len(d.groups) >= d.max {
		if d.other == nil {
			d.other = &Group{Key: OtherGroup, Metrics: newChild(d.opts)}
		}
		return d.other
	}
	g := &Group{Key: key, Step: step, Metrics: newChild(d.opts)}
	d.idx[key] = g
	d.groups = append(d.groups, g)
	return g
}

// all returns the groups in first-seen order, the overflow group last.
func (d *dimension) all() []*Group {
	if d.other == nil {
		return d.groups
	}
	return append(d.groups[:len(d.groups):len(d.groups)], d.other)
}

// Breakdown splits results by attack name, by target (method and URL) and
// by schedule step.
type Breakdown struct {
	attack, target, step *dimension
}

func newBreakdown(o Options) *Breakdown {
	return &Breakdown{attack: newDimension(o), target: newDimension(o), step: newDimension(o)}
}

func targetKey(method, url string) string {
	if method == "" {
		return url
	}
	return method + " " + url
}

func (b *Breakdown) add(r *results.Result) {
	b.attack.group(r.Attack, 0).Metrics.addOwn(r)
	b.target.group(targetKey(r.Method, r.URL), 0).Metrics.addOwn(r)
	b.step.group(strconv.FormatUint(uint64(r.Step), 10), r.Step).Metrics.addOwn(r)
}

func (b *Breakdown) close() {
	for _, d := range []*dimension{b.attack, b.target, b.step} {
		for _, g := range d.all() {
			g.Metrics.Close()
		}
	}
}

func (b *Breakdown) merge(o *Breakdown) {
	for i, d := range []*dimension{b.attack, b.target, b.step} {
		od := []*dimension{o.attack, o.target, o.step}[i]
		for _, g := range od.all() {
			d.group(g.Key, g.Step).Metrics.mergeOwn(g.Metrics)
		}
	}
}

// ByAttack returns one group per attack name, in first-seen order.
func (b *Breakdown) ByAttack() []*Group { return b.attack.all() }

// ByTarget returns one group per method and URL, in first-seen order.
func (b *Breakdown) ByTarget() []*Group { return b.target.all() }

// ByStep returns one group per schedule step, in step order.
func (b *Breakdown) ByStep() []*Group {
	gs := append([]*Group(nil), b.step.all()...)
	sort.SliceStable(gs, func(i, j int) bool {
		if gs[i].Key == OtherGroup || gs[j].Key == OtherGroup {
			return gs[j].Key == OtherGroup && gs[i].Key != OtherGroup
		}
		return gs[i].Step < gs[j].Step
	})
	return gs
}
