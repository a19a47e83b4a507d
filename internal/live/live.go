// Package live serves a running attack or experiment as a web page that
// updates every second over server-sent events: the rate sent and
// answered, latency percentiles, status codes, in-flight requests and
// schedule lag per second, sampled server metrics, and the step in
// progress. It is a results.Sink fed by the same stream as the results
// file. A browser that reconnects gets the history it missed (by
// Last-Event-ID) and then live points; the last hour of points is kept.
package live

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// MaxPoints bounds the history: an hour of one-second points.
const MaxPoints = 3600

// Point is one second of the run.
type Point struct {
	ID       uint64             `json:"id"`
	T        float64            `json:"t"` // seconds since the view started
	Sent     uint64             `json:"sent"`
	Answered uint64             `json:"answered"` // responses with a status
	OK       uint64             `json:"ok"`       // 2xx and 3xx
	Codes    map[string]uint64  `json:"codes"`    // "200": n, "0": errors
	P50      float64            `json:"p50"`      // ms, from the due time
	P90      float64            `json:"p90"`
	P99      float64            `json:"p99"`
	Max      float64            `json:"max"`
	LagMax   float64            `json:"lag_max"` // ms
	InFlight int64              `json:"in_flight"`
	Metrics  map[string]float64 `json:"metrics,omitempty"` // sampled server metrics
	Step     *Step              `json:"step,omitempty"`
	Ended    bool               `json:"ended,omitempty"`
}

// Step is the step in progress of an experiment.
type Step struct {
	Name          string `json:"name"`
	Index         int    `json:"index"` // 1-based
	Of            int    `json:"of"`
	Rate          string `json:"rate"`
	Configuration string `json:"configuration,omitempty"`
	Ends          string `json:"ends,omitempty"` // RFC 3339
}

// Server is the live view. Add results to it (it is a results.Sink), and
// it publishes a point a second.
type Server struct {
	token    string
	started  time.Time
	inFlight func() int64

	mu      sync.Mutex
	cur     bucket
	metrics map[string]float64
	step    *Step
	points  []Point
	nextID  uint64
	subs    map[chan struct{}]struct{}
	ended   bool

	ln   net.Listener
	srv  *http.Server
	stop chan struct{}
	done chan struct{}
}

type bucket struct {
	sent, answered, ok uint64
	codes              map[string]uint64
	hist               *hdrhistogram.Histogram
	lagMax             time.Duration
}

func newBucket() bucket {
	return bucket{codes: map[string]uint64{}, hist: metrics.NewHistogram()}
}

// Options configure a Server.
type Options struct {
	// Token, when set, is required on the page and the event stream
	// (?token=...). Listen requires one for a non-loopback address.
	Token string
	// InFlight reports the requests in flight, or nil.
	InFlight func() int64
}

// Listen binds addr (host:port) and serves the view there. A non-loopback
// address needs a token: one is generated when Options.Token is empty.
func Listen(addr string, o Options) (*Server, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("want host:port such as 127.0.0.1:8089, got %q", addr)
	}
	if needsToken(host) && o.Token == "" {
		o.Token = newToken()
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{token: o.Token, started: time.Now(), inFlight: o.InFlight, cur: newBucket(), subs: map[chan struct{}]struct{}{},
		ln: ln, stop: make(chan struct{}), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.page)
	mux.HandleFunc("/events", s.events)
	mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	go s.tick()
	return s, nil
}

// needsToken reports whether a view bound to host is reachable from
// beyond this machine (anything but loopback).
func needsToken(host string) bool {
	ip := net.ParseIP(host)
	return !(host == "localhost" || ip != nil && ip.IsLoopback())
}

// URL is where to open the view (with its token, if any).
func (s *Server) URL() string {
	u := "http://" + s.ln.Addr().String() + "/"
	if s.token != "" {
		u += "?token=" + s.token
	}
	return u
}

// SetInFlight sets where the in-flight count comes from (an experiment
// changes attacks at each step).
func (s *Server) SetInFlight(f func() int64) {
	s.mu.Lock()
	s.inFlight = f
	s.mu.Unlock()
}

