package recipe

import (
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
)

// StatusMix is a weighted choice of HTTP status codes. A plain
// origin_simulator stage has one code with weight 1.
type StatusMix struct {
	Codes   []int     // distinct codes, ascending
	Weights []float64 // weight of each code, same order
	cum     []float64 // cumulative weights, normalised to end at 1
}

// NewStatusMix builds a mix from code -> weight. Weights must be >= 0 and
// sum to more than 0.
func NewStatusMix(weights map[int]float64) StatusMix {
	m := StatusMix{}
	for c := range weights {
		m.Codes = append(m.Codes, c)
	}
	sort.Ints(m.Codes)
	total := 0.0
	for _, c := range m.Codes {
		total += weights[c]
	}
	acc := 0.0
	for _, c := range m.Codes {
		m.Weights = append(m.Weights, weights[c])
		acc += weights[c]
		m.cum = append(m.cum, acc/total)
	}
	return m
}

// Single reports the code when the mix has exactly one.
func (m StatusMix) Single() (int, bool) {
	if len(m.Codes) == 1 {
		return m.Codes[0], true
	}
	return 0, false
}

// Pick draws a code. It always consumes one random number so that the draws
// that follow do not depend on the mix.
func (m StatusMix) Pick(r *rand.Rand) int {
	u := r.Float64()
	for i, c := range m.cum {
		if u < c {
			return m.Codes[i]
		}
	}
	return m.Codes[len(m.Codes)-1]
}

// String prints a single code as origin_simulator does ("200") and a mix as
// "200:95,503:5".
func (m StatusMix) String() string {
	if c, ok := m.Single(); ok {
		return strconv.Itoa(c)
	}
	parts := make([]string, len(m.Codes))
	for i, c := range m.Codes {
		parts[i] = strconv.Itoa(c) + ":" + strconv.FormatFloat(m.Weights[i], 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}
