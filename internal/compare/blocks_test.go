package compare

import (
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
)

// A run's time blocks hold every result once, by due time, including one
// that arrives long after its grain was closed (a straggler), and the
// blocks' latencies are the run's histogram's; a 10 s run is cut into 10
// blocks, not the 5 of 2 s a long run gets.
func TestRunBlocksHoldEveryResult(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	run := NewRun("r", metrics.FromDue)
	add := func(at time.Duration, lat time.Duration, code uint16) {
		due := t0.Add(at)
		run.Add(&results.Result{Due: due, Sent: due, Latency: lat, Code: code})
	}
	for i := 0; i < 400; i++ { // 10 s at 40/s
		add(time.Duration(i)*25*time.Millisecond, time.Duration(1+i%7)*time.Millisecond, 200)
	}
	add(100*time.Millisecond, 3*time.Second, 500) // due in the first grain, come last
	span := len(run.grains())
	per := grainsPerBlock(span)
	blocks := blocksOf(run, per)
	if span != 100 || per != 10 || len(blocks) != 10 {
		t.Fatalf("span %d grains, %d per block, %d blocks; want 100, 10, 10", span, per, len(blocks))
	}
	var n, ok uint64
	var lat int64
	for i, b := range blocks {
		n, ok = n+b.Requests, ok+b.OK
		if b.Start != time.Duration(i)*time.Second {
			t.Errorf("block %d starts at %v, want %v", i, b.Start, time.Duration(i)*time.Second)
		}
		h, err := runblock.DecodeHistogram(b.Hist)
		if err != nil {
			t.Fatal(err)
		}
		lat += h.TotalCount()
	}
	if n != 401 || ok != 400 || lat != 401 || blocks[0].Requests != 41 {
		t.Errorf("blocks hold %d requests, %d ok, %d latencies, the first %d; want 401, 400, 401, 41", n, ok, lat, blocks[0].Requests)
	}
	if h := run.Latencies().Histogram(); h.TotalCount() != lat {
		t.Errorf("the run's histogram has %d latencies, its blocks %d", h.TotalCount(), lat)
	}
}

// A run of 20 s or more is judged in the blocks the archive keeps of it:
// those a runblock.Cutter of runblock.BlockLength cuts from its first due
// time.
func TestRunBlocksAreTheArchives(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	run := NewRun("r", metrics.FromDue)
	archive := runblock.NewCutter(time.Time{}, runblock.BlockLength)
	for i := 0; i < 25*50; i++ { // 25 s at 50/s
		due := t0.Add(time.Duration(i) * 20 * time.Millisecond)
		r := &results.Result{Due: due, Sent: due.Add(time.Duration(i%3) * time.Millisecond), Latency: time.Duration(2+i%11) * time.Millisecond, Code: 200}
		run.Add(r)
		archive.Add(r)
	}
	got, want := blocksOf(run, grainsPerBlock(len(run.grains()))), archive.Blocks()
	if len(got) != len(want) || len(got) != 13 {
		t.Fatalf("%d blocks, the archive's cutter %d; want 13", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		gh, _ := runblock.DecodeHistogram(g.Hist)
		wh, _ := runblock.DecodeHistogram(w.Hist)
		if g.Start != w.Start || g.Length != w.Length || g.Requests != w.Requests || g.OK != w.OK || !gh.Equals(wh) {
			t.Errorf("block %d: %+v, the archive's %+v", i, g, w)
		}
	}
}
