package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/loadlab/loadlab/internal/attackrun"
	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/otlpexport"
	"github.com/loadlab/loadlab/internal/promexport"
)

// exportFlags are the flags that send an attack's or a run's figures to a
// monitoring system as they happen: Prometheus scrape or remote write, and
// OTLP. The results file stays the reference; exported percentiles are
// approximations.
type exportFlags struct {
	promAddr    string
	remoteWrite string
	rwVersion   int
	otlp        string
	interval    time.Duration
}

func (x *exportFlags) register(fs *flag.FlagSet, what string) {
	fs.StringVar(&x.promAddr, "prometheus-addr", "", "serve Prometheus metrics of the "+what+" at `host:port` (vegeta's request_seconds, request_bytes_in/out, request_fail_count, and loadlab_attack_* from the due time, by attack and step)")
	fs.StringVar(&x.remoteWrite, "prometheus-remote-write", "", "push the same Prometheus metrics to a remote write `URL` (e.g. http://127.0.0.1:9090/api/v1/write), every -push-interval and once at the end")
	fs.IntVar(&x.rwVersion, "prometheus-remote-write-version", 1, "remote write protocol `version`: 1 (every receiver) or 2 (Prometheus 3)")
	fs.StringVar(&x.otlp, "otlp-endpoint", "", "push OpenTelemetry metrics over OTLP/HTTP to `URL` (e.g. http://127.0.0.1:4318): counters, and latency and lag as exponential histograms")
	fs.DurationVar(&x.interval, "push-interval", 5*time.Second, "how often -prometheus-remote-write and -otlp-endpoint push")
}

// exports are the exporters asked for, running.
type exports struct {
	prom *promexport.Exporter
	otlp *otlpexport.Exporter
}

// check validates the flags (bad input, before anything is started).
func (x *exportFlags) check() error {
	if x.interval <= 0 {
		return badinput.Field("-push-interval", "want a positive duration, got %s", x.interval)
	}
	if x.remoteWrite != "" {
		if err := promexport.CheckPushURL(x.remoteWrite); err != nil {
			return badinput.Field("-prometheus-remote-write", "%v", err)
		}
		if x.rwVersion != 1 && x.rwVersion != 2 {
			return badinput.Field("-prometheus-remote-write-version", "want 1 or 2, got %d", x.rwVersion)
		}
	}
	if x.otlp != "" {
		if err := otlpexport.CheckEndpoint(x.otlp); err != nil {
			return badinput.Field("-otlp-endpoint", "%v", err)
		}
	}
	return nil
}

// start opens every export asked for. A malformed or busy address is bad
// input, reported before any request is sent.
func (x *exportFlags) start(ctx context.Context, stderr io.Writer) (*exports, error) {
	if err := x.check(); err != nil {
		return nil, err
	}
	e := &exports{}
	switch {
	case x.promAddr != "":
		pe, err := promexport.Listen(x.promAddr)
		if err != nil {
			return nil, badinput.Field("-prometheus-addr", "%v", err)
		}
		fmt.Fprintf(stderr, "prometheus metrics: http://%s/metrics\n", pe.Addr())
		e.prom = pe
	case x.remoteWrite != "":
		e.prom = promexport.New()
	}
	if x.remoteWrite != "" {
		if err := e.prom.Push(promexport.PushOptions{URL: x.remoteWrite, Version: x.rwVersion, Interval: x.interval, Log: stderr}); err != nil {
			e.close(stderr)
			return nil, badinput.Field("-prometheus-remote-write", "%v", err)
		}
	}
	if x.otlp != "" {
		oe, err := otlpexport.New(ctx, otlpexport.Options{Endpoint: x.otlp, Interval: x.interval, Version: version()})
		if err != nil {
			e.close(stderr)
			return nil, badinput.Field("-otlp-endpoint", "%v", err)
		}
		e.otlp = oe
	}
	return e, nil
}

// list is the running exporters.
func (e *exports) list() []attackrun.Watcher {
	var out []attackrun.Watcher
	if e.prom != nil {
		out = append(out, e.prom)
	}
	if e.otlp != nil {
		out = append(out, e.otlp)
	}
	return out
}

// close pushes the final figures (remote write, OTLP) and stops serving;
// a push that fails is a warning, never a failed run.
func (e *exports) close(stderr io.Writer) {
	var errs []error
	if e.prom != nil {
		errs = append(errs, e.prom.Close())
		if ok, failed := e.prom.Pushed(); failed > 0 {
			fmt.Fprintf(stderr, "prometheus remote write: %d of %d pushes failed\n", failed, ok+failed)
		}
	}
	if e.otlp != nil {
		if err := e.otlp.Close(); err != nil {
			errs = append(errs, fmt.Errorf("otlp: final push: %w", err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintf(stderr, "loadlab: warning: %v\n", err)
	}
}
