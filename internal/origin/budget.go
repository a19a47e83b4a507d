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
