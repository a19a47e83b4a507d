package promexport

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/exp/api/remote"
	writev2 "github.com/prometheus/client_golang/exp/api/remote/genproto/v2"
	dto "github.com/prometheus/client_model/go"

	"github.com/loadlab/loadlab/internal/output"
)

// PushOptions configure Prometheus remote write: the same metrics as the
// scrape endpoint, sent to a receiver (Prometheus with
// --web.enable-remote-write-receiver, Mimir, Thanos, VictoriaMetrics,
// Grafana Cloud) so that a run needs no scrape configuration.
type PushOptions struct {
	URL      string        // the receiver's write endpoint, e.g. http://prom:9090/api/v1/write
	Version  int           // remote write protocol: 1 (prometheus.WriteRequest, default) or 2 (io.prometheus.write.v2.Request)
	Interval time.Duration // between pushes (default 5 s); a last push is made by Close
	Job      string        // the job label (default "loadlab")
	Instance string        // the instance label (default the host name)
	Log      io.Writer     // one line per failed push, or nil
}

// CheckPushURL says what is wrong with a remote write URL, or nil.
func CheckPushURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("want an http(s) URL of the receiver's write endpoint, e.g. http://127.0.0.1:9090/api/v1/write, got %q", s)
	}
	return nil
}

// pusher sends the registry's metrics every interval and once more when
// stopped.
type pusher struct {
	e    *Exporter
	o    PushOptions
	api  *remote.API
	path string
	loop *output.Loop

	mu     sync.Mutex
	pushed int
	failed int
}

// Push starts sending the metrics to a remote write receiver; Close sends
// the final figures and stops. A push that fails is logged and retried at
// the next interval: the attack never waits for the receiver.
func (e *Exporter) Push(o PushOptions) error {
	if err := CheckPushURL(o.URL); err != nil {
		return err
	}
	if o.Version == 0 {
		o.Version = 1
	}
	if o.Version != 1 && o.Version != 2 {
		return fmt.Errorf("remote write version %d: want 1 or 2", o.Version)
	}
	if o.Interval <= 0 {
		o.Interval = 5 * time.Second
	}
	if o.Job == "" {
		o.Job = "loadlab"
	}
	if o.Instance == "" {
		o.Instance, _ = os.Hostname()
	}
	u, _ := url.Parse(o.URL)
	path := u.Path
	u.Path, u.RawQuery = "", ""
	api, err := remote.NewAPI(u.String(), remote.WithAPIPath(path), remote.WithAPIBackoff(remote.BackoffConfig{
		Min: 100 * time.Millisecond, Max: time.Second, MaxRetries: 2}))
	if err != nil {
		return err
	}
	p := &pusher{e: e, o: o, api: api, path: path}
	// Every interval, and a last time at Close: the final counters, so
	// the receiver's totals are exact. A failed push is logged (push).
	p.loop = output.Every(o.Interval, func(bool) error { p.push(); return nil })
	e.pushers = append(e.pushers, p)
	return nil
}

// close makes the last push and waits for it.
func (p *pusher) close() { _ = p.loop.Stop() }

func (p *pusher) push() {
	fams, err := p.e.reg.Gather()
	if err != nil {
		p.logf("gathering the metrics: %v", err)
		return
	}
	series := p.series(fams, time.Now())
	if len(series) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if p.o.Version == 2 {
		_, err = p.api.Write(ctx, remote.WriteV2MessageType, v2Request(series))
	} else {
		_, err = p.api.Write(ctx, remote.WriteV1MessageType, v1Request(series))
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.failed++
		p.logf("pushing to %s: %v", p.o.URL, err)
		return
	}
	p.pushed++
}

func (p *pusher) logf(format string, a ...any) {
	if p.o.Log != nil {
		fmt.Fprintf(p.o.Log, "prometheus remote write: "+format+"\n", a...)
	}
}

// sample is one series' value at one instant, its labels sorted by name
// (__name__ first, as "__" sorts before letters).
type sample struct {
	labels []string // name, value, name, value...
	help   string
	typ    dto.MetricType
	value  float64
	ts     int64 // ms
}

// series flattens gathered families into samples: counters and gauges as
// themselves, classic histograms as _bucket{le}, _sum and _count.
func (p *pusher) series(fams []*dto.MetricFamily, now time.Time) []sample {
	ts := now.UnixMilli()
	var out []sample
	for _, f := range fams {
		name := f.GetName()
		for _, m := range f.GetMetric() {
			base := map[string]string{"job": p.o.Job, "instance": p.o.Instance}
			for _, lp := range m.GetLabel() {
				base[lp.GetName()] = lp.GetValue()
			}
			add := func(n string, v float64, extra ...string) {
				l := map[string]string{"__name__": n}
				for k, v := range base {
					l[k] = v
				}
				for i := 0; i+1 < len(extra); i += 2 {
					l[extra[i]] = extra[i+1]
				}
				out = append(out, sample{labels: sortedLabels(l), help: f.GetHelp(), typ: f.GetType(), value: v, ts: ts})
			}
			switch f.GetType() {
			case dto.MetricType_COUNTER:
				add(name, m.GetCounter().GetValue())
			case dto.MetricType_GAUGE:
				add(name, m.GetGauge().GetValue())
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				for _, b := range h.GetBucket() {
					add(name+"_bucket", float64(b.GetCumulativeCount()), "le", formatLe(b.GetUpperBound()))
				}
				add(name+"_bucket", float64(h.GetSampleCount()), "le", "+Inf")
				add(name+"_sum", h.GetSampleSum())
				add(name+"_count", float64(h.GetSampleCount()))
			case dto.MetricType_UNTYPED:
				add(name, m.GetUntyped().GetValue())
			}
		}
	}
	return out
}

func formatLe(v float64) string {
	if math.IsInf(v, +1) {
		return "+Inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

func sortedLabels(l map[string]string) []string {
	names := make([]string, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, 0, 2*len(names))
	for _, n := range names {
		out = append(out, n, l[n])
	}
	return out
}

// v2Request builds a remote write 2.0 request.
func v2Request(ss []sample) *writev2.Request {
	st := writev2.NewSymbolTable()
	req := &writev2.Request{}
	for _, s := range ss {
		typ := writev2.Metadata_METRIC_TYPE_GAUGE
		switch s.typ {
		case dto.MetricType_COUNTER:
			typ = writev2.Metadata_METRIC_TYPE_COUNTER
		case dto.MetricType_HISTOGRAM:
			typ = writev2.Metadata_METRIC_TYPE_HISTOGRAM
		}
		req.Timeseries = append(req.Timeseries, &writev2.TimeSeries{
			LabelsRefs: st.SymbolizeLabels(s.labels, nil),
			Samples:    []*writev2.Sample{{Value: s.value, Timestamp: s.ts}},
			Metadata:   &writev2.Metadata{Type: typ, HelpRef: st.Symbolize(s.help)},
		})
	}
	req.Symbols = st.Symbols()
	return req
}
