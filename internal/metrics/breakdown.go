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
// records only Latencies (OtherLatencies stay empty).
type Group struct {
	Key     string // attack name, "METHOD URL", or step number
	Step    uint32 // for step groups
	Metrics *Metrics
	key     any // the dimension's lookup key
}

// dimension holds the groups of one breakdown, capped in number. K is
// the lookup key, so that finding a result's group allocates nothing.
type dimension[K comparable] struct {
	max    int
	opts   Options
	groups []*Group
	idx    map[K]*Group
	other  *Group

	// The last group found: consecutive results mostly share a key.
	last    *Group
	lastKey K
}

func newDimension[K comparable](o Options) *dimension[K] {
	o.NoBreakdown = true
	return &dimension[K]{max: o.MaxGroups, opts: o, idx: make(map[K]*Group)}
}

func newChild(o Options) *Metrics {
	m := NewWith(o)
	m.oneBasis = true
	return m
}

// group returns k's group, creating it (named by label) if there is room.
func (d *dimension[K]) group(k K, label func() string, step uint32) *Group {
	if d.last != nil && k == d.lastKey {
		return d.last
	}
	if g, ok := d.idx[k]; ok {
		d.last, d.lastKey = g, k
		return g
	}
	if len(d.groups) >= d.max {
		if d.other == nil {
			d.other = &Group{Key: OtherGroup, Metrics: newChild(d.opts)}
		}
		return d.other
	}
	g := &Group{Key: label(), Step: step, Metrics: newChild(d.opts), key: k}
	d.idx[k] = g
	d.groups = append(d.groups, g)
	return g
}

// all returns the groups in first-seen order, the overflow group last.
func (d *dimension[K]) all() []*Group {
	if d.other == nil {
		return d.groups
	}
	return append(d.groups[:len(d.groups):len(d.groups)], d.other)
}

func (d *dimension[K]) close() {
	for _, g := range d.all() {
		g.Metrics.Close()
	}
}

// mergeFrom adds o's groups to the groups with the same keys.
func (d *dimension[K]) mergeFrom(o *dimension[K]) {
	for _, g := range o.all() {
		var dst *Group
		if g.Key == OtherGroup {
			if d.other == nil {
				d.other = &Group{Key: OtherGroup, Metrics: newChild(d.opts)}
			}
			dst = d.other
		} else {
			dst = d.group(g.key.(K), func() string { return g.Key }, g.Step)
		}
		dst.Metrics.mergeOwn(g.Metrics)
	}
}

type targetID struct{ method, url string }

// Breakdown splits results by attack name, by target (method and URL) and
// by schedule step.
type Breakdown struct {
	attack *dimension[string]
	target *dimension[targetID]
	step   *dimension[uint32]
	// last target looked up, to skip the map for runs of one target
	lastTarget targetID
	lastGroup  *Group
}

func newBreakdown(o Options) *Breakdown {
	return &Breakdown{
		attack: newDimension[string](o),
		target: newDimension[targetID](o),
		step:   newDimension[uint32](o),
	}
}

// NoTarget labels the group of results without a target (dropped requests).
const NoTarget = "(not sent)"

func (t targetID) label() string {
	if t.method == "" && t.url == "" {
		return NoTarget
	}
	if t.method == "" {
		return t.url
	}
	return t.method + " " + t.url
}

func (b *Breakdown) add(r *results.Result, s *sample) {
	b.attack.group(r.Attack, func() string { return r.Attack }, 0).Metrics.addOwn(r, s)
	t := targetID{r.Method, r.URL}
	if b.lastGroup == nil || t != b.lastTarget {
		b.lastTarget, b.lastGroup = t, b.target.group(t, t.label, 0)
	}
	b.lastGroup.Metrics.addOwn(r, s)
	b.step.group(r.Step, func() string { return strconv.FormatUint(uint64(r.Step), 10) }, r.Step).Metrics.addOwn(r, s)
}

func (b *Breakdown) close() {
	b.attack.close()
	b.target.close()
	b.step.close()
}

func (b *Breakdown) merge(o *Breakdown) {
	b.attack.mergeFrom(o.attack)
	b.target.mergeFrom(o.target)
	b.step.mergeFrom(o.step)
	b.lastGroup = nil
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
