package segment

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
)

// randomSequence is a random split into 1..8 segments with denominators
// up to 24.
func randomSequence(rng *rand.Rand) []*big.Rat {
	d := int64(1 + rng.IntN(24))
	set := map[int64]bool{0: true, d: true}
	for n := rng.IntN(8); n > 0; n-- {
		set[rng.Int64N(d+1)] = true
	}
	var cuts []*big.Rat
	for k := int64(0); k <= d; k++ {
		if set[k] {
			cuts = append(cuts, big.NewRat(k, d))
		}
	}
	return cuts
}

// The shards of any split, over any schedule, send the single-machine
// schedule exactly: every global request once, with its own due time, and
// every shard within one request of its share at every point.
func TestShardsUnionIsTheSchedule(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	specs := []string{"1/s", "3/s", "7/s", "1000/s", "333/s", "0.5/s", "2/3s", "10/s..400/s", "500/s..20/s"}
	for trial := 0; trial < 200; trial++ {
		cuts := randomSequence(rng)
		segs := make([]*Segment, len(cuts)-1)
		for i := range segs {
			s, err := New(cuts, i)
			if err != nil {
				t.Fatal(err)
			}
			segs[i] = s
		}
		spec, err := schedule.ParseSpec(specs[trial%len(specs)])
		if err != nil {
			t.Fatal(err)
		}
		sch, err := schedule.New(spec, time.Duration(1+rng.IntN(20))*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if trial%5 == 4 {
			steps, _ := schedule.ParseStepList("5,17,3")
			steps.StepDuration = 2 * time.Second
			if sch, err = schedule.New(steps, 6*time.Second); err != nil {
				t.Fatal(err)
			}
		}
		total, _ := sch.Total()
		owner := make([]int, total)
		for i := range owner {
			owner[i] = -1
		}
		for si, s := range segs {
			// Walk the shard as the pacer does: Next from 0 until the
			// schedule ends, each request at its global due time.
			for k := s.Next(0); ; k = s.Next(k + 1) {
				due, _, ok := sch.At(k)
				if !ok {
					break
				}
				if want, _, _ := sch.At(k); due != want {
					t.Fatalf("due time of %d differs", k)
				}
				if owner[k] != -1 {
					t.Fatalf("trial %d (%s): request %d sent by shards %d and %d", trial, s.SequenceString(), k, owner[k], si)
				}
				owner[k] = si
			}
		}
		for k, o := range owner {
			if o == -1 {
				t.Fatalf("trial %d (%s): request %d sent by no shard", trial, segs[0].SequenceString(), k)
			}
		}
		// Shares: within one request of the exact fraction at every prefix.
		counts := make([]int64, len(segs))
		for k, o := range owner {
			counts[o]++
			for i, s := range segs {
				exact := new(big.Rat).Mul(new(big.Rat).Sub(s.Sequence[i+1], s.Sequence[i]), big.NewRat(int64(k+1), 1))
				diff := new(big.Rat).Sub(new(big.Rat).SetInt64(counts[i]), exact)
				if f, _ := diff.Float64(); f <= -1 || f >= 1 {
					t.Fatalf("trial %d (%s): after %d requests segment %d has %d, exact %s", trial, s.SequenceString(), k+1, i, counts[i], exact.RatString())
				}
				if got := s.Count(uint64(k + 1)); got != uint64(counts[i]) {
					t.Fatalf("Count(%d) = %d, walked %d", k+1, got, counts[i])
				}
			}
		}
		for _, s := range segs {
			for n := uint64(0); n < 50; n++ {
				k := s.Nth(n)
				if !s.Has(k) || s.Count(k) != n {
					t.Fatalf("Nth(%d) = %d: Has %v, Count %d", n, k, s.Has(k), s.Count(k))
				}
			}
		}
	}
}

func TestShareOfWorkersAddsUp(t *testing.T) {
	for _, n := range []int{1, 3, 7, 16} {
		for _, total := range []int{1, 5, 10, 100, 1001} {
			sum := 0
			for i := 1; i <= n; i++ {
				s, err := Shard(i, n)
				if err != nil {
					t.Fatal(err)
				}
				sum += s.Share(total)
			}
			if sum != total {
				t.Errorf("%d shards of %d workers share %d", n, total, sum)
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ seg, seq, want string }{
		{"5/4", "", "shards count from 1 to 4"},
		{"0/4", "", "shards count from 1 to 4"},
		{"x", "", "want i/n"},
	} {
		if _, err := ParseShard(c.seg); err == nil || !contains(err.Error(), c.want) {
			t.Errorf("ParseShard(%q) = %v, want %q", c.seg, err, c.want)
		}
	}
	for _, c := range []struct{ seg, seq, want string }{
		{"1/2:1/4", "", "start must be below its end"},
		{"0:1/3", "0,1/2,1", "not between two neighbouring cuts"},
		{"0:1/2", "0,1/2,1/3,1", "must rise"},
		{"0:1/2", "0,1/2,0.9", "from 0 to 1"},
		{"0:2", "", "between 0 and 1"},
		{"0:1/2000003", "", "repeats only every"},
	} {
		if _, err := Parse(c.seg, c.seq); err == nil || !contains(err.Error(), c.want) {
			t.Errorf("Parse(%q, %q) = %v, want %q", c.seg, c.seq, err, c.want)
		}
	}
	s, err := Parse("1/3:2/3", "0,1/3,2/3,1")
	if err != nil || s.String() != "1/3:2/3" || s.Index != 1 {
		t.Errorf("Parse: %v %v", s, err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
