// Package segment splits one attack's schedule between several generators
// (shards) so that together they send exactly the single-machine attack:
// every request of the global schedule goes to exactly one shard, keeps its
// global sequence number and due time, and each shard's share stays
// within one request of its exact fraction at every point of the schedule.
//
// A split is a sequence of cut points 0 = p0 < p1 < ... < pn = 1 (rational
// numbers); segment i is [p(i), p(i+1)). As k6's execution segments, a
// shard is told its segment and the whole sequence, so that shards given
// "0:1/3", "1/3:2/3" and "2/3:1" stripe alike. Requests are dealt by the
// largest-remainder rule over one period of D requests (D the sequence's
// common denominator): request k goes to the segment furthest behind its
// share, so shares are exact every D requests and never off by one
// request or more in between.
package segment

import (
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"strings"
)

// MaxPeriod bounds a sequence's common denominator: the striping pattern
// is held in memory (4 bytes a request of the period).
const MaxPeriod = 1 << 20

// Segment is one shard's part of a split.
type Segment struct {
	Index    int        // position in the sequence, 0-based
	Sequence []*big.Rat // the cut points, 0 first and 1 last
	period   uint64
	own      []uint32 // offsets within a period that belong to the segment
}

// Shard is the i-th (1-based) of n equal shards: "i/n".
func Shard(i, n int) (*Segment, error) {
	if n < 1 || n > MaxPeriod {
		return nil, fmt.Errorf("want a shard count from 1 to %d, got %d", MaxPeriod, n)
	}
	if i < 1 || i > n {
		return nil, fmt.Errorf("shards count from 1 to %d, got %d", n, i)
	}
	seq := make([]*big.Rat, n+1)
	for k := range seq {
		seq[k] = big.NewRat(int64(k), int64(n))
	}
	return New(seq, i-1)
}

// ParseShard reads "i/n".
func ParseShard(s string) (*Segment, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return nil, fmt.Errorf("want i/n such as 2/4 (the second of four shards), got %q", s)
	}
	return Shard(i, n)
}

// Parse reads a segment "a:b" (fractions such as 0, 1/3, 0.5, 1) within a
// sequence "p0,p1,...,pn" ("" means the segment's own cuts: 0, a, b, 1).
func Parse(seg, sequence string) (*Segment, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(seg), ":")
	if !ok {
		return nil, fmt.Errorf("want a segment from:to such as 1/4:1/2, got %q", seg)
	}
	from, err := fraction(a)
	if err != nil {
		return nil, err
	}
	to, err := fraction(b)
	if err != nil {
		return nil, err
	}
	if from.Cmp(to) >= 0 {
		return nil, fmt.Errorf("segment %q: its start must be below its end", seg)
	}
	var cuts []*big.Rat
	if strings.TrimSpace(sequence) == "" {
		cuts = []*big.Rat{new(big.Rat)}
		for _, c := range []*big.Rat{from, to} {
			if c.Sign() > 0 && c.Cmp(big.NewRat(1, 1)) < 0 {
				cuts = append(cuts, c)
			}
		}
		cuts = append(cuts, big.NewRat(1, 1))
	} else {
		for _, f := range strings.Split(sequence, ",") {
			c, err := fraction(f)
			if err != nil {
				return nil, fmt.Errorf("sequence: %v", err)
			}
			cuts = append(cuts, c)
		}
	}
	idx := -1
	for i := 0; i+1 < len(cuts); i++ {
		if cuts[i].Cmp(from) == 0 && cuts[i+1].Cmp(to) == 0 {
			idx = i
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("segment %s is not between two neighbouring cuts of the sequence %s", seg, formatCuts(cuts))
	}
	return New(cuts, idx)
}

// New makes segment index of the split at cuts.
func New(cuts []*big.Rat, index int) (*Segment, error) {
	if len(cuts) < 2 || cuts[0].Sign() != 0 || cuts[len(cuts)-1].Cmp(big.NewRat(1, 1)) != 0 {
		return nil, fmt.Errorf("a sequence must run from 0 to 1, got %s", formatCuts(cuts))
	}
	for i := 0; i+1 < len(cuts); i++ {
		if cuts[i].Cmp(cuts[i+1]) >= 0 {
			return nil, fmt.Errorf("the sequence %s must rise: no overlapping or empty segments", formatCuts(cuts))
		}
	}
	if index < 0 || index+1 >= len(cuts) {
		return nil, fmt.Errorf("no segment %d in a sequence of %d", index, len(cuts)-1)
	}
	d := big.NewInt(1)
	for _, c := range cuts {
		g := new(big.Int).GCD(nil, nil, d, c.Denom())
		d.Mul(d, new(big.Int).Quo(c.Denom(), g))
		if !d.IsUint64() || d.Uint64() > MaxPeriod {
			return nil, fmt.Errorf("the sequence %s repeats only every %s requests (at most %d): use simpler fractions", formatCuts(cuts), d, MaxPeriod)
		}
	}
	s := &Segment{Index: index, Sequence: cuts, period: d.Uint64()}
	s.own = s.deal()
	return s, nil
}

