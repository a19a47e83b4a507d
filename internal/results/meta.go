package results

import (
	"time"

	"github.com/loadlab/loadlab/internal/load"
)

// Version is the stream format version written; version 1 streams are
// still read.
const Version = 2

// magic opens every loadlab results stream.
const magic = "LOADLAB\n"

// blockMagic opens every block of a version 1 stream.
const blockMagic = "LLB1"

// syncMarker opens every block of a version 2 stream. It is long and
// unlikely in compressed data, so a reader that meets a damaged block can
// scan for the next one and go on (see Reader.Resync).
const syncMarker = "\x89LLSYNC2\r\n\x1a\n\xf3\x5e\x9c\x21"

// Meta describes a stream; it is stored as JSON in the file header (its
// form on disk: metaJSON).
type Meta struct {
	Version   int               `json:"version"`
	Created   time.Time         `json:"created"`
	Generator string            `json:"generator,omitempty"` // e.g. "loadlab v0.1.0"
	Command   []string          `json:"command,omitempty"`   // command line that produced it
	Attack    string            `json:"attack,omitempty"`    // default attack name
	Labels    map[string]string `json:"labels,omitempty"`    // free-form (step names, variant, ...)
	Shard     *Shard            `json:"shard,omitempty"`     // this file is one shard of a split attack

	// Load is the attack's load: its schedule as given by the user
	// (Load.Rate, kept for a closed loop too), and a closed loop's users
	// (an attack at rate 0 keeps this many requests in flight:
	// -max-workers N; a plan's workers: N), each user sending its next
	// request when its answer came; a shard's share of them. No users for
	// a paced attack, and in streams written before the header kept them.
	Load load.Load `json:"-"`

	// Planned is how many requests the schedule plans in all (rate ×
	// duration, steps, ramp; for a flow, sessions), 0 when unbounded or
	// for a shard: a stream
	// recording fewer is of an attack that did not finish (killed,
	// interrupted, or out of targets).
	Planned uint64 `json:"planned,omitempty"`

	// Seed and Templates let the requests really sent be rendered again
	// (package sent): the seed every templated part was rendered with,
	// and the attack's templated targets as written. Results record a
	// templated target's URL as its template.
	Seed      uint64            `json:"seed,omitempty"`
	Templates []TemplatedTarget `json:"templates,omitempty"`

	// Flow is the name of the flow whose sessions the attack ran (its
	// results carry their flow step and session; the stream is version
	// 3); "" for a plain attack.
	Flow string `json:"flow,omitempty"`
}

// TemplatedTarget is a target with a templated URL, header or body, as
// written in the targets (with -header's headers and -body's body).
type TemplatedTarget struct {
	Index  uint32      `json:"index"` // the results' Target
	Method string      `json:"method"`
	URL    string      `json:"url"`
	Header [][2]string `json:"header,omitempty"` // name and value, in order
	Body   *string     `json:"body,omitempty"`   // nil: no body
}

// Shard describes one shard of an attack split between generators (see
// loadlab attack -shard): which part of the global schedule it sent, and
// the instant all shards anchored the schedule on.
type Shard struct {
	Segment  string    `json:"segment"`  // "1/4:1/2"
	Sequence string    `json:"sequence"` // every shard's cuts, "0,1/4,1/2,3/4,1"
	Schedule string    `json:"schedule"` // the global schedule, as given
	StartAt  time.Time `json:"start_at"` // the common start instant
	// LateBy is how far past StartAt this shard started (0: on time); its
	// requests due before then were sent late or dropped, never shifted.
	LateBy time.Duration `json:"late_by,omitempty"`
	Host   string        `json:"host,omitempty"` // the generator's host name
}

// SameAttack reports whether two shards come from one split attack: the
// same global schedule, sequence and start instant.
func (s *Shard) SameAttack(o *Shard) bool {
	return s != nil && o != nil && s.Schedule == o.Schedule && s.Sequence == o.Sequence && s.StartAt.Equal(o.StartAt)
}
