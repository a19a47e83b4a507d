package plot

import (
	"fmt"
	"path/filepath"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// FileSet is what `loadlab plot` draws from a set of results files: every
// result in one Collector, and each file's metrics, whose latency histogram
// gives its distribution (so a file's p99 is the number `loadlab report`
// prints for it).
type FileSet struct {
	Collector     *Collector
	Distributions []Distribution
	Files         []File
	basis         metrics.Basis
}

// File is one file of a FileSet and its figures (closed).
type File struct {
	Name    string
	Metrics *metrics.Metrics
}

// ReadFiles reads results files of any supported format into a FileSet
// keeping the given number of latency columns. When several files are
// read, results with no attack name take their file's base name, so each
// file gets its own series. A torn or corrupt tail is reported to warn and
// the results before it are kept.
func ReadFiles(paths []string, columns int, basis metrics.Basis, warn func(string)) (*FileSet, error) {
	fs := NewFileSet(columns, basis)
	for _, p := range paths {
		src, err := results.Open(p)
		if err != nil {
			return nil, badinput.Wrap(p, err)
		}
		err = fs.Read(src, p, len(paths) > 1, warn)
		src.Close()
		if err != nil {
			return nil, err
		}
	}
	return fs, nil
}

// NewFileSet returns an empty FileSet drawing latencies from basis (see
// ReadFiles).
func NewFileSet(columns int, basis metrics.Basis) *FileSet {
	fs := &FileSet{Collector: NewCollector(columns), basis: basis}
	fs.Collector.Latency.UseDue = basis == metrics.FromDue
	return fs
}

// Read adds every result of src, read from the file path. With nameAttacks,
// results with no attack name take the file's base name.
func (fs *FileSet) Read(src results.Decoder, path string, nameAttacks bool, warn func(string)) error {
	m := metrics.NewWith(metrics.Options{NoBreakdown: true, Basis: fs.basis})
	sink := results.Tee(fs.Collector, m)
	base := filepath.Base(path)
	if nameAttacks {
		named := sink
		sink = results.SinkFunc(func(r *results.Result) {
			if r.Attack == "" {
				r.Attack = base
			}
			named.Add(r)
		})
	}
	n, damage, err := results.ReadAll(src, sink, results.KeepBefore)
	if err != nil {
		return badinput.Wrap(path, err)
	}
	if damage != nil && warn != nil {
		warn(fmt.Sprintf("%s: %v; plotting the %d results before it", path, damage, n))
	}
	m.Close()
	fs.Files = append(fs.Files, File{Name: base, Metrics: m})
	fs.Distributions = append(fs.Distributions, DistributionOf(base, &m.Latencies))
	return nil
}

// Charts returns the charts of the set: latency over time, throughput,
// status codes and the percentile distribution of each file.
func (fs *FileSet) Charts(title string) []Chart {
	ta := fs.Collector.Axis()
	return []Chart{
		LatencyChart(title, ta, fs.Collector.Latency),
		ThroughputChart("Requests and throughput per second", ta, fs.Collector.Timeline),
		StatusChart("Status codes per second", ta, fs.Collector.Timeline),
		PercentileChart("Latency by percentile", fs.Distributions...),
	}
}
