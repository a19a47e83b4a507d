package origin

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the simulator's Prometheus metrics, in a registry of its own
// served at /_admin/metrics.
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec   // route, status
	faults    *prometheus.CounterVec   // route, fault
	bytes     *prometheus.CounterVec   // route
	served    *prometheus.HistogramVec // route
	overshoot prometheus.Histogram
	inFlight  prometheus.Gauge
	stage     *prometheus.GaugeVec // route
	routes    sync.Map             // route label -> *routeMetrics
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "loadlab_origin_requests_total",
			Help: "Simulated requests by matched route and status code (\"aborted\" when a fault or shutdown cut them).",
		}, []string{"route", "status"}),
		faults: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "loadlab_origin_faults_total",
			Help: "Injected faults by route and kind (reset, close, hang, slow_body, truncate).",
		}, []string{"route", "fault"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "loadlab_origin_response_bytes_total",
			Help: "Response body bytes written, by route.",
		}, []string{"route"}),
		served: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "loadlab_origin_response_seconds",
			Help:    "Time from request to the end of the answer (simulated latency included), by route.",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .2, .3, .5, .75, 1, 1.5, 2, 3, 5, 10, 30, 60},
		}, []string{"route"}),
		overshoot: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "loadlab_origin_overshoot_seconds",
			Help:    "How much later than its drawn latency an answer started: near 0 unless the simulator (or its machine) is saturated.",
			Buckets: []float64{.0005, .001, .002, .005, .01, .025, .05, .1, .25, .5, 1},
		}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "loadlab_origin_in_flight_requests",
			Help: "Simulated requests being served now.",
		}),
		stage: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "loadlab_origin_stage",
			Help: "Index of the stage each route is in.",
		}, []string{"route"}),
	}
	m.reg.MustRegister(m.requests, m.faults, m.bytes, m.served, m.overshoot, m.inFlight, m.stage,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// routeMetrics caches one route's metric children, so that a request does
// not hash label values.
type routeMetrics struct {
	bytes    prometheus.Counter
	served   prometheus.Observer
	byStatus sync.Map // int -> prometheus.Counter
}

// forRoute returns the cached children of route label.
func (m *metrics) forRoute(label string) *routeMetrics {
	if rm, ok := m.routes.Load(label); ok {
		return rm.(*routeMetrics)
	}
	rm, _ := m.routes.LoadOrStore(label, &routeMetrics{
		bytes:  m.bytes.WithLabelValues(label),
		served: m.served.WithLabelValues(label),
	})
	return rm.(*routeMetrics)
}

// request counts one request of route label with status (0: aborted).
func (m *metrics) request(label string, rm *routeMetrics, status int) {
	if c, ok := rm.byStatus.Load(status); ok {
		c.(prometheus.Counter).Inc()
		return
	}
	c, _ := rm.byStatus.LoadOrStore(status, m.requests.WithLabelValues(label, statusLabel(status)))
	c.(prometheus.Counter).Inc()
}
