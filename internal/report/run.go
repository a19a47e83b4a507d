package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// Kind is a report type.
type Kind string

// Report types.
const (
	KindText    Kind = "text"
	KindJSON    Kind = "json"
	KindHist    Kind = "hist"
	KindHDRPlot Kind = "hdrplot"
)

// Options choose the report.
type Options struct {
	Kind    Kind
	Buckets metrics.Buckets // for KindHist
	Every   time.Duration   // > 0: per-interval reports (text and json only)
	Metrics metrics.Options
	// By is "step" for a report per flow step as well (flow.go); a
	// flow's results always get the flow's block (sessions, checks).
	By string
}

// ParseType parses vegeta's -type values: text, json, hdrplot and
// hist[b1,b2,...].
func ParseType(s string) (Kind, metrics.Buckets, error) {
	switch {
	case s == "text" || s == "json" || s == "hdrplot":
		return Kind(s), nil, nil
	case strings.HasPrefix(s, "hist"):
		bs, err := metrics.ParseBuckets(strings.TrimPrefix(s, "hist"))
		if err != nil {
			return "", nil, err
		}
		return KindHist, bs, nil
	}
	return "", nil, fmt.Errorf("unknown report type %q (want text, json, hdrplot or hist[0,5ms,...])", s)
}

// Run reads every result from dec, aggregates it and writes the report to
// w. With o.Every it writes one report per interval as the intervals
// complete, then (for text) the report of the whole run. It returns the
// overall metrics, closed.
func Run(w io.Writer, dec results.Decoder, o Options) (*metrics.Metrics, error) {
	if mg, ok := dec.(*Merge); ok && o.Metrics.Planned == nil {
		o.Metrics.Planned = mg.planned()
	}
	if mg, ok := dec.(*Merge); ok && len(mg.inputs) > 1 && o.Every == 0 && o.Kind != KindHist && !mg.oneStream && !mg.flows() && o.By == "" {
		return runParallel(w, mg, o)
	}
	m := metrics.NewWith(o.Metrics)
	fl := newFlowStats(o.Metrics, o.By == "step")
	sinks := []results.Sink{m, fl}
	var hist *metrics.Hist
	if o.Kind == KindHist {
		hist = metrics.NewHist(o.Buckets)
		sinks = append(sinks, results.SinkFunc(func(r *results.Result) {
			if !r.Dropped() {
				hist.Add(o.Metrics.Basis.Latency(r))
			}
		}))
	}
	var iv *metrics.Intervals
	var table *intervalTable
	if o.Every > 0 {
		switch o.Kind {
		case KindText:
			table = newIntervalTable(w)
			iv = metrics.NewIntervals(o.Every, o.Metrics, table.row)
		case KindJSON:
			iv = metrics.NewIntervals(o.Every, o.Metrics, func(in *metrics.Interval) error { return writeIntervalJSON(w, in) })
		default:
			return nil, fmt.Errorf("-every works with -type text or json, not %s", o.Kind)
		}
		sinks = append(sinks, iv)
	}
	var shards *shardTable
	if mg, ok := dec.(*Merge); ok && mg.hasShards() {
		shards = newShardTable(mg, o.Metrics)
		sinks = append(sinks, shards)
	}
	sink := results.Tee(sinks...)
	var r results.Result
	for {
		err := dec.Decode(&r)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		sink.Add(&r)
		if iv != nil && iv.Err() != nil {
			return nil, iv.Err()
		}
	}
	m.Close()
	var bases []InputBasis
	if mg, ok := dec.(*Merge); ok {
		bases = mg.Bases()
		if len(mg.inputs) > 1 {
			m.SortByFirstSeen()
		}
	}
	if iv != nil {
		if err := iv.Close(); err != nil {
			return nil, err
		}
		if table != nil {
			if err := table.close(iv.Stragglers); err != nil {
				return nil, err
			}
			fmt.Fprintln(w, "\nWhole run:")
			if err := writeText(w, m, bases); err != nil {
				return nil, err
			}
			return m, fl.writeText(w)
		}
		return m, nil
	}
	return m, write(w, o.Kind, m, bases, hist, shards, fl)
}

// runParallel reports several inputs read at once, each into metrics of its
// own, merged at the end (see Merge.aggregate): the same figures as reading
// them as one stream, on every core.
func runParallel(w io.Writer, mg *Merge, o Options) (*metrics.Metrics, error) {
	per, err := mg.aggregate(o.Metrics)
	if err != nil {
		return nil, err
	}
	m := metrics.NewWith(o.Metrics)
	for _, p := range per {
		m.Merge(p)
	}
	m.Close()
	m.SortByFirstSeen()
	var shards *shardTable
	if mg.hasShards() {
		shards = &shardTable{merge: mg, inputs: mg.inputs, m: per}
	}
	return m, write(w, o.Kind, m, mg.Bases(), nil, shards, nil)
}

// write prints the whole-run report of kind k.
func write(w io.Writer, k Kind, m *metrics.Metrics, bases []InputBasis, hist *metrics.Hist, shards *shardTable, fl *flowStats) error {
	switch k {
	case KindJSON:
		j := toJSON(m, bases)
		if fl != nil {
			var err error
			if j.Flow, err = fl.json(); err != nil {
				return err
			}
		}
		return json.NewEncoder(w).Encode(j)
	case KindHist:
		return WriteHist(w, hist)
	case KindHDRPlot:
		return WriteHDRPlot(w, m)
	default:
		if err := writeText(w, m, bases); err != nil {
			return err
		}
		if fl != nil {
			if err := fl.writeText(w); err != nil {
				return err
			}
		}
		if shards == nil {
			return nil
		}
		var scheduled uint64
		if m.Accounting != nil && !m.Accounting.Unavailable {
			scheduled = m.Accounting.Scheduled
		}
		return shards.write(w, scheduled)
	}
}
