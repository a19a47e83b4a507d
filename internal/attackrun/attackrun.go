// Package attackrun runs one attack end to end, as `loadlab attack` does:
// targets read from a reader, the attack, its results streamed to an
// output (flushed every 250 ms so followers see fresh data) and to the live
// progress line. The command line only turns flags into a Job.
package attackrun

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/progress"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/sent"
	"github.com/loadlab/loadlab/internal/targets"
)

// FlushEvery is how often the results stream is flushed while it runs.
const FlushEvery = 250 * time.Millisecond

// Job is one attack: where its targets come from, how it runs and where its
// results go.
type Job struct {
	Targets       io.Reader       // the target list (vegeta's http or JSON-lines format)
	TargetOptions targets.Options // format, global headers and body, file name for errors
	Lazy          bool            // read targets while attacking instead of all first
	Options       attack.Options  // the attack (Options.Schedule is required)
	// Output opens where the results stream goes. It is called once the
	// targets and options are known good, so bad input never truncates an
	// existing results file.
	Output   func() (io.Writer, error)
	Meta     results.Meta // the stream's header; Attack and Rate are filled in when empty
	Progress io.Writer    // the live progress line, or nil for none
	Log      io.Writer    // closing remarks (dropped requests), or nil
	// Watchers also receive every result, and the attack's counters:
	// the live view, the Prometheus exporter.
	Watchers []Watcher
}

// Watcher follows an attack as it runs.
type Watcher interface {
	results.Sink
	// SetStats is called once, before the attack starts, with where
	// its counters (sent, in flight, started...) are read.
	SetStats(func() attack.Stats)
}

// Run reads the targets, runs the attack and writes its results. Bad
// targets come back as badinput errors before any request is sent.
func Run(ctx context.Context, job Job) error {
	tr, err := targeter(job)
	if err != nil {
		return err
	}
	a, err := attack.New(tr, job.Options)
	if err != nil {
		return err
	}
	meta := job.Meta
	if meta.Attack == "" {
		meta.Attack = job.Options.Name
	}
	if meta.Rate == "" {
		meta.Rate = job.Options.Schedule.String()
	}
	if n, ok := job.Options.Schedule.Total(); ok && job.Options.Segment == nil && meta.Shard == nil {
		meta.Planned = n
	}
	// What was really sent can be rendered again (package sent).
	sent.Describe(&meta, a.Seed(), a.Targets())
	// The data flow: the attack's results go to the stream and to the
	// progress line.
	out, err := job.Output()
	if err != nil {
		return err
	}
	stream, err := results.NewStreamSink(out, meta, FlushEvery)
	if err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	sinks := []results.Sink{stream}
	for _, w := range job.Watchers {
		w.SetStats(a.Stats)
		sinks = append(sinks, w)
	}
	var bar *progress.Bar
	if job.Progress != nil {
		bar = progress.New(job.Progress, job.Options.Schedule.Length(), a.Stats)
		bar.Start(FlushEvery)
		sinks = append(sinks, bar)
	}
	runErr := a.Run(ctx, results.Tee(sinks...).Add)
	if bar != nil {
		bar.Stop()
	}
	werr := stream.Close()
	if runErr != nil {
		return runErr
	}
	if werr != nil {
		return fmt.Errorf("writing results: %w", werr)
	}
	if st := a.Stats(); st.Dropped > 0 && job.Log != nil {
		fmt.Fprintf(job.Log, "loadlab attack: %d requests dropped (max-workers %d reached or generator behind schedule); they are in the results\n", st.Dropped, job.Options.MaxWorkers)
	}
	return nil
}

// targeter reads the targets: all of them first (round robin), or as the
// attack goes with Lazy.
func targeter(job Job) (targets.Targeter, error) {
	dec, err := targets.NewDecoder(job.Targets, job.TargetOptions)
	if err != nil {
		return nil, err
	}
	if job.Lazy {
		return targets.NewLazy(dec), nil
	}
	ts, err := dec.All()
	if err != nil {
		return nil, err
	}
	return targets.NewRoundRobin(ts)
}
