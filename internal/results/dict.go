package results

// Dictionary entry kinds stored at the start of a block.
const (
	dictError  byte = 1
	dictAttack byte = 2
	dictTarget byte = 3
	dictStep   byte = 4 // a flow step: its name and checks (FlowStep), version 3
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

// interner assigns dense ids to strings as they are first seen and
// remembers which ids the current block uses, so that every block carries
// the entries it needs and decodes on its own.
type interner[K comparable] struct {
	ids   map[K]uint32
	vals  []K
	mark  []uint32 // block generation that last used each id
	used  []uint32 // ids the current block uses, in first-use order
	gen   uint32
	limit int
}

func newInterner[K comparable](limit int) *interner[K] {
	return &interner[K]{ids: make(map[K]uint32), limit: limit, gen: 1}
}

// use notes that the current block refers to id.
func (in *interner[K]) use(id uint32) {
	if in.mark[id] != in.gen {
		in.mark[id] = in.gen
		in.used = append(in.used, id)
	}
}

// nextBlock forgets which ids the written block used.
func (in *interner[K]) nextBlock() {
	in.used = in.used[:0]
	in.gen++
}

// id returns k's id, assigning the next one if k is new. ok is false when
// the dictionary is full and k is new.
func (in *interner[K]) id(k K) (id uint32, ok bool) {
	if id, ok := in.ids[k]; ok {
		in.use(id)
		return id, true
	}
	if len(in.ids) >= in.limit {
		return 0, false
	}
	id = uint32(len(in.ids))
	in.ids[k] = id
	in.vals = append(in.vals, k)
	in.mark = append(in.mark, 0)
	in.use(id)
	return id, true
}
