// Package archive keeps every run a team makes in one database (SQLite
// on disk by default, a shared Postgres for a team) and answers questions
// over time: list and filter runs, fetch one run's figures, histograms and
// raw files, and order one figure across runs for trends and regression
// verdicts. Runs are added from the run folder or results files they were
// written to (package archive/ingest); the results site (archive/site)
// and the trend verdicts (archive/trend) read only through Store.
package archive

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/runblock"
)

// ErrNotFound is returned (wrapped) for a run ID or file that does not exist.
var ErrNotFound = errors.New("not found")

// ErrDatabase marks an error of the archive's database itself (not of
// what was asked of it): a reader shows it without the database's
// details. ErrUnavailable and ErrDamaged say more.
var ErrDatabase = errors.New("archive database error")

// ErrUnavailable marks a database that cannot serve now but may later:
// unreachable, shutting down, out of connections, locked.
var ErrUnavailable = errors.New("archive database unavailable")

// ErrDamaged marks a database that is not a loadlab archive or is damaged
// (a corrupt file, a missing table).
var ErrDamaged = errors.New("archive database damaged")

// Figures are one run's, step's or scenario's headline figures.
type Figures struct {
	Requests   uint64                 `json:"requests"`
	Rate       float64                `json:"rate"`       // requests sent per second
	Throughput float64                `json:"throughput"` // successful answers per second
	Success    float64                `json:"success"`    // ratio 0..1
	Latencies  metrics.LatencySummary `json:"latencies"`
	LagP99     time.Duration          `json:"lag_p99"` // schedule lag (sent - due), ns
	Dropped    uint64                 `json:"dropped"`
	Codes      map[string]uint64      `json:"status_codes,omitempty"`
}

// Run is one archived run: what List returns (Steps empty) and Get returns
// (Steps filled).
type Run struct {
	ID      string            `json:"id"`   // permanent, short, URL-safe
	Slug    string            `json:"slug"` // readable, as vegeta-60s-350rps-<id>
	Name    string            `json:"name"`
	Labels  map[string]string `json:"labels"`
	Source  string            `json:"source"`  // "run" (a loadlab run folder or one of its matrix cells), "results", "shards", "vegeta"
	Command string            `json:"command"` // the command line or plan that made it
	Plan    string            `json:"plan,omitempty"`
	Machine string            `json:"machine,omitempty"` // JSON as summary.json's machine
	Started time.Time         `json:"started"`
	Ended   time.Time         `json:"ended"`
	Added   time.Time         `json:"added"`
	Content string            `json:"content"` // hash of the raw content: the same content added twice is one run
	// Users are the users of each of the run's steps and scenarios, in
	// order, when every scenario of it was a closed loop (`rate: 0` with
	// `workers: N`), whose rate is what they achieved rather than what was
	// asked; empty for a paced run. Of a closed-loop run archived before
	// the archive kept them, the fewest and the most, as its slug names them.
	Users []int `json:"users,omitempty"`
	// Health is what the machine did to the run (runblock.Health): its
	// schedule lag, the generator's CPU, the machine's busy and steal
	// shares; every part Unknown for a run archived before the archive
	// kept it.
	Health runblock.Health `json:"health"`
	Figures
	Steps []Step `json:"steps,omitempty"`
}

// Step is one step and scenario of a run (a plain results file is one step
// with one scenario).
type Step struct {
	Index    int       `json:"index"`
	Name     string    `json:"name"`
	Scenario string    `json:"scenario"`
	Started  time.Time `json:"started"`
	Ended    time.Time `json:"ended"`
	// Health is what the machine did to the step's scenario (as Run.Health).
	Health runblock.Health `json:"health"`
	Figures
	Text string `json:"text,omitempty"` // the vegeta-style text report
}

// File is one stored file of a run (results streams, plan, log, samples,
// summary.json, report.md/html), stored compressed and chunked.
type File struct {
	Name string `json:"name"` // path relative to the run folder, slash-separated
	Size int64  `json:"size"` // bytes as on disk
}

