// Package live serves a running attack or experiment as a web page that
// updates every second over server-sent events: the rate sent and
// answered, latency percentiles, status codes, in-flight requests and
// schedule lag per second, sampled server metrics, and the step in
// progress with its time left. It is a results.Sink fed by the same
// stream as the results file. A browser that reconnects gets the points it
// missed (by Last-Event-ID), then live ones; the last hour of points
// (MaxPoints) is kept, older ones are forgotten.
package live

import (
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/output"
	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/webguard"
)

// MaxPoints bounds the history: an hour of one-second points. A browser
// connecting later than that sees the last hour.
const MaxPoints = 3600

// Options configure a Server.
type Options struct {
	// Token, when set, is required on the page and the event stream
	// (?token=...). Listen generates one for a non-loopback address.
	Token string
	// Stats reads the attack's counters, or nil (then the requests sent
	// in a second are those answered in it, and in flight is 0).
	Stats func() attack.Stats
}

// Server is the live view. Add results to it (it is a results.Sink) and
// it publishes a point a second until Close.
type Server struct {
	token   string
	started time.Time

	job output.Job // where the attacks' counters are read (Begin)

	mu       sync.Mutex
	prevSent uint64 // the job's sent counter at the last point
	cur      bucket
	run      bucket // the whole run so far, for the last point's totals
	metrics  map[string]float64
	units    map[string]string
	step     *Step
	points   []Point
	nextID   uint64
	changed  chan struct{} // closed and replaced at every new point
	ended    bool
	open     int           // event streams being served
	idle     chan struct{} // closed when open drops to 0 (made by Close)

	ln   net.Listener
	srv  *http.Server
	loop *output.Loop // a point a second, the last at Close
}

var _ results.Sink = (*Server)(nil)

// Listen binds addr (host:port) and serves the view there, a point a
// second. A non-loopback address needs a token: one is generated when
// Options.Token is empty.
func Listen(addr string, o Options) (*Server, error) {
	return listen(addr, o, nil)
}

// listen is Listen with the ticks given (tests publish points at will);
// nil ticks once a second.
func listen(addr string, o Options, ticks <-chan time.Time) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("want host:port such as 127.0.0.1:8089, got %q", addr)
	}
	if webguard.NeedsToken(host) && o.Token == "" {
		o.Token = webguard.NewToken()
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{token: o.Token, started: time.Now(), cur: newBucket(metrics.NewHistogram(), metrics.NewHistogram()), run: newBucket(metrics.NewHistogram(), metrics.NewHistogram()),
		metrics: map[string]float64{}, units: map[string]string{}, changed: make(chan struct{}),
		ln: ln}
	s.job.Begin("", o.Stats)
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.page)
	mux.HandleFunc("/events", s.events)
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	// A point a second, and a last one (marked ended) at Close.
	flush := func(final bool) error { s.publish(final); return nil }
	if ticks == nil {
		s.loop = output.Every(time.Second, flush)
	} else {
		s.loop = output.On(ticks, flush)
	}
	return s, nil
}

// URL is where to open the view (with its token, if any).
func (s *Server) URL() string {
	u := "http://" + s.ln.Addr().String() + "/"
	if s.token != "" {
		u += "?token=" + s.token
	}
	return u
}

// Begin is told that a job's attacks begin (attackrun.Watcher): the
// sent and in-flight counts come from stats from now on, the attacks'
// counters summed over the job (an experiment step's attacks are new at
// each step). What the previous attacks sent since the last point is
// still counted in the next one. The step is shown by SetStep, with its
// rate and end, which only the caller knows.
func (s *Server) Begin(step string, _ []string, stats func() attack.Stats) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev := s.job.Begin(step, stats); prev != nil {
		s.cur.sentCounted += sub(prev().Sent, s.prevSent)
	}
	s.prevSent = 0
}

// Add counts one result in the current second.
func (s *Server) Add(r *results.Result) {
	s.mu.Lock()
	s.cur.add(r)
	s.run.add(r)
	s.mu.Unlock()
}

// SetMetric records the latest value of a sampled server metric and its
// unit ("", "/s", "CPU %", "MiB"); every point carries the latest value of
// each metric of the step in progress.
func (s *Server) SetMetric(name, unit string, v float64) {
	s.mu.Lock()
	s.metrics[name] = v
	s.units[name] = unit
	s.mu.Unlock()
}

// SetStep records the step in progress. The metrics of the step before
// are forgotten (its components may be gone).
func (s *Server) SetStep(st Step) {
	s.mu.Lock()
	if s.step == nil || s.step.Index != st.Index {
		clear(s.metrics)
	}
	s.step = &st
	s.mu.Unlock()
}

// Close publishes the last point, marked ended, and stops serving once
// every open page has received it, waiting at most linger for them.
func (s *Server) Close(linger time.Duration) error {
	_ = s.loop.Stop()
	s.mu.Lock()
	var idle chan struct{}
	if s.open > 0 {
		s.idle = make(chan struct{})
		idle = s.idle
	}
	s.mu.Unlock()
	if idle != nil {
		t := time.NewTimer(linger)
		defer t.Stop()
		select {
		case <-idle:
		case <-t.C:
		}
	}
	return s.srv.Close()
}

// leave marks an event stream done.
func (s *Server) leave() {
	s.mu.Lock()
	s.open--
	if s.open == 0 && s.idle != nil {
		close(s.idle)
		s.idle = nil
	}
	s.mu.Unlock()
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}
