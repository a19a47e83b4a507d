package ingest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/experiment/summary"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
)

// blocksHold checks that blocks cut a step of n requests: contiguous,
// every request in one, their histograms loadlab's.
func blocksHold(t *testing.T, what string, blocks []runblock.Block, n uint64) {
	t.Helper()
	if len(blocks) == 0 {
		t.Fatalf("%s: no blocks", what)
	}
	var sum uint64
	for i, b := range blocks {
		sum += b.Requests
		if b.Start != time.Duration(i)*runblock.BlockLength || b.Length <= 0 || b.Length > runblock.BlockLength {
			t.Errorf("%s: block %d starts at %v, %v long", what, i, b.Start, b.Length)
		}
		if b.Requests > 0 {
			h, err := runblock.DecodeHistogram(b.Hist)
			if err != nil || uint64(h.TotalCount()) != b.Requests {
				t.Errorf("%s: block %d histogram %v", what, i, err)
			}
		}
	}
	if sum != n {
		t.Errorf("%s: %d requests in the blocks, want %d", what, sum, n)
	}
}

// A run folder written before summary.json kept health (the real one in
// testdata) is cut into blocks from its results files and gets the lag
// part of its health from them; the machine's part is Unknown.
func TestOldRunFolderGetsBlocksAndLagHealth(t *testing.T) {
	bs, _, err := Bundles(context.Background(), []string{runDir}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := summary.Load(runDir)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range bs {
		st, sc := sum.Steps[i], sum.Steps[i].Scenarios[0]
		if sc.Health != nil {
			t.Fatalf("the testdata's summary.json is meant to be from before health: %+v", sc.Health)
		}
		key := archive.StepKey{Step: st.Index, Scenario: "page"}
		blocksHold(t, st.Name, b.Blocks[key], sc.Requests)
		h := b.Run.Steps[0].Health
		if h.LagP99 < 0 || h.LagP50 > h.LagP99 || h.Busy != runblock.Unknown || h.GeneratorCPU != runblock.Unknown {
			t.Errorf("step %s health %+v: want the lag known, the machine Unknown", st.Name, h)
		}
		if want := time.Duration(sc.LagP99 * float64(time.Second)); (h.LagP99 - want).Abs() > want/50+2*time.Microsecond {
			t.Errorf("step %s lag p99 %v, summary.json says %v", st.Name, h.LagP99, want)
		}
		if b.Run.Health != h || b.ScenarioHealth["page"] != h {
			t.Errorf("a one-step run's health %+v, its scenario's %+v, its step's %+v", b.Run.Health, b.ScenarioHealth["page"], h)
		}
	}
}

// Results files of every format loadlab reads (a version 1 stream,
// vegeta's gob, CSV and JSON) are cut into blocks and get the lag part of
// their health (a vegeta file has no due times: its lag is 0); the
// machine's part is Unknown, as they do not hold it.
func TestResultsFilesGetBlocksAndHealth(t *testing.T) {
	for _, f := range []string{"../../results/testdata/v1-stream.lll", "../../results/testdata/vegeta/mixed.bin",
		"../../results/testdata/vegeta/mixed.csv", "../../results/testdata/vegeta/withbody.json"} {
		bs, _, err := Bundles(context.Background(), []string{f}, Options{})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		b := bs[0]
		blocksHold(t, f, b.Blocks[archive.StepKey{}], b.Run.Requests)
		h := b.Run.Health
		if h.LagP99 < 0 || h.Busy != runblock.Unknown || h.GeneratorCPU != runblock.Unknown || b.Run.Steps[0].Health != h || b.ScenarioHealth[""] != h {
			t.Errorf("%s: health %+v", f, h)
		}
		if b.Run.Source == "vegeta" && h.LagP99 != 0 {
			t.Errorf("%s: a vegeta file's lag p99 %v", f, h.LagP99)
		}
	}
}

// withTrailer writes the results of file into a new stream ending in a
// trailer holding machine, as loadlab attack writes one.
func withTrailer(t *testing.T, file string, machine runblock.Health) string {
	t.Helper()
	src, err := results.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	out := filepath.Join(t.TempDir(), filepath.Base(file)+".lll")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := results.NewWriter(f, results.Meta{Generator: "loadlab test"})
	if err != nil {
		t.Fatal(err)
	}
	for {
		var r results.Result
		if src.Decode(&r) != nil {
			break
		}
		if err := w.Encode(&r); err != nil {
			t.Fatal(err)
		}
	}
	js, _ := json.Marshal(machine)
	if err := w.WriteTrailer(results.Trailer{Health: js}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The machine's part of a results file's health comes from its trailer,
// the shards' combined for a split attack.
func TestTrailerGivesTheMachinesHealth(t *testing.T) {
	machine := runblock.Health{GeneratorCPU: 0.4, GeneratorSaturated: 0, Busy: 0.3, Steal: 0.01}
	f := withTrailer(t, "../../results/testdata/v1-stream.lll", machine)
	bs, _, err := Bundles(context.Background(), []string{f}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := bs[0]
	h := b.Run.Health
	if h.GeneratorCPU != 0.4 || h.Busy != 0.3 || h.Steal != 0.01 || h.LagP99 < 0 || b.Run.Steps[0].Health != h {
		t.Errorf("health %+v, want the trailer's machine and the results' lag", h)
	}
	blocksHold(t, f, b.Blocks[archive.StepKey{}], b.Run.Requests)
}