// Add counts one result in the current second.
func (s *Server) Add(r *results.Result) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := &s.cur
	if r.Dropped() {
		b.codes["dropped"]++
		return
	}
	b.sent++
	code := strconv.Itoa(int(r.Code))
	b.codes[code]++
	if r.Code != 0 {
		b.answered++
	}
	if r.Success() {
		b.ok++
	}
	metrics.RecordLatency(b.hist, r.DueLatency())
	if lag := r.Lag(); lag > b.lagMax {
		b.lagMax = lag
	}
}

// SetMetric records a sampled server metric's latest value.
func (s *Server) SetMetric(name string, v float64) {
	s.mu.Lock()
	if s.metrics == nil {
		s.metrics = map[string]float64{}
	}
	s.metrics[name] = v
	s.mu.Unlock()
}

// SetStep records the step in progress.
func (s *Server) SetStep(st Step) {
	s.mu.Lock()
	s.step = &st
	s.mu.Unlock()
}

// tick closes a point every second.
func (s *Server) tick() {
	defer close(s.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			s.publish(false)
		case <-s.stop:
			s.publish(true)
			return
		}
	}
}

func (s *Server) publish(ended bool) {
	s.mu.Lock()
	b := s.cur
	s.cur = newBucket()
	ms := func(v int64) float64 { return float64(v) / 1e6 }
	p := Point{ID: s.nextID, T: time.Since(s.started).Seconds(), Sent: b.sent, Answered: b.answered, OK: b.ok, Codes: b.codes,
		LagMax: float64(b.lagMax) / 1e6, Step: s.step, Ended: ended}
	if b.hist.TotalCount() > 0 {
		p.P50, p.P90, p.P99, p.Max = ms(b.hist.ValueAtQuantile(50)), ms(b.hist.ValueAtQuantile(90)), ms(b.hist.ValueAtQuantile(99)), ms(b.hist.Max())
	}
	if s.inFlight != nil {
		p.InFlight = s.inFlight()
	}
	if len(s.metrics) > 0 {
		p.Metrics = make(map[string]float64, len(s.metrics))
		for k, v := range s.metrics {
			p.Metrics[k] = v
		}
	}
	s.nextID++
	s.points = append(s.points, p)
	if len(s.points) > MaxPoints {
		s.points = append(s.points[:0], s.points[len(s.points)-MaxPoints:]...)
	}
	s.ended = ended
	for ch := range s.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	s.mu.Unlock()
}

// Close publishes the last point (marked ended), tells the browsers, and
// stops serving after linger, so a page open at the end shows the whole
// run.
func (s *Server) Close(linger time.Duration) error {
	close(s.stop)
	<-s.done
	if linger > 0 {
		time.Sleep(linger)
	}
	return s.srv.Close()
}

// authorized checks the token, when there is one.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.token == "" || r.URL.Query().Get("token") == s.token {
		return true
	}
	http.Error(w, "loadlab live view: a token is required (open the URL loadlab printed, with ?token=...)", http.StatusUnauthorized)
	return false
}

// events streams the points: those after Last-Event-ID (all when absent),
// then each new one, until the view ends or the client leaves.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	next := uint64(0)
	if id := r.Header.Get("Last-Event-ID"); id != "" {
		if n, err := strconv.ParseUint(id, 10, 64); err == nil {
			next = n + 1
		}
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	fmt.Fprint(w, "retry: 1000\n\n")
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.subs[ch] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, ch)
		s.mu.Unlock()
	}()
	for {
		s.mu.Lock()
		var batch []Point
		for _, p := range s.points {
			if p.ID >= next {
				batch = append(batch, p)
			}
		}
		ended := s.ended
		s.mu.Unlock()
		for _, p := range batch {
			js, err := json.Marshal(p)
			if err != nil {
				return
			}
			if _, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", p.ID, js); err != nil {
				return
			}
			next = p.ID + 1
		}
		fl.Flush()
		if ended {
			return
		}
		select {
		case <-ch:
		case <-r.Context().Done():
			return
		}
	}
}
