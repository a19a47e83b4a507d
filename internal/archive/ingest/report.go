package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strconv"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/report"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/runblock"
	"github.com/loadlab/loadlab/internal/shardset"
)

// fileReport is `loadlab report FILES` of some results files: the closed
// metrics, the text report, the encoded latency histogram.
type fileReport struct {
	m        *metrics.Metrics
	text     string
	hist     []byte
	metas    []*results.Meta
	vegeta   bool // every file is vegeta's
	warnings []string
	// blocks are the results in time blocks, and health the lag part of
	// their health (the machine's part is not in results files).
	blocks []runblock.Block
	health runblock.Health
	// machine is the machine's part of the health, from the files'
	// trailers (the shards' combined); nil when none has one.
	machine *runblock.Health
}

// reportFiles reads paths as `loadlab report` reads them (shards checked
// with shardset, damaged blocks skipped with a warning, a corrupt file
// refused) and returns its figures and text.
func reportFiles(ctx context.Context, refs []diskRef) (fileReport, error) {
	var rep fileReport
	var inputs []report.Input
	var closers []io.Closer
	defer func() {
		for _, c := range closers {
			c.Close()
		}
	}()
	rep.vegeta = true
	cut := newCutter()
	defer cut.stop()
	var srcs []*results.Source
	flows := false // a flow's results: its report adds each step's
	for _, ref := range refs {
		rc, err := ref.open(ctx)
		if err != nil {
			return rep, err
		}
		closers = append(closers, rc)
		s, err := results.OpenReader(rc, ref.path)
		if err != nil {
			return rep, err
		}
		s.Resync(true)
		closers = append(closers, s)
		srcs = append(srcs, s)
		in := report.Input{Name: ref.path, Dec: cut.decoder(s)}
		if len(refs) == 1 { // several files are read in parallel by report already
			pp := newPipe(s)
			defer pp.Close()
			in.Dec = cut.decoder(pp)
		}
		if s.Meta != nil {
			in.Shard = s.Meta.Shard
			flows = flows || s.Meta.Flow != ""
		}
		if s.Format == results.FormatLoadlab {
			rep.vegeta = false
		}
		rep.metas = append(rep.metas, s.Meta)
		inputs = append(inputs, in)
	}
	members := make([]shardset.Member, len(inputs))
	for i, in := range inputs {
		members[i] = shardset.Member{Name: in.Name, Shard: in.Shard}
	}
	owned, err := shardset.Check(members, false)
	if err != nil {
		return rep, err
	}
	merge := report.NewMerge(inputs...)
	var buf bytes.Buffer
	o := report.Options{Kind: report.KindText, Metrics: metrics.Options{Owned: owned}}
	if flows {
		o.By = "step" // a flow's text report adds each step's, as `loadlab report -by step` prints them
	}
	m, err := report.Run(&buf, merge, o)
	if err != nil {
		return rep, err
	}
	rep.warnings = append(rep.warnings, merge.Damaged()...)
	for _, w := range merge.Warnings {
		if !w.Err.Torn {
			return rep, &badinput.Error{Msg: w.String()}
		}
		rep.warnings = append(rep.warnings, w.String())
	}
	if err := ctx.Err(); err != nil {
		return rep, err // what was read was cut short
	}
	if m.Requests == 0 {
		return rep, badinput.At(refs[0].path, 0, "holds no results: nothing to archive")
	}
	rep.m, rep.text = m, buf.String()
	rep.blocks, rep.health = cut.blocks(), cut.health()
	rep.machine = trailerMachine(srcs)
	rep.hist, err = encodeHist(m.Latencies.Histogram())
	return rep, err
}

// encodeHist is the histogram as Store.Histogram returns it.
func encodeHist(h *hdrhistogram.Histogram) ([]byte, error) {
	if h == nil {
		return nil, nil
	}
	return h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
}

// figures are the archive's headline figures of closed metrics.
func figures(m *metrics.Metrics) archive.Figures {
	l := &m.Latencies
	f := archive.Figures{Requests: m.Requests, Rate: m.Rate, Throughput: m.Throughput, Success: m.Success,
		Latencies: l.LatencySummary,
		LagP99:    m.Lag.P99, Dropped: m.Dropped, Codes: map[string]uint64{}}
	for c, n := range m.StatusCodes {
		f.Codes[strconv.Itoa(int(c))] = n
	}
	return f
}

// merged closes a merge of several reports' metrics: the figures of
// `loadlab report` over all their files.
func merged(ms []*metrics.Metrics) *metrics.Metrics {
	out := metrics.New()
	for _, m := range ms {
		out.Merge(m)
	}
	out.Close()
	return out
}

// trailerMachine is the machine's part of the health the sources'
// trailers hold (every shard's combined); nil when none holds one. Read
// once the sources were read to their end.
func trailerMachine(srcs []*results.Source) *runblock.Health {
	var parts []runblock.Health
	for _, s := range srcs {
		tr := s.Trailer()
		if tr == nil || len(tr.Health) == 0 {
			continue
		}
		h := runblock.UnknownHealth()
		if json.Unmarshal(tr.Health, &h) == nil {
			parts = append(parts, h)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	h := runblock.Combine(parts, nil)
	return &h
}
