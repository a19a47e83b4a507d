package results

import (
	"net/http"
	"time"
)

// Result is the outcome of one request. The times follow vegeta's meaning
// (Sent is vegeta's Timestamp, Latency runs from Sent to the end of the
// response) with the addition of Due, the instant the schedule asked for the
// request, so latency can also be measured without coordinated omission.
type Result struct {
	Attack   string        // attack or scenario name ("" when unnamed)
	Seq      uint64        // sequence number within the attack
	Due      time.Time     // when the schedule said the request should go out
	Sent     time.Time     // when it actually went out (vegeta's Timestamp)
	Latency  time.Duration // from Sent to the response being fully read
	BytesIn  uint64        // response body bytes read
	BytesOut uint64        // request body bytes sent
	Code     uint16        // HTTP status code, 0 when no response
	Error    string        // error text, "" on success (non-2xx codes carry their status text)
	Method   string        // request method
	URL      string        // target URL (the template source for templated targets)
	Target   uint32        // index of the target in the attack's target list
	Step     uint32        // schedule step the request belongs to (0 for constant rate)
	Body     []byte        // response body when kept (-max-body), else nil
	Headers  http.Header   // response headers when kept, else nil
	// SentHeader and SentBody are the headers and body a templated
	// target's request really had, when rendered again for an encoding
	// (package sent); never stored in results files.
	SentHeader http.Header
	SentBody   []byte

	// FlowStep is the flow step the request ran, nil for a plain attack
	// (see flow.go); Session is its session's sequence number in the
	// attack; Failed has bit i set when FlowStep.Checks[i] failed; Ended
	// is set on a session's last result.
	FlowStep *FlowStep
	Session  uint64
	Failed   uint64
	Ended    SessionEnd
}

// DueLatency is the latency measured from the due time: what a user arriving
// on schedule would have waited (wrk2's corrected latency). When Due is not
// known it equals Latency.
func (r *Result) DueLatency() time.Duration {
	if r.Due.IsZero() || r.Sent.Before(r.Due) {
		return r.Latency
	}
	return r.Sent.Sub(r.Due) + r.Latency
}

// Lag is how late the request went out relative to its due time (0 when on
// time or unknown).
func (r *Result) Lag() time.Duration {
	if r.Due.IsZero() || !r.Sent.After(r.Due) {
		return 0
	}
	return r.Sent.Sub(r.Due)
}

// End is when the response was complete.
func (r *Result) End() time.Time { return r.Sent.Add(r.Latency) }

// Success reports whether the request counts as a success in vegeta's sense:
// a 2xx or 3xx status (code 200..399).
func (r *Result) Success() bool { return r.Code >= 200 && r.Code < 400 }

// Reset clears r for reuse, keeping the capacity of Body.
func (r *Result) Reset() {
	body := r.Body[:0]
	*r = Result{}
	if body != nil {
		r.Body = body
	}
}

// Decoder yields results one at a time. Decode returns io.EOF after the last
// one. Every results source (loadlab streams, vegeta gob, CSV and JSON
// files) implements it.
type Decoder interface {
	Decode(*Result) error
}

// Encoder writes results one at a time.
type Encoder interface {
	Encode(*Result) error
}
