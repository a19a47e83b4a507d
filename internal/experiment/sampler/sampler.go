// Package sampler records, every interval while an experiment runs,
// selected series from the targets' Prometheus /metrics (gauges as they
// are, counters as per-second rates), the CPU% and RSS of every started
// component and any other PID (from /proc), the machine's CPU, and the load
// generator's own CPU so that a saturated generator is never mistaken for a
// slow server.
package sampler

import (
	"context"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/plan"
)

// Sample is one reading of one series.
type Sample struct {
	Time   time.Time `json:"time"`
	Series string    `json:"series"` // e.g. "proxy loadlab_proxy_pool_workers_in_use{pool=default}", "proxy cpu%"
	Unit   string    `json:"unit"`   // "", "/s", "CPU %", "MiB"
	Value  float64   `json:"value"`
}

// Source is a Prometheus endpoint to scrape.
type Source struct {
	Name      string // component name, used as the series prefix
	URL       string // full URL of the metrics page
	Selectors []plan.Selector
}

// Proc is a process whose CPU and RSS are sampled.
type Proc struct {
	Name string
	PID  int
}

// Config says what to sample.
type Config struct {
	Interval time.Duration
	Sources  []Source
	Procs    []Proc // started components and -pid processes
	// Generator names this process's own series ("" = "loadlab").
	Generator string
	// OnSample, when set, sees every sample as it is taken (the live view).
	OnSample func(Sample)
}

// Sampler collects samples until its context ends. It is safe for
// concurrent use.
type Sampler struct {
	cfg    Config
	client *http.Client

	mu      sync.Mutex
	samples []Sample
	prevCtr map[string]counterReading
	prevCPU map[int]cpuReading
	prevSys cpuReading
	errs    map[string]string
	// tcpPeers remembers the remote ports each process connected to (see
	// attributeTCP).
	tcpPeers map[string]map[int]bool
	tcpBuf   []byte // the TCP table reading's buffer (netlink or /proc text), reused
}

type counterReading struct {
	t time.Time
	v float64
}

// New returns a Sampler for cfg.
func New(cfg Config) *Sampler {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Generator == "" {
		cfg.Generator = "loadlab"
	}
	return &Sampler{cfg: cfg,
		client:  &http.Client{Timeout: cfg.Interval, Transport: &http.Transport{MaxIdleConnsPerHost: 2}},
		prevCtr: map[string]counterReading{}, prevCPU: map[int]cpuReading{}, errs: map[string]string{}}
}

// Run samples every interval until ctx is done. The first reading is taken
// at once (rates and CPU need two readings, so they start at the second).
func (s *Sampler) Run(ctx context.Context) {
	t := time.NewTicker(s.cfg.Interval)
	defer t.Stop()
	defer s.client.CloseIdleConnections()
	for {
		s.SampleOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// SampleOnce takes one reading of everything.
func (s *Sampler) SampleOnce(ctx context.Context) {
	now := time.Now()
	var wg sync.WaitGroup
	for _, src := range s.cfg.Sources {
		wg.Add(1)
		go func(src Source) {
			defer wg.Done()
			s.scrape(ctx, now, src)
		}(src)
	}
	s.sampleProcs(now)
	wg.Wait()
}

func (s *Sampler) add(smp Sample) {
	s.mu.Lock()
	s.samples = append(s.samples, smp)
	s.mu.Unlock()
	if s.cfg.OnSample != nil {
		s.cfg.OnSample(smp)
	}
}

// Samples returns every sample so far, in time order.
func (s *Sampler) Samples() []Sample {
	s.mu.Lock()
	out := append([]Sample(nil), s.samples...)
	s.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	return out
}

// Errors returns the last error of each source that failed to answer.
func (s *Sampler) Errors() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.errs))
	for k, v := range s.errs {
		out[k] = v
	}
	return out
}
