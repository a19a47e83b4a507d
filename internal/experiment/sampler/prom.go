package sampler

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// maxScrape bounds a metrics page.
const maxScrape = 8 << 20

func (s *Sampler) scrape(ctx context.Context, now time.Time, src Source) {
	fams, err := s.fetch(ctx, src.URL)
	if err != nil && ctx.Err() != nil {
		return // the run ended during the scrape: not the source's failure
	}
	if err != nil {
		s.mu.Lock()
		s.errs[src.Name] = err.Error()
		s.mu.Unlock()
		return
	}
	for _, smp := range s.Select(now, src, fams) {
		s.add(smp)
	}
}

func (s *Sampler) fetch(ctx context.Context, url string) (map[string]*dto.MetricFamily, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		return nil, fmt.Errorf("%s answered %s", url, resp.Status)
	}
	return Parse(io.LimitReader(resp.Body, maxScrape))
}

// Parse reads a Prometheus text exposition.
func Parse(r io.Reader) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	return p.TextToMetricFamilies(r)
}

// Select turns the selected series of one scrape into samples: gauges and
// untyped values as they are, counters as a rate per second since the
// previous scrape, histograms and summaries as their mean over the interval
// (sum rate / count rate).
func (s *Sampler) Select(now time.Time, src Source, fams map[string]*dto.MetricFamily) []Sample {
	names := make([]string, 0, len(fams))
	for n := range fams {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []Sample
	for _, name := range names {
		f := fams[name]
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			if !selected(src, name, labels) {
				continue
			}
			series := src.Name + " " + name + labelText(m.GetLabel())
			switch f.GetType() {
			case dto.MetricType_GAUGE:
				out = append(out, Sample{Time: now, Series: series, Value: m.GetGauge().GetValue()})
			case dto.MetricType_UNTYPED:
				out = append(out, Sample{Time: now, Series: series, Value: m.GetUntyped().GetValue()})
			case dto.MetricType_COUNTER:
				if v, ok := s.rate(series, now, m.GetCounter().GetValue()); ok {
					out = append(out, Sample{Time: now, Series: series + " /s", Unit: "/s", Value: v})
				}
			case dto.MetricType_HISTOGRAM:
				h := m.GetHistogram()
				if mean, ok := s.mean(series, now, h.GetSampleSum(), float64(h.GetSampleCount())); ok {
					out = append(out, Sample{Time: now, Series: series + " mean", Unit: "s", Value: mean})
				}
			case dto.MetricType_SUMMARY:
				sm := m.GetSummary()
				if mean, ok := s.mean(series, now, sm.GetSampleSum(), float64(sm.GetSampleCount())); ok {
					out = append(out, Sample{Time: now, Series: series + " mean", Unit: "s", Value: mean})
				}
			}
		}
	}
	return out
}

func selected(src Source, name string, labels map[string]string) bool {
	for _, sel := range src.Selectors {
		if sel.Matches(name, labels) {
			return true
		}
	}
	return false
}

func labelText(ls []*dto.LabelPair) string {
	if len(ls) == 0 {
		return ""
	}
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = l.GetName() + "=" + l.GetValue()
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// rate is the per-second increase of a counter since its last reading; a
// counter that went down (restart) starts over.
func (s *Sampler) rate(key string, now time.Time, v float64) (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	prev, ok := s.prevCtr[key]
	s.prevCtr[key] = counterReading{now, v}
	dt := now.Sub(prev.t).Seconds()
	if !ok || v < prev.v || dt <= 0 {
		return 0, false
	}
	return (v - prev.v) / dt, true
}

// mean is the average observation over the interval from sum and count.
func (s *Sampler) mean(key string, now time.Time, sum, count float64) (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ps, okS := s.prevCtr[key+" sum"]
	pc, okC := s.prevCtr[key+" count"]
	s.prevCtr[key+" sum"] = counterReading{now, sum}
	s.prevCtr[key+" count"] = counterReading{now, count}
	if !okS || !okC || count <= pc.v || sum < ps.v {
		return 0, false
	}
	return (sum - ps.v) / (count - pc.v), true
}