// deal assigns one period of requests by the largest-remainder rule and
// keeps this segment's offsets.
func (s *Segment) deal() []uint32 {
	n := len(s.Sequence) - 1
	d := int64(s.period)
	// Widths in units of 1/d: integers, summing to d.
	w := make([]int64, n)
	for i := range w {
		width := new(big.Rat).Sub(s.Sequence[i+1], s.Sequence[i])
		width.Mul(width, new(big.Rat).SetInt64(d))
		w[i] = width.Num().Int64()
	}
	count := make([]int64, n)
	var own []uint32
	for k := int64(0); k < d; k++ {
		// Deficit of segment i after k+1 requests, times d:
		// (k+1)·w_i − d·count_i. Ties go to the lower segment.
		best, bestDef := 0, int64(-1<<62)
		for i := range w {
			if def := (k+1)*w[i] - d*count[i]; def > bestDef {
				best, bestDef = i, def
			}
		}
		count[best]++
		if best == s.Index {
			own = append(own, uint32(k))
		}
	}
	return own
}

// Period is the number of requests after which the striping repeats.
func (s *Segment) Period() uint64 { return s.period }

// Has reports whether global request k belongs to the segment.
func (s *Segment) Has(k uint64) bool {
	r := uint32(k % s.period)
	i := sort.Search(len(s.own), func(j int) bool { return s.own[j] >= r })
	return i < len(s.own) && s.own[i] == r
}

// Next returns the first global request at or after k that belongs to the
// segment.
func (s *Segment) Next(k uint64) uint64 {
	q, r := k/s.period, uint32(k%s.period)
	i := sort.Search(len(s.own), func(j int) bool { return s.own[j] >= r })
	if i < len(s.own) {
		return q*s.period + uint64(s.own[i])
	}
	return (q+1)*s.period + uint64(s.own[0])
}

// Count is how many of the global requests 0..k-1 belong to the segment.
func (s *Segment) Count(k uint64) uint64 {
	q, r := k/s.period, uint32(k%s.period)
	i := sort.Search(len(s.own), func(j int) bool { return s.own[j] >= r })
	return q*uint64(len(s.own)) + uint64(i)
}

// Nth returns the n-th (0-based) global request of the segment.
func (s *Segment) Nth(n uint64) uint64 {
	per := uint64(len(s.own))
	return n/per*s.period + uint64(s.own[n%per])
}

// Share is the segment's fraction of a number of workers or requests,
// rounded by the same largest-remainder rule across the sequence, so the
// shares of all segments add up to total.
func (s *Segment) Share(total int) int {
	n := len(s.Sequence) - 1
	shares := make([]int, n)
	type rem struct {
		i int
		r *big.Rat
	}
	var rems []rem
	left := total
	for i := 0; i < n; i++ {
		exact := new(big.Rat).Sub(s.Sequence[i+1], s.Sequence[i])
		exact.Mul(exact, new(big.Rat).SetInt64(int64(total)))
		fl := new(big.Int).Quo(exact.Num(), exact.Denom())
		shares[i] = int(fl.Int64())
		left -= shares[i]
		rems = append(rems, rem{i, new(big.Rat).Sub(exact, new(big.Rat).SetInt(fl))})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r.Cmp(rems[b].r) > 0 })
	for k := 0; k < left; k++ {
		shares[rems[k].i]++
	}
	return shares[s.Index]
}

// String is the segment as -segment takes it, "1/4:1/2".
func (s *Segment) String() string {
	return s.Sequence[s.Index].RatString() + ":" + s.Sequence[s.Index+1].RatString()
}

// SequenceString is the sequence as -segments takes it, "0,1/4,1/2,1".
func (s *Segment) SequenceString() string { return formatCuts(s.Sequence) }

func formatCuts(cuts []*big.Rat) string {
	parts := make([]string, len(cuts))
	for i, c := range cuts {
		parts[i] = c.RatString()
	}
	return strings.Join(parts, ",")
}

// fraction reads "1/3", "0.25", "0" or "1" as an exact number in [0, 1].
func fraction(s string) (*big.Rat, error) {
	s = strings.TrimSpace(s)
	r, ok := new(big.Rat).SetString(s)
	if !ok || r.Sign() < 0 || r.Cmp(big.NewRat(1, 1)) > 0 {
		return nil, fmt.Errorf("want a fraction between 0 and 1 such as 1/3 or 0.25, got %q", s)
	}
	return r, nil
}
