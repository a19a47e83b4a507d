package attack

import (
	"time"

	"github.com/loadlab/loadlab/internal/http1"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// Journey runs a session of several requests for each request the
// schedule makes due (package flow), on the attack's own machinery: its
// pacer starts sessions at their due times (each on an idle worker, at
// most MaxWorkers at once: a session due while all are busy is dropped),
// an unpaced attack keeps MaxWorkers sessions going back to back (a closed
// model of MaxWorkers users), and the requests go through the attack's
// client and results sink.
type Journey interface {
	// Session runs session seq, due at due (zero when unpaced: now), of
	// schedule step step, sending through s.
	Session(s *Sender, seq uint64, due time.Time, step uint32)
	// Dropped completes r, the result the attack records for a session
	// that could not start (its Error says why).
	Dropped(r *results.Result)
}

// Sender is what a Journey's session sends through: one worker's wire
// session and the attack's sink. It is not safe for concurrent use.
type Sender struct {
	w     *worker
	timer *time.Timer
}

// Wire is the worker's wire session: set its Vars, KeepFields and
// KeepBody before Do.
func (s *Sender) Wire() *http1.Session { return s.w.s }

// Attack is the attack's name (Options.Name).
func (s *Sender) Attack() string { return s.w.a.opts.Name }

// Do sends t as request seq, due at due, and fills x with what the wire
// saw; the attack's counters count it.
func (s *Sender) Do(t *targets.Target, seq uint64, due time.Time, x *http1.Exchange) {
	a := s.w.a
	fields := x.Fields
	*x = http1.Exchange{Due: due, Fields: fields[:0]}
	a.client.Do(a.reqCtx, s.w.s, t, seq, x)
	a.done.Add(1)
	a.inFlight.Add(-1)
}

// Put records r (copied) in the attack's results.
func (s *Sender) Put(r *results.Result) { s.w.a.sink.put(r) }

// Wait waits until t; false when the attack was stopped meanwhile.
func (s *Sender) Wait(t time.Time) bool {
	a := s.w.a
	d := time.Until(t)
	if d <= 0 {
		return !a.stopped()
	}
	if s.timer == nil {
		s.timer = time.NewTimer(d)
	} else {
		s.timer.Reset(d)
	}
	select {
	case <-s.timer.C:
		return true
	case <-a.stopSending:
		s.timer.Stop() // Go 1.23 timers: no stale tick after Stop or Reset
		return false
	}
}

// Stopped reports whether the attack was told to stop sending.
func (s *Sender) Stopped() bool { return s.w.a.stopped() }

// StopAttack ends the attack's sending (the sessions running finish what
// they are doing and stop at their next step).
func (s *Sender) StopAttack() { s.w.a.stop() }

// session runs one Journey session on w.
func (w *worker) session(j Journey, seq uint64, due time.Time, step uint32) {
	if w.sender == nil {
		w.sender = &Sender{w: w}
	}
	j.Session(w.sender, seq, due, step)
}
