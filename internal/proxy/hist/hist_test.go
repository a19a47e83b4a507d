package hist

import (
	"testing"
	"time"
)

func TestOneSecondVersusOnePointZeroZeroFour(t *testing.T) {
	h := New()
	h.Observe(1000 * time.Millisecond)
	h.Observe(1004 * time.Millisecond)
	n, sum, cum := h.Cumulative()
	if n != 2 || sum < 2.003 || sum > 2.005 {
		t.Fatalf("count %d sum %v", n, sum)
	}
	// Some bucket bound lies between the two.
	split := false
	for _, b := range Buckets {
		if b >= 1 && b < 1.004 && cum[b] == 1 {
			split = true
		}
	}
	if !split {
		t.Fatal("no bucket separates 1s from 1.004s")
	}
	s := h.Summary()
	if s.Max < 1.0035 || s.Max > 1.0045 || s.P50 < 0.999 || s.P50 > 1.001 {
		t.Fatalf("summary %+v", s)
	}
}

func TestBucketsSorted(t *testing.T) {
	for i := 1; i < len(Buckets); i++ {
		if Buckets[i] <= Buckets[i-1] {
			t.Fatalf("bucket %d (%v) <= %v", i, Buckets[i], Buckets[i-1])
		}
	}
	if len(Buckets) > 250 {
		t.Fatalf("%d buckets, too many", len(Buckets))
	}
}
