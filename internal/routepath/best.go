package routepath

import "sort"

// Best is the origin's way of picking among route patterns: an exact
// pattern wins, otherwise the longest matching prefix pattern ("/news*"
// before "/*"). It is built once and never changed.
type Best struct {
	exact map[string]int
	wild  []int // indexes of prefix patterns, longest first
	pats  []string
}

// NewBest indexes patterns; Match returns indexes into it.
func NewBest(patterns []string) *Best {
	b := &Best{exact: map[string]int{}, pats: patterns}
	for i, p := range patterns {
		if _, ok := Prefix(p); ok {
			b.wild = append(b.wild, i)
		} else {
			b.exact[p] = i
		}
	}
	sort.SliceStable(b.wild, func(i, j int) bool { return len(patterns[b.wild[i]]) > len(patterns[b.wild[j]]) })
	return b
}

// Match returns the index of the pattern serving path, or -1.
func (b *Best) Match(path string) int {
	if i, ok := b.exact[path]; ok {
		return i
	}
	for _, i := range b.wild {
		if Match(b.pats[i], path) {
			return i
		}
	}
	return -1
}
