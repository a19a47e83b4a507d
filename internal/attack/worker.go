package attack

import (
	"compress/gzip"
	"time"

	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// worker sends one request at a time; its buffers and random source are
// reused for every request, so rendering templates allocates nothing.
type worker struct {
	a    *Attacker
	rng  *targets.Rand
	url  []byte // rendered URL
	tmp  []byte // rendered header value or body
	read []byte // body read buffer
	res  results.Result
	lean *leanWorker
	gz   *gzip.Reader // reused to decompress gzip answers (lean client)
}

// readBufSize is the per-worker buffer bodies are read through.
const readBufSize = 32 << 10

func (a *Attacker) newWorker() *worker {
	w := &worker{a: a, rng: targets.NewRand(0)}
	if a.lean != nil {
		w.lean = a.lean.newWorker()
	}
	return w
}

// fire sends request seq, due at due (zero when unpaced), and records its
// result.
func (w *worker) fire(seq uint64, due time.Time, step uint32) {
	a := w.a
	t, err := a.tr.Next()
	if err != nil {
		a.targetsEnded(err)
		return
	}
	r := &w.res
	*r = results.Result{
		Attack: a.opts.Name, Seq: seq, Due: due, Step: step,
		Method: t.Method, URL: t.Source(), Target: t.Index,
	}
	if w.lean == nil || !w.lean.do(w, t, seq, r) {
		a.std.do(w, t, seq, r)
	}
	if r.Due.IsZero() {
		r.Due = r.Sent
	}
	a.done.Add(1)
	a.inFlight.Add(-1)
	a.sink.put(r)
	r.Body = nil
}

// urlString renders t's URL for request seq.
func (w *worker) urlString(t *targets.Target, seq uint64) string {
	if t.URL.Static() {
		return t.URL.Text()
	}
	w.url = t.URL.AppendSeeded(w.url[:0], w.rng, w.a.seed, seq, targets.PartURL)
	return string(w.url)
}

// keepLimit is how many body bytes results keep: 0 none, -1 all
// (bodies are always read to the end and counted in BytesIn).
func (w *worker) keepLimit() int64 { return w.a.opts.MaxBody }

// sentNow stamps the send time and updates the live counters.
func (w *worker) sentNow(r *results.Result) {
	r.Sent = time.Now()
	w.a.noteSent(r.Due, r.Sent)
}
