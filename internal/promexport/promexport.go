// Package promexport exposes a running attack to Prometheus
// (loadlab attack -prometheus-addr, loadlab run -prometheus-addr): vegeta's
// metrics under vegeta's names and labels, so dashboards made for
// `vegeta attack -prometheus-addr` keep working, and loadlab's own:
// latency from the due time, schedule lag, dropped and in-flight requests,
// per attack and step. It is a results.Sink fed by the same stream as the
// results file. Exported percentiles are approximations (histogram
// buckets); the results file and its HDR histograms are the reference.
package promexport

import (
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/output"
	"github.com/loadlab/loadlab/internal/results"
)

// Exporter is the Prometheus view of an attack or a run.
type Exporter struct {
	reg *prometheus.Registry
	srv *http.Server
	ln  net.Listener

	// vegeta's (lib/prom): same names, labels and buckets.
	seconds  *prometheus.HistogramVec
	bytesIn  *prometheus.CounterVec
	bytesOut *prometheus.CounterVec
	fails    *prometheus.CounterVec

	// loadlab's.
	requests *prometheus.CounterVec
	success  *prometheus.CounterVec
	dropped  *prometheus.CounterVec
	due      *prometheus.HistogramVec
	lag      *prometheus.HistogramVec

	pushers []*pusher // remote write, when set up (Push)

	job output.Job // the step of the results and the attacks' counters (Begin)
}

// Listen serves the metrics at addr (host:port), on / and /metrics.
func Listen(addr string) (*Exporter, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	e := New()
	mux := http.NewServeMux()
	h := promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{})
	mux.Handle("/", h)
	e.ln, e.srv = ln, &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = e.srv.Serve(ln) }()
	return e, nil
}

// New builds the metrics without serving them (see Registry).
func New() *Exporter {
	e := &Exporter{reg: prometheus.NewRegistry()}
	// The generator's own process and runtime, as the origin and proxy
	// export theirs: a dashboard's CPU panel finds all three.
	e.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	vl := []string{"method", "url", "status"}
	e.seconds = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "request_seconds", Help: "Request latency", Buckets: prometheus.DefBuckets}, vl)
	e.bytesIn = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "request_bytes_in", Help: "Bytes received from servers as response to requests"}, vl)
	e.bytesOut = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "request_bytes_out", Help: "Bytes sent to servers during requests"}, vl)
	e.fails = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "request_fail_count", Help: "Requests that failed, as vegeta counts them: transport errors and answers outside 2xx/3xx (message: the error text, e.g. \"503 Service Unavailable\")"},
		[]string{"method", "url", "code", "message"})
	al := []string{"attack", "step"}
	e.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "loadlab_attack_requests_total", Help: "Requests sent (dropped ones excluded)"}, al)
	e.success = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "loadlab_attack_success_total", Help: "Responses with a 2xx or 3xx status"}, al)
	e.dropped = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "loadlab_attack_dropped_total", Help: "Requests due but not sent (generator behind, or max-workers reached)"}, al)
	e.due = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "loadlab_attack_latency_seconds",
		Help:    "Latency from each request's due time (no coordinated omission); an approximation, the results file is the reference",
		Buckets: prometheus.ExponentialBuckets(0.0005, 2, 18), NativeHistogramBucketFactor: 1.1}, al)
	e.lag = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "loadlab_attack_schedule_lag_seconds",
		Help: "How late each request was sent after its due time", Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10), NativeHistogramBucketFactor: 1.1}, al)
	inflight := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "loadlab_attack_in_flight", Help: "Requests sent and not yet answered"}, func() float64 {
		st, _ := e.job.Stats()
		return float64(st.InFlight)
	})
	e.reg.MustRegister(e.seconds, e.bytesIn, e.bytesOut, e.fails, e.requests, e.success, e.dropped, e.due, e.lag, inflight)
	return e
}

// Registry is where the metrics are registered.
func (e *Exporter) Registry() *prometheus.Registry { return e.reg }

// Addr is the address the metrics are served at ("" when not served).
func (e *Exporter) Addr() string {
	if e.ln == nil {
		return ""
	}
	return e.ln.Addr().String()
}

// Begin is told that a job's attacks begin (attackrun.Watcher): the
// following results are labelled with the step ("" for a single attack),
// the step's attacks' counters are exported at zero from the start (a
// dashboard's panel shows 0 rather than "no data" until the first drop or
// failure), and the in-flight gauge reads stats.
func (e *Exporter) Begin(step string, attacks []string, stats func() attack.Stats) {
	e.job.Begin(step, stats)
	for _, a := range attacks {
		e.requests.WithLabelValues(a, step)
		e.success.WithLabelValues(a, step)
		e.dropped.WithLabelValues(a, step)
	}
}

// Add counts one result.
func (e *Exporter) Add(r *results.Result) {
	step := e.job.Step()
	if r.Dropped() {
		e.dropped.WithLabelValues(r.Attack, step).Inc()
		return
	}
	code := strconv.Itoa(int(r.Code))
	e.seconds.WithLabelValues(r.Method, r.URL, code).Observe(r.Latency.Seconds())
	e.bytesIn.WithLabelValues(r.Method, r.URL, code).Add(float64(r.BytesIn))
	e.bytesOut.WithLabelValues(r.Method, r.URL, code).Add(float64(r.BytesOut))
	if r.Error != "" {
		// vegeta's lib/prom creates this series without counting it; here
		// it counts.
		e.fails.WithLabelValues(r.Method, r.URL, code, r.Error).Inc()
	}
	e.requests.WithLabelValues(r.Attack, step).Inc()
	if r.Success() {
		e.success.WithLabelValues(r.Attack, step).Inc()
	}
	if !r.Due.IsZero() {
		e.due.WithLabelValues(r.Attack, step).Observe(r.DueLatency().Seconds())
		e.lag.WithLabelValues(r.Attack, step).Observe(max(r.Lag(), 0).Seconds())
	}
}

// Close makes the last remote write pushes (the final totals) and stops
// serving.
func (e *Exporter) Close() error {
	for _, p := range e.pushers {
		p.close()
	}
	if e.srv == nil {
		return nil
	}
	return e.srv.Close()
}

// Pushed is how many remote write pushes succeeded and failed so far.
func (e *Exporter) Pushed() (ok, failed int) {
	for _, p := range e.pushers {
		p.mu.Lock()
		ok, failed = ok+p.pushed, failed+p.failed
		p.mu.Unlock()
	}
	return ok, failed
}
