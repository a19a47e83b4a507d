package attack

import (
	"time"

	"github.com/loadlab/loadlab/internal/http1"
	"github.com/loadlab/loadlab/internal/results"
)

// worker sends one request at a time through its wire session, whose
// buffers and random source are reused for every request, so rendering
// templates allocates nothing, and builds the request's result around
// what the wire saw.
type worker struct {
	a   *Attacker
	s   *http1.Session
	x   http1.Exchange
	res results.Result
	// sender runs Options.Journey's sessions (journey.go).
	sender *Sender
}

func (a *Attacker) newWorker() *worker {
	return &worker{a: a, s: a.client.NewSession()}
}

// fire sends request seq, due at due (zero when unpaced), and records its
// result.
func (w *worker) fire(seq uint64, due time.Time, step uint32) {
	a := w.a
	if j := a.opts.Journey; j != nil {
		w.session(j, seq, due, step)
		return
	}
	t, err := a.tr.Next()
	if err != nil {
		a.targetsEnded(err)
		return
	}
	x := &w.x
	*x = http1.Exchange{Due: due}
	a.client.Do(a.reqCtx, w.s, t, seq, x)
	if due.IsZero() {
		due = x.Sent
	}
	r := &w.res
	*r = results.Result{
		Attack: a.opts.Name, Seq: seq, Due: due, Step: step,
		Method: t.Method, URL: t.Source(), Target: t.Index,
		Sent: x.Sent, Latency: x.Latency, Code: x.Code, BytesOut: x.BytesOut, BytesIn: x.BytesIn,
		Body: x.Body, Error: x.Error,
	}
	a.done.Add(1)
	a.inFlight.Add(-1)
	a.sink.put(r)
	r.Body, x.Body = nil, nil
}
