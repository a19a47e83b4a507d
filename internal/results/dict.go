package results

// Dictionary entry kinds stored at the start of a block.
const (
	dictError  byte = 1
	dictAttack byte = 2
	dictTarget byte = 3
)

// maxTargets caps the target dictionary: beyond it, new method+URL pairs are
// recorded without a URL so an endless stream of unique URLs cannot make the
// file or the reader's memory grow without bound.
const maxTargets = 1 << 20

// maxErrors caps the error dictionary for the same reason; further distinct
// errors are folded into one entry.
const maxErrors = 1 << 16

// overflowError replaces distinct errors beyond maxErrors.
const overflowError = "(further distinct errors not recorded)"

type targetKey struct{ method, url string }

// interner assigns dense ids to strings as they are first seen and remembers
// which are new since the last block.
type interner[K comparable] struct {
	ids     map[K]uint32
	pending []K
	limit   int
}

func newInterner[K comparable](limit int) *interner[K] {
	return &interner[K]{ids: make(map[K]uint32), limit: limit}
}

// id returns k's id, assigning the next one if k is new. ok is false when
// the dictionary is full and k is new.
func (in *interner[K]) id(k K) (id uint32, ok bool) {
	if id, ok := in.ids[k]; ok {
		return id, true
	}
	if len(in.ids) >= in.limit {
		return 0, false
	}
	id = uint32(len(in.ids))
	in.ids[k] = id
	in.pending = append(in.pending, k)
	return id, true
}
