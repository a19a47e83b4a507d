package recipe

import (
	"hash/fnv"
	"math/rand/v2"
	"time"
)

// Draw is what one request gets from a stage: its status, latency, fault
// and body variant.
type Draw struct {
	Status  int
	Latency time.Duration
	Fault   Fault
	Variant int
}

// Drawer draws requests for one route: the n-th request (1-based) of a
// stage gets the same draws in every run with the same seed, whoever
// draws them (the origin serving it, or the model predicting it).
type Drawer struct{ base uint64 }

// NewDrawer is the drawer of route under seed.
func NewDrawer(seed uint64, route string) Drawer {
	h := fnv.New64a()
	h.Write([]byte(route))
	return Drawer{base: splitmix(seed ^ h.Sum64())}
}

// Rand is the generator of the n-th request of stage idx; its draws
// beyond the stage's (overrides) stay repeatable too.
func (d Drawer) Rand(idx int, n uint64) *rand.Rand {
	return rand.New(rand.NewPCG(d.base, splitmix(uint64(idx+1)<<40+n)))
}

// Draw draws the n-th request of stage st (at index idx) with variants
// body variants. A stage with one status, a fixed latency, no faults and
// one variant draws nothing.
func (d Drawer) Draw(st *Stage, idx int, n uint64, variants int) Draw {
	code, single := st.Status.Single()
	fixed, isFixed := st.Latency.(Fixed)
	if single && isFixed && !st.Faults.Any() && variants <= 1 {
		return Draw{Status: code, Latency: time.Duration(fixed)}
	}
	g := d.Rand(idx, n)
	out := Draw{Status: st.Status.Pick(g), Latency: st.Latency.Sample(g), Fault: st.Faults.Pick(g)}
	if variants > 1 {
		out.Variant = g.IntN(variants)
	}
	return out
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
