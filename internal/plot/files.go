package plot

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/results"
)

// FileSet is what `loadlab plot` draws from a set of results files: every
// result in one Collector, and the latency distribution of each file.
type FileSet struct {
	Collector     *Collector
	Distributions []Distribution
}

// ReadFiles reads results files of any supported format into a FileSet
// keeping the given number of latency columns. When several files are
// read, results with no attack name take their file's base name, so each
// file gets its own series. A torn or corrupt tail is reported to warn and
// the results before it are kept.
func ReadFiles(paths []string, columns int, useDue bool, warn func(string)) (*FileSet, error) {
	fs := NewFileSet(columns, useDue)
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

// NewFileSet returns an empty FileSet (see ReadFiles).
func NewFileSet(columns int, useDue bool) *FileSet {
	fs := &FileSet{Collector: NewCollector(columns)}
	fs.Collector.Latency.UseDue = useDue
	return fs
}

// Read adds every result of src, read from the file path. With nameAttacks,
// results with no attack name take the file's base name.
func (fs *FileSet) Read(src results.Decoder, path string, nameAttacks bool, warn func(string)) error {
	h := hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
	base := filepath.Base(path)
	var r results.Result
	for {
		err := src.Decode(&r)
		if err == io.EOF {
			break
		}
		var ce *results.CorruptError
		if errors.As(err, &ce) {
			if warn != nil {
				warn(fmt.Sprintf("%s: %v; plotting the %d results before it", path, err, h.TotalCount()))
			}
			break
		}
		if err != nil {
			return badinput.Wrap(path, err)
		}
		if nameAttacks && r.Attack == "" {
			r.Attack = base
		}
		fs.Collector.Add(&r)
		lat := r.Latency
		if fs.Collector.Latency.UseDue {
			lat = r.DueLatency()
		}
		_ = h.RecordValue(min(int64(lat/time.Microsecond), int64(time.Hour/time.Microsecond)))
	}
	fs.Distributions = append(fs.Distributions, DistributionFromHistogram(base, h, time.Microsecond))
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
