package metrics

import (
	"fmt"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

// Basis is the instant a latency is measured from. Every command that
// reports latencies (report, plot, compare, encode -to csv/gob, the
// experiment's summary.json) uses FromDue unless told otherwise (-basis
// send).
type Basis int

const (
	// FromDue measures from the instant the schedule asked for the
	// request: what a user arriving on schedule waited, without
	// coordinated omission. Results without a due time (vegeta's files)
	// fall back to the send time.
	FromDue Basis = iota
	// FromSend measures from the instant the request went out, as vegeta
	// does.
	FromSend
)

// ParseBasis parses "due" or "send" ("" is FromDue).
func ParseBasis(s string) (Basis, error) {
	switch s {
	case "", "due":
		return FromDue, nil
	case "send":
		return FromSend, nil
	}
	return 0, fmt.Errorf("unknown latency basis %q (want due or send)", s)
}

// String is "due" or "send", as the -basis flag takes it.
func (b Basis) String() string {
	if b == FromSend {
		return "send"
	}
	return "due"
}

// Set parses s (see ParseBasis) into b, so a Basis is a flag.Value.
func (b *Basis) Set(s string) error {
	v, err := ParseBasis(s)
	if err == nil {
		*b = v
	}
	return err
}

// Other is the basis b is not.
func (b Basis) Other() Basis { return 1 - b }

// Latency is r's latency measured from b.
func (b Basis) Latency(r *results.Result) time.Duration {
	if b == FromSend {
		return r.Latency
	}
	return r.DueLatency()
}

// Timestamp is the instant b measures r's latency from: its due time (its
// send time when the due time is unknown) or its send time.
func (b Basis) Timestamp(r *results.Result) time.Time {
	if b == FromSend || r.Due.IsZero() {
		return r.Sent
	}
	return r.Due
}

// ForVegeta rewrites r as vegeta's formats carry it, with one time and one
// latency: the send time and latency from the send time (FromSend), or
// the due time and latency from the due time (FromDue). Either way the
// response's end stays where it was, and Due is cleared.
func (b Basis) ForVegeta(r *results.Result) {
	r.Latency, r.Sent, r.Due = b.Latency(r), b.Timestamp(r), time.Time{}
}
