package shardset

import (
	"fmt"
	"math/big"

	"github.com/loadlab/loadlab/internal/attack/segment"
)

// Absent names the shards of the split that members do not hold, as
// -shard takes them ("2/2") when the cuts are even, else as -segment
// ("1/2:1"). It is nil when no member is a shard, or when the members hold
// every shard. It reads the first shard's cuts: members of different
// attacks are Check's business.
func Absent(members []Member) []string {
	var cuts []*big.Rat
	have := map[int]bool{}
	for _, m := range members {
		if m.Shard == nil {
			continue
		}
		seg, err := segment.Parse(m.Shard.Segment, m.Shard.Sequence)
		if err != nil {
			continue
		}
		if cuts == nil {
			cuts = seg.Sequence
		}
		have[seg.Index] = true
	}
	n := len(cuts) - 1
	if n < 1 {
		return nil
	}
	even := true
	for k, c := range cuts {
		if c.Cmp(big.NewRat(int64(k), int64(n))) != 0 {
			even = false
		}
	}
	var out []string
	for i := 0; i < n; i++ {
		if have[i] {
			continue
		}
		if even {
			out = append(out, fmt.Sprintf("%d/%d", i+1, n))
		} else {
			out = append(out, cuts[i].RatString()+":"+cuts[i+1].RatString())
		}
	}
	return out
}
