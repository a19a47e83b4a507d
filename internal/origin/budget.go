package origin

import (
	"fmt"

	"github.com/loadlab/loadlab/internal/origin/recipe"
)

// DefaultMaxRecipeMemory bounds the bodies all loaded routes may hold
// together unless Options says otherwise: 256 MiB. A random_content range
// holds randomVariants bodies of up to its upper size, a body with
// <<size>> placeholders holds its expansion, a fetched origin its answer.
const DefaultMaxRecipeMemory = 256 << 20

// plannedBytes is what rec's bodies will hold once built, computed from
// the recipe alone so that an oversized recipe is refused before anything
// is allocated. A fetched origin counts as f's body (nil before the fetch).
func plannedBytes(rec *recipe.Recipe, f *fetched) int64 {
	switch {
	case f != nil:
		return int64(len(f.body))
	case rec.HasBody:
		var n int64
		for _, p := range rec.BodyParts {
			if p.Random > 0 {
				n += p.Random
			} else {
				n += int64(len(p.Text))
			}
		}
		return n
	case rec.HasRandom:
		if rec.RandomMax > rec.RandomMin {
			return randomVariants * rec.RandomMax
		}
		return rec.RandomMin
	}
	return 0
}

// budgetError says a load would make the routes hold more than the limit.
func budgetError(total, limit int64) error {
	return fmt.Errorf("the routes' bodies would hold %s in total, more than the %s limit (-max-recipe-memory); a random_content range holds %d bodies of up to its upper size", mib(total), mib(limit), randomVariants)
}

func mib(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// reserve counts n more bytes against Options.MaxRecipeMemory for a load
// replacing the routes in replaced, if they fit beside what the loaded
// routes it keeps hold and what the loads in progress reserved. It
// returns those bytes (kept and reserved, n aside) and whether n fit. The
// reservation lasts until release, called once the load's routes are in
// the table (or the load failed).
func (s *Simulator) reserve(replaced map[string]bool, n int64) (int64, bool) {
	s.budgetMu.Lock()
	defer s.budgetMu.Unlock()
	held := s.keptBytes(replaced) + s.reserved
	if held+n > s.opts.MaxRecipeMemory {
		return held, false
	}
	s.reserved += n
	return held, true
}

// release ends a reservation of n bytes.
func (s *Simulator) release(n int64) {
	s.budgetMu.Lock()
	s.reserved -= n
	s.budgetMu.Unlock()
}

// keptBytes is what the loaded routes a new load keeps (all but those it
// replaces, and none of the welcome recipe's) hold.
func (s *Simulator) keptBytes(replaced map[string]bool) int64 {
	old := s.tab.Load()
	if old.isDefault {
		return 0
	}
	var n int64
	for _, r := range old.list {
		if !replaced[r.name] {
			n += r.bytes
		}
	}
	return n
}
