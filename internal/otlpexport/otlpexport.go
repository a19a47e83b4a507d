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
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/output"
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
	reader   *sdkmetric.ManualReader
	exporter sdkmetric.Exporter
	loop     *output.Loop // pushes every interval and at Close
	requests metric.Int64Counter
	success  metric.Int64Counter
	dropped  metric.Int64Counter
	latency  metric.Float64Histogram
	lag      metric.Float64Histogram

	job output.Job // the step of the results and the attacks' counters (Begin)

	mu   sync.Mutex
	sets map[setKey]metric.MeasurementOption
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
	// Read on demand (push), in the exporter's temporality and
	// aggregation, as a periodic reader would.
	e := &Exporter{sets: map[setKey]metric.MeasurementOption{}, exporter: exp,
		reader: sdkmetric.NewManualReader(sdkmetric.WithTemporalitySelector(exp.Temporality), sdkmetric.WithAggregationSelector(exp.Aggregation))}
	e.provider = sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithView(expo), sdkmetric.WithReader(e.reader))
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
			if st, ok := e.job.Stats(); ok {
				obs.Observe(st.InFlight)
			}
			return nil
		})); err != nil {
		return nil, err
	}
	e.loop = output.Every(o.Interval, e.push)
	return e, nil
}

// push collects the figures and exports them. A periodic push that fails
// goes to OpenTelemetry's error handler (as a periodic reader's would) and
// is made good by the next; the final push's error is Close's.
func (e *Exporter) push(final bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var rm metricdata.ResourceMetrics
	err := e.reader.Collect(ctx, &rm)
	if err == nil {
		err = e.exporter.Export(ctx, &rm)
	}
	if err != nil && !final {
		otel.Handle(err)
	}
	return err
}

// Begin is told that a job's attacks begin (attackrun.Watcher): the
// following results are labelled with the step ("" for a single attack)
// and the in-flight gauge reads stats. OTLP counters appear with their
// first measurement.
func (e *Exporter) Begin(step string, _ []string, stats func() attack.Stats) {
	e.job.Begin(step, stats)
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
	step := e.job.Step()
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
	err := e.loop.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return errors.Join(err, e.provider.Shutdown(ctx), e.exporter.Shutdown(ctx))
}
