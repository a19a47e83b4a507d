package compare

import (
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// A run's time blocks hold every result once, by due time, including one
// that arrives long after its slot's histogram was folded (a straggler),
// and the blocks' latencies are the run's histogram's.
func TestTimelineBlocksHoldEveryResult(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	run := NewRun("r", metrics.FromDue)
	add := func(at time.Duration, lat time.Duration, code uint16) {
		due := t0.Add(at)
		run.Add(&results.Result{Due: due, Sent: due, Latency: lat, Code: code})
	}
	for i := 0; i < 400; i++ { // 10 s at 40/s
		add(time.Duration(i)*25*time.Millisecond, time.Duration(1+i%7)*time.Millisecond, 200)
	}
	add(100*time.Millisecond, 3*time.Second, 500) // due in the first slot, come last
	span := run.timeline.span()
	per := blockSlots(span)
	blocks := run.timeline.blocks(per, span)
	if span != 40 || per != 4 || len(blocks) != 10 {
		t.Fatalf("span %d slots, %d per block, %d blocks; want 40, 4, 10", span, per, len(blocks))
	}
	var n, ok, lat int64
	for _, b := range blocks {
		n, ok = n+b.n, ok+b.ok
		for i, v := range b.bars {
			lat += v.count
			if i > 0 && b.bars[i-1].to >= v.to {
				t.Fatalf("bars out of order: %v", b.bars)
			}
		}
	}
	if n != 401 || ok != 400 || lat != 401 || blocks[0].n != 41 {
		t.Errorf("blocks hold %d requests, %d ok, %d latencies, the first %d; want 401, 400, 401, 41", n, ok, lat, blocks[0].n)
	}
	if h := run.Latencies().Histogram(); h.TotalCount() != lat {
		t.Errorf("the run's histogram has %d latencies, its blocks %d", h.TotalCount(), lat)
	}
}
