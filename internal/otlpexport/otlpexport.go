// Package otlpexport pushes a running attack's figures as OpenTelemetry
// metrics over OTLP/HTTP (loadlab attack -otlp-endpoint, loadlab run
// -otlp-endpoint), so that they land in any OTLP backend (an OpenTelemetry
// Collector, Grafana Alloy, Mimir, Honeycomb...) with no scrape
// configuration: requests, successes and drops as counters, the latency
// from the due time and the schedule lag as base-2 exponential histograms,
// and the requests in flight, each by attack, step and status code. It is
// a results.Sink fed by the same stream as the results file. Exported
// percentiles are approximations; the results file and its HDR histograms
// are the reference.
package otlpexport

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/results"
)

// Options configure the exporter.
type Options struct {
	Endpoint string        // OTLP/HTTP base URL (http://collector:4318) or metrics URL (.../v1/metrics)
	Interval time.Duration // between pushes (default 5 s); Close pushes the final figures
	Version  string        // loadlab's version, as the service version
}

// CheckEndpoint says what is wrong with an endpoint URL, or nil.
func CheckEndpoint(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("want the http(s) URL of an OTLP/HTTP receiver, e.g. http://127.0.0.1:4318, got %q", s)
	}
	return nil
}

// metricsURL is the endpoint with the OTLP metrics path when it has none.
func metricsURL(s string) string {
	u, _ := url.Parse(s)
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/metrics"
	}
	return u.String()
}

// Exporter records results into OpenTelemetry instruments and pushes them.
type Exporter struct {
	provider *sdkmetric.MeterProvider
	requests metric.Int64Counter
	success  metric.Int64Counter
	dropped  metric.Int64Counter
	latency  metric.Float64Histogram
	lag      metric.Float64Histogram

	step atomic.Pointer[string]

	mu    sync.Mutex
	stats func() attack.Stats
	sets  map[setKey]metric.MeasurementOption
}

type setKey struct {
	attack, step string
	code         uint16
}

// New starts an exporter pushing to o.Endpoint every o.Interval.
func New(ctx context.Context, o Options) (*Exporter, error) {
	if err := CheckEndpoint(o.Endpoint); err != nil {
		return nil, err
	}
	if o.Interval <= 0 {
		o.Interval = 5 * time.Second
	}
	exp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(metricsURL(o.Endpoint)))
	if err != nil {
		return nil, err
	}
	// Latencies and lags as base-2 exponential histograms: relative error
	// bounded at every scale, from microseconds to minutes.
	expo := sdkmetric.NewView(sdkmetric.Instrument{Kind: sdkmetric.InstrumentKindHistogram},
		sdkmetric.Stream{Aggregation: sdkmetric.AggregationBase2ExponentialHistogram{MaxSize: 160, MaxScale: 20}})
	res := resource.NewSchemaless(semconv.ServiceName("loadlab"), semconv.ServiceVersion(o.Version))
	e := &Exporter{sets: map[setKey]metric.MeasurementOption{}}
	e.provider = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithView(expo),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(o.Interval))))
	m := e.provider.Meter("github.com/loadlab/loadlab")
	if e.requests, err = m.Int64Counter("loadlab.attack.requests", metric.WithDescription("Requests sent (dropped ones excluded)")); err != nil {
		return nil, err
	}
	if e.success, err = m.Int64Counter("loadlab.attack.successes", metric.WithDescription("Responses with a 2xx or 3xx status")); err != nil {
		return nil, err
	}
	if e.dropped, err = m.Int64Counter("loadlab.attack.dropped", metric.WithDescription("Requests due but not sent (generator behind, or max-workers reached)")); err != nil {
		return nil, err
	}
	if e.latency, err = m.Float64Histogram("loadlab.attack.latency", metric.WithUnit("s"),
		metric.WithDescription("Latency from each request's due time (no coordinated omission); an approximation, the results file is the reference")); err != nil {
		return nil, err
	}
	if e.lag, err = m.Float64Histogram("loadlab.attack.schedule_lag", metric.WithUnit("s"),
		metric.WithDescription("How late each request was sent after its due time")); err != nil {
		return nil, err
	}
	if _, err = m.Int64ObservableGauge("loadlab.attack.in_flight", metric.WithDescription("Requests sent and not yet answered"),
		metric.WithInt64Callback(func(_ context.Context, obs metric.Int64Observer) error {
			e.mu.Lock()
			f := e.stats
			e.mu.Unlock()
			if f != nil {
				obs.Observe(f().InFlight)
			}
			return nil
		})); err != nil {
		return nil, err
	}
	return e, nil
}

// SetStats sets where the in-flight gauge reads from.
func (e *Exporter) SetStats(f func() attack.Stats) {
	e.mu.Lock()
	e.stats = f
	e.mu.Unlock()
}

// SetStep labels the following results with an experiment's step (""
// for a single attack). The attacks are named for the Prometheus
// exporter's sake; OTLP counters appear with their first measurement.
func (e *Exporter) SetStep(name string, attacks ...string) { e.step.Store(&name) }

// Begin is told that attacks begin (attackrun.Watcher): the step's
// name (SetStep) and where their counters are (SetStats).
func (e *Exporter) Begin(step string, attacks []string, stats func() attack.Stats) {
	e.SetStep(step, attacks...)
	e.SetStats(stats)
}

// attrs is the attribute set of an attack, step and status, made once.
func (e *Exporter) attrs(k setKey) metric.MeasurementOption {
	e.mu.Lock()
	defer e.mu.Unlock()
	o, ok := e.sets[k]
	if !ok {
		kv := []attribute.KeyValue{attribute.String("attack", k.attack), attribute.String("step", k.step)}
		if k.code != 0 {
			kv = append(kv, attribute.String("status", strconv.Itoa(int(k.code))))
		}
		o = metric.WithAttributeSet(attribute.NewSet(kv...))
		e.sets[k] = o
	}
	return o
}

// Add counts one result.
func (e *Exporter) Add(r *results.Result) {
	step := ""
	if p := e.step.Load(); p != nil {
		step = *p
	}
	ctx := context.Background()
	if r.Dropped() {
		e.dropped.Add(ctx, 1, e.attrs(setKey{attack: r.Attack, step: step}))
		return
	}
	a := e.attrs(setKey{attack: r.Attack, step: step, code: r.Code})
	e.requests.Add(ctx, 1, a)
	if r.Success() {
		e.success.Add(ctx, 1, a)
	}
	lat := r.Latency
	if !r.Due.IsZero() {
		lat = r.DueLatency()
		e.lag.Record(ctx, max(r.Lag(), 0).Seconds(), a)
	}
	e.latency.Record(ctx, lat.Seconds(), a)
}

// Close pushes the final figures and stops.
func (e *Exporter) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.provider.ForceFlush(ctx); err != nil {
		_ = e.provider.Shutdown(ctx)
		return err
	}
	return e.provider.Shutdown(ctx)
}
