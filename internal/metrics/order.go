package metrics

import (
	"sort"
	"strings"
)

// SortByFirstSeen orders the error set by when each error first happened
// (its earliest send time, or due time when never sent; then by text) and
// the per-attack and per-target groups by their earliest send time (then
// by key), with the overflow group last. A report of several files uses
// it, so that its order does not depend on how the files were read: one
// stream merged in send order, or each file on a core of its own.
func (m *Metrics) SortByFirstSeen() {
	sort.SliceStable(m.Errors, func(i, j int) bool {
		a, b := m.Errors[i], m.Errors[j]
		if !a.first.Equal(b.first) {
			return a.first.Before(b.first)
		}
		return a.Text < b.Text
	})
	for i, e := range m.Errors {
		m.errIdx[e.Text] = i
	}
	if b := m.breakdown; b != nil {
		sortGroups(b.attack.groups)
		sortGroups(b.target.groups)
	}
}

func sortGroups(gs []*Group) {
	sort.SliceStable(gs, func(i, j int) bool {
		a, b := gs[i].Metrics.Earliest, gs[j].Metrics.Earliest
		if !a.Equal(b) {
			return a.Before(b)
		}
		return strings.Compare(gs[i].Key, gs[j].Key) < 0
	})
}
