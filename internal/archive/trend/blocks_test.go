package trend

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/compare"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/runblock"
	"github.com/loadlab/loadlab/internal/verdict"
)

// blockStore is the real archive with a stand-in for the runs' time
// blocks, which the archive keeps from schema v4 on (Store.Blocks, made
// in parallel): the blocks of each run added here, from the same
// requests as its stored figures. Runs added otherwise have none
// (archive.ErrNotFound), as runs archived before blocks.
type blockStore struct {
	*store
	blocks map[string][]runblock.Block
}

func (b *blockStore) Blocks(_ context.Context, id string, step int, scenario string) ([]runblock.Block, error) {
	bs, ok := b.blocks[id]
	if !ok || step != 0 || scenario != "page" {
		return nil, archive.NotFound("blocks of run " + id)
	}
	return bs, nil
}

// addBlocks records a run of 15 two-second blocks of 300 requests
// (log-normal, median p50ms, σ 0.3); in block pause (−1: none) the runner
// stalled and every answer came 2 s late.
func (b *blockStore) addBlocks(t *testing.T, rng *rand.Rand, commit string, p50ms float64, pause int) {
	t.Helper()
	name := fmt.Sprintf("r%02d", len(b.ids))
	run := compare.NewRun(name, 0)
	var bs []runblock.Block
	for k := range 15 {
		h := metrics.NewHistogram()
		for range 300 {
			d := time.Duration(p50ms * math.Exp(0.3*rng.NormFloat64()) * float64(time.Millisecond))
			if k == pause {
				d += 2 * time.Second
			}
			run.Record(d, true)
			metrics.RecordLatency(h, d)
		}
		enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		bs = append(bs, runblock.Block{Start: time.Duration(k) * runblock.BlockLength, Length: runblock.BlockLength, Requests: 300, OK: 300, Hist: enc})
	}
	l := run.Latencies()
	hb, err := l.Histogram().Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	f := archive.Figures{Requests: run.Metrics.Requests, Success: run.Metrics.Success, Throughput: 150, Latencies: l.LatencySummary}
	started := time.Unix(int64(1000+10*len(b.ids)), 0)
	id, _, err := b.Add(context.Background(), identified(t, &archive.Bundle{
		Run: archive.Run{Name: name, Labels: map[string]string{"commit": commit}, Source: "results", Started: started, Ended: started.Add(30 * time.Second),
			Figures: f, Steps: []archive.Step{{Index: 0, Scenario: "page", Figures: f}}},
		Histograms: map[archive.StepKey][]byte{{Step: 0, Scenario: "page"}: hb},
		Files:      []archive.BundleFile{{Name: "hist", Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(hb)), nil }}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	b.ids = append(b.ids, id)
	b.blocks[id] = bs
}

// The newest commit's run paused in one block: from its blocks the gate
// sees one block made its p99 and cannot tell; from its run-level figure
// alone (an archive without blocks) the same run would be a regression.
// Runs without blocks next to runs with them are judged from their
// figures.
func TestGateReadsBlocks(t *testing.T) {
	src := &blockStore{store: newStore(t), blocks: map[string][]runblock.Block{}}
	rng := rand.New(rand.NewPCG(31, 1))
	for i := range 3 {
		for range 2 {
			src.addBlocks(t, rng, fmt.Sprintf("c%02d", i), 10, -1)
		}
	}
	src.add(t, rng, map[string]string{"commit": "c02"}, 4500, 10, 0) // archived without blocks
	src.addBlocks(t, rng, "c03", 10, 6)
	withBlocks := gateOf(t, src, Options{})
	if withBlocks.Regression || withBlocks.Verdict.Outcome != verdict.CannotTell || withBlocks.Verdict.RunsBefore != 7 {
		t.Errorf("with blocks: %+v", withBlocks)
	}
	figuresOnly := gateOf(t, src.store, Options{})
	if !figuresOnly.Regression || !strings.Contains(figuresOnly.Text, "p99 worse by") {
		t.Errorf("from the figures alone: %+v", figuresOnly)
	}
	t.Logf("with blocks: %s\nfigures only: %s", withBlocks.Text, figuresOnly.Text)
}