// Filter selects and orders runs for List and Points.
type Filter struct {
	Name   string            // substring of the name (case-insensitive); empty: all
	Labels map[string]string // every label must match
	Sort   string            // "started" (default), "name", "requests", "success", "p99", ...; "load": as Run.Load, paced runs by rate, then closed loops by users
	Asc    bool              // newest (largest) first unless Asc
	Limit  int               // 0: no limit
	Offset int
}

// Point is one run's figure in a series: a run with its headline figures
// (of one scenario when Points is asked for one).
type Point struct {
	ID      string            `json:"id"`
	Slug    string            `json:"slug"`
	Name    string            `json:"name"`
	Labels  map[string]string `json:"labels"`
	Started time.Time         `json:"started"`
	// Health is the run's (or its scenario's) health, as Run.Health.
	Health runblock.Health `json:"health"`
	Figures
}

// Reader reads archived runs. It is what the results site (archive/site)
// is given: a reader never adds; the trend verdicts read through a part
// of it (trend.Source).
type Reader interface {
	// List returns the runs the filter selects (without steps) and how
	// many runs it selects in all.
	List(ctx context.Context, f Filter) (runs []Run, total int, err error)
	// Get returns one run with its steps.
	Get(ctx context.Context, id string) (*Run, error)
	// Points returns one figure per run the filter selects: the run's
	// figures, or its scenario's when scenario is not empty (runs without
	// that scenario are left out).
	Points(ctx context.Context, f Filter, scenario string) ([]Point, error)
	// Histogram returns a step's latency histogram, encoded as
	// HdrHistogram's compressed V2 form (hdrhistogram.Histogram.Encode).
	Histogram(ctx context.Context, id string, step int, scenario string) ([]byte, error)
	// Blocks returns a step's scenario cut into time blocks (package
	// runblock), in time order; nil for a run archived before the archive
	// kept them (a verdict then rests on the run's figures).
	Blocks(ctx context.Context, id string, step int, scenario string) ([]runblock.Block, error)
	// Files lists the run's stored files (samples.json holds the sampled
	// server metrics when the run had samplers).
	Files(ctx context.Context, id string) ([]File, error)
	// OpenFile streams one stored file, decompressed.
	OpenFile(ctx context.Context, id, name string) (io.ReadCloser, error)
}

// Adder stores runs: what `loadlab archive add` (and run and attack's
// -archive) gives the runs package archive/ingest made, each with its
// identity (Bundle.Identify).
type Adder interface {
	// Add stores a run in one transaction and returns its ID; dup is true
	// (and nothing is written) when the same content is already stored.
	Add(ctx context.Context, b *Bundle) (id string, dup bool, err error)
}

// Store is an open archive database: it reads and adds runs, and is
// closed by the one who opened it (Open). Implementations are safe for
// concurrent use.
type Store interface {
	Reader
	Adder
	// Close releases the database.
	Close() error
}

// Bundle is what Add stores: the run's figures and steps, each step's
// histogram, and the raw files.
type Bundle struct {
	Run        Run
	Histograms map[StepKey][]byte // encoded as Store.Histogram returns them
	Files      []BundleFile
	// Scenarios are the run's figures per scenario, every step of it
	// merged (what Points returns for one scenario). When nil, a scenario
	// that ran in one step takes that step's figures.
	Scenarios map[string]Figures
	// ScenarioHealth is the run's health per scenario (what Points
	// returns with one scenario's figures). When nil, a scenario that ran
	// in one step takes that step's health.
	ScenarioHealth map[string]runblock.Health
	// Blocks are each step's scenario cut into time blocks.
	Blocks map[StepKey][]runblock.Block
}

// StepKey names one step and scenario of a run.
type StepKey struct {
	Step     int
	Scenario string
}

// BundleFile is one raw file to store.
type BundleFile struct {
	Name string
	Open func() (io.ReadCloser, error)
}

// NotFound returns an error for a missing run or file that errors.Is
// ErrNotFound and prints as one line ("run abc: not in the archive").
func NotFound(what string) error { return notFoundError(what) }

type notFoundError string

func (e notFoundError) Error() string { return string(e) + ": not in the archive" }

func (e notFoundError) Is(target error) bool { return target == ErrNotFound }
