package origin

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/loadlab/loadlab/internal/origin/recipe"
)

// draw is what one request does, drawn from the stage (and overrides).
type draw struct {
	status  int
	latency time.Duration
	fault   recipe.Fault
	variant int
}

// receiver is a request context that knows when the request reached the
// server (the lean server's: the kernel's receive time of its head). The
// latency is measured from then, so time the request waited for the
// server's threads counts in it, as it does for the client.
type receiver interface {
	Received() time.Time
}

// simulate answers one request to a recipe's route: it draws the status,
// latency and fault from the route's current stage (and the request's
// overrides), waits, and writes the answer. Loading recipes is in
// recipeload.go, the Simulator itself in simulator.go.
func (s *Simulator) simulate(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	if rc, ok := r.Context().(receiver); ok {
		if t := rc.Received(); !t.IsZero() && t.Before(start) {
			start = t
		}
	}
	s.m.inFlight.Inc()
	defer s.m.inFlight.Dec()

	rt := s.tab.Load().match(r.URL.Path)
	if rt == nil {
		s.answer(w, r, nil, draw{status: http.StatusNotAcceptable}, start, "none")
		return
	}
	st := rt.cur.Load()
	if st.stage == nil { // before the first stage: origin_simulator's 406
		s.answer(w, r, rt, draw{status: http.StatusNotAcceptable}, start, rt.name)
		return
	}
	if rt.rec.Auth == recipe.AuthRequire && !s.tokens.carried(r) {
		s.refuse(w, rt) // loadlab's token routes (generated.go)
		return
	}
	if rt.rec.List != nil {
		if _, err := listPage(r); err != nil {
			writeJSONError(w, http.StatusBadRequest, err)
			return
		}
	}
	n := st.seq.Add(1)
	var rng *rand.Rand
	newRng := func() *rand.Rand {
		if rng == nil {
			rng = rt.drawer.Rand(st.idx, n)
		}
		return rng
	}
	var d draw
	if st.fixed && len(rt.pay.variants) <= 1 {
		// Nothing to draw: skip the generator (the common, fast case).
		d.status, _ = st.stage.Status.Single()
		d.latency = time.Duration(st.stage.Latency.(recipe.Fixed))
	} else {
		dr := rt.drawer.Draw(st.stage, st.idx, n, len(rt.pay.variants))
		d.status, d.latency, d.fault, d.variant = dr.Status, dr.Latency, dr.Fault, dr.Variant
	}
	if !s.opts.NoOverrides && hasOverrides(r) {
		if err := applyOverrides(r, newRng, &d); err != nil {
			writeJSONError(w, http.StatusBadRequest, err)
			return
		}
	}
	if c := st.stage.Contention; c.Any() {
		// Slowed by the requests in service when it starts, itself
		// included: the model applies the same recipe.Contention.
		n := rt.busy.Add(1)
		defer rt.busy.Add(-1)
		d.latency = c.Scale(d.latency, int(n))
	}
	switch d.fault {
	case recipe.Hang:
		s.m.faults.WithLabelValues(rt.name, d.fault.String()).Inc()
		s.hang(r.Context())
		s.aborted(rt.name, start)
		return
	case recipe.Reset, recipe.Close:
		if !s.wait(r.Context(), d.latency-time.Since(start)) {
			s.aborted(rt.name, start)
			return
		}
		s.m.faults.WithLabelValues(rt.name, d.fault.String()).Inc()
		s.aborted(rt.name, start)
		abortConn(w, d.fault == recipe.Reset)
		return
	}
	if !s.wait(r.Context(), d.latency-time.Since(start)) {
		s.aborted(rt.name, start)
		return
	}
	s.m.overshoot.Observe(max(0, time.Since(start)-d.latency).Seconds())
	s.answer(w, r, rt, d, start, rt.name)
}

