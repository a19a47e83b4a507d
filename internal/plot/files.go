package plot

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// FileSet is what `loadlab plot` draws from a set of runs: every result in
// one Collector, and each run's metrics, whose latency histogram gives its
// distribution (so a run's p99 is the number `loadlab report` prints for
// its files).
type FileSet struct {
	Collector     *Collector
	Distributions []Distribution
	Files         []File
	basis         metrics.Basis
	start         time.Time // the earliest run Start, zero when none has one
}

// File is one run of a FileSet and its figures (closed).
type File struct {
	Name    string
	Metrics *metrics.Metrics
}

// Run is one run to plot: a results file, or the shard files of one split
// attack, read as one run (see package shardset).
type Run struct {
	Name  string   // the series name when several runs are plotted
	Paths []string // the files, read in turn
	// Start is the instant a split attack's shards anchored the schedule on
	// (zero for a whole attack): the time charts start there, as the
	// single-machine attack's would, so a late shard shows.
	Start time.Time
}

// ReadRuns reads the files of every run (results files of any supported
// format) into a FileSet keeping the given number of latency columns. When several runs are read, results with no
// attack name take their run's name, so each run gets its own series. A
// torn or corrupt tail is reported to warn and the results before it are
// kept.
func ReadRuns(runs []Run, columns int, basis metrics.Basis, warn func(string)) (*FileSet, error) {
	fs := NewFileSet(columns, basis)
	for _, r := range runs {
		if !r.Start.IsZero() && (fs.start.IsZero() || r.Start.Before(fs.start)) {
			fs.start = r.Start
		}
	}
	if !fs.start.IsZero() {
		fs.Collector.Timeline.Anchor(fs.start)
	}
	for _, r := range runs {
		if err := fs.readRun(r, len(runs) > 1, warn); err != nil {
			return nil, err
		}
	}
	return fs, nil
}

// NewFileSet returns an empty FileSet drawing latencies from basis (see
// ReadRuns).
func NewFileSet(columns int, basis metrics.Basis) *FileSet {
	fs := &FileSet{Collector: NewCollector(columns), basis: basis}
	fs.Collector.Latency.UseDue = basis == metrics.FromDue
	return fs
}

// Read adds every result of src, read from the file path, as one run named
// by the file's base name. With nameAttacks, results with no attack name
// take that name.
func (fs *FileSet) Read(src results.Decoder, path string, nameAttacks bool, warn func(string)) error {
	m, sink := fs.runSink(filepath.Base(path), nameAttacks)
	if err := readInto(src, path, sink, warn); err != nil {
		return err
	}
	fs.addRun(filepath.Base(path), m)
	return nil
}

// readRun adds every result of the run's files, as one run.
func (fs *FileSet) readRun(r Run, nameAttacks bool, warn func(string)) error {
	m, sink := fs.runSink(r.Name, nameAttacks)
	for _, p := range r.Paths {
		src, err := results.Open(p)
		if err != nil {
			return badinput.Wrap(p, err)
		}
		err = readInto(src, p, sink, warn)
		src.Close()
		if err != nil {
			return err
		}
	}
	fs.addRun(r.Name, m)
	return nil
}

// runSink returns the metrics of a run named name and the sink its results
// go to: the collector and those metrics.
func (fs *FileSet) runSink(name string, nameAttacks bool) (*metrics.Metrics, results.Sink) {
	m := metrics.NewWith(metrics.Options{NoBreakdown: true, Basis: fs.basis})
	sink := results.Tee(fs.Collector, m)
	if !nameAttacks {
		return m, sink
	}
	return m, results.SinkFunc(func(r *results.Result) {
		if r.Attack == "" {
			r.Attack = name
		}
		sink.Add(r)
	})
}

func (fs *FileSet) addRun(name string, m *metrics.Metrics) {
	m.Close()
	fs.Files = append(fs.Files, File{Name: name, Metrics: m})
	fs.Distributions = append(fs.Distributions, DistributionOf(name, &m.Latencies))
}

// readInto adds every result of src, read from path, to sink, keeping what
// comes before damage and telling warn about it.
func readInto(src results.Decoder, path string, sink results.Sink, warn func(string)) error {
	n, damage, err := results.ReadAll(src, sink, results.KeepBefore)
	if err != nil {
		return badinput.Wrap(path, err)
	}
	if damage != nil && warn != nil {
		warn(fmt.Sprintf("%s: %v; plotting the %d results before it", path, damage, n))
	}
	return nil
}

// Axis is the time axis of the set: from the earliest run Start (a split
// attack's common start instant) when there is one, else from the first
// send, to the last send plus one second.
func (fs *FileSet) Axis() TimeAxis {
	ta := fs.Collector.Axis()
	if ta.Span == 0 || fs.start.IsZero() || !fs.start.Before(ta.Origin) {
		return ta
	}
	ta.Span += ta.Origin.Sub(fs.start).Seconds()
	ta.Origin = fs.start
	return ta
}

// Charts returns the charts of the set: latency over time, throughput,
// status codes and the percentile distribution of each run.
func (fs *FileSet) Charts(title string) []Chart {
	ta := fs.Axis()
	return []Chart{
		LatencyChart(title, ta, fs.Collector.Latency),
		ThroughputChart("Requests and throughput per second", ta, fs.Collector.Timeline),
		StatusChart("Status codes per second", ta, fs.Collector.Timeline),
		PercentileChart("Latency by percentile", fs.Distributions...),
	}
}