// answer writes the response of d (after the latency) and records it.
func (s *Simulator) answer(w http.ResponseWriter, r *http.Request, rt *route, d draw, start time.Time, label string) {
	var body []byte
	var hdr http.Header
	var clen []string
	if rt == nil {
		body, hdr = errorText(d.status, r.URL.Path), notSetHeader
	} else {
		if d.status == http.StatusOK && rt.pay.recorded != 0 {
			d.status = rt.pay.recorded // replay the origin's own status line
		}
		body, hdr, clen = rt.pay.body(d.status, d.variant, r.URL.Path)
		if rt.generated() && isSuccess(d.status) {
			body, hdr = s.generate(rt, r)
			clen = nil
		}
	}
	h := w.Header()
	for k, v := range hdr {
		h[k] = v
	}
	if d.status != http.StatusNoContent && d.status != http.StatusNotModified {
		if clen == nil {
			clen = []string{strconv.Itoa(len(body))}
		}
		h["Content-Length"] = clen
	}
	s.counts.add(d.status)
	rm := s.m.forRoute(label)
	s.m.request(label, rm, d.status)
	w.WriteHeader(d.status)
	if r.Method == http.MethodHead {
		finish(rm, 0, start)
		return
	}
	switch d.fault {
	case recipe.SlowBody:
		s.m.faults.WithLabelValues(label, d.fault.String()).Inc()
		n := s.writeSlow(w, r.Context(), body, rt.curFaults().SlowRate)
		finish(rm, n, start)
		if n < len(body) {
			panic(http.ErrAbortHandler)
		}
	case recipe.Truncate:
		s.m.faults.WithLabelValues(label, d.fault.String()).Inc()
		n := int(float64(len(body)) * rt.curFaults().TruncateFraction)
		_, _ = w.Write(body[:n])
		_ = http.NewResponseController(w).Flush()
		finish(rm, n, start)
		panic(http.ErrAbortHandler)
	default:
		if rt != nil && !rt.generated() && r.ProtoMajor == 1 && r.TLS == nil && isSuccess(d.status) {
			if bf := rt.pay.files[d.variant%len(rt.pay.files)]; bf != nil {
				c := corkFor(r)
				n, ok := bf.send(w)
				c.uncork()
				if ok {
					finish(rm, n, start)
					return
				}
			}
		}
		n, _ := w.Write(body)
		finish(rm, n, start)
	}
}

var notSetHeader = http.Header{
	"Cache-Control": {defaultCacheControl},
	"Content-Type":  {"text/html; charset=utf-8"},
}

// curFaults returns the fault parameters of the stage in force (defaults
// when a fault came from an override before any stage set them).
func (r *route) curFaults() *recipe.Faults {
	if st := r.cur.Load(); st.stage != nil {
		return &st.stage.Faults
	}
	return &recipe.Faults{SlowRate: recipe.DefaultSlowRate, TruncateFraction: recipe.DefaultTruncateFraction}
}

// finish records the bytes and time of an answer on its route's metrics.
func finish(rm *routeMetrics, n int, start time.Time) {
	rm.bytes.Add(float64(n))
	rm.served.Observe(time.Since(start).Seconds())
}

func (s *Simulator) aborted(label string, start time.Time) {
	s.counts.add(0)
	rm := s.m.forRoute(label)
	s.m.request(label, rm, 0)
	rm.served.Observe(time.Since(start).Seconds())
}

// sleeper is a request context that can wait out a latency itself,
// noticing a client that goes away (the lean server's; see
// internal/http1/leanserver/sleep.go): cheaper than a timer plus ctx.Done.
type sleeper interface {
	Sleep(d time.Duration, stop <-chan struct{}) bool
}

// wait sleeps d on a timer. It returns false when the client went away;
// it aborts the request when the simulator is closed.
func (s *Simulator) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	if sl, ok := ctx.(sleeper); ok {
		if sl.Sleep(d, s.done) {
			return true
		}
		select {
		case <-s.done:
			panic(http.ErrAbortHandler)
		default:
			return false
		}
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-s.done:
		panic(http.ErrAbortHandler)
	}
}

// hang holds a request until the client gives up (or the simulator closes).
func (s *Simulator) hang(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-s.done:
		panic(http.ErrAbortHandler)
	}
}

// slowTick is how often a slow body sends its next chunk.
const slowTick = 100 * time.Millisecond

// writeSlow writes body at rate bytes per second in chunks every slowTick.
// It returns the bytes written.
func (s *Simulator) writeSlow(w http.ResponseWriter, ctx context.Context, body []byte, rate int64) int {
	rc := http.NewResponseController(w)
	chunk := int(rate / int64(time.Second/slowTick))
	if chunk < 1 {
		chunk = 1
	}
	t := time.NewTicker(slowTick)
	defer t.Stop()
	n := 0
	for n < len(body) {
		end := min(n+chunk, len(body))
		m, err := w.Write(body[n:end])
		n += m
		if err != nil || rc.Flush() != nil {
			return n
		}
		if n == len(body) {
			break
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return n
		case <-s.done:
			return n
		}
	}
	return n
}

func statusLabel(status int) string {
	if status <= 0 {
		return "aborted"
	}
	return strconv.Itoa(status)
}
