// Package output is the lifecycle a running attack's outputs share (the
// live view, the Prometheus scrape and remote write exporter, the OTLP
// exporter): they start with the run, are told at every job which step
// the results that follow belong to and where the attacks' counters are
// read (Job), flush what they gathered periodically, driven by one
// mechanism (Loop), and flush a last time when stopped, so that a
// receiver's totals are exact.
package output

import (
	"sync"
	"time"
)

// Loop calls a flush function periodically, and once more, marked final,
// when stopped. Flushes never overlap.
type Loop struct {
	flush  func(final bool) error
	ticker *time.Ticker // nil when driven by the caller's ticks
	stop   chan struct{}
	done   chan struct{}
	once   sync.Once
	err    error // the final flush's
}

// Every starts a Loop flushing every period.
func Every(period time.Duration, flush func(final bool) error) *Loop {
	t := time.NewTicker(period)
	return start(t.C, t, flush)
}

// On starts a Loop flushing at every tick received (a test drives its
// flushes at will). The error of a periodic flush is the flush
// function's to report; the final one's is Stop's.
func On(ticks <-chan time.Time, flush func(final bool) error) *Loop {
	return start(ticks, nil, flush)
}

// start runs a Loop on ticks; t, when set, is the ticker stopped with it.
func start(ticks <-chan time.Time, t *time.Ticker, flush func(final bool) error) *Loop {
	l := &Loop{flush: flush, ticker: t, stop: make(chan struct{}), done: make(chan struct{})}
	go l.run(ticks)
	return l
}

func (l *Loop) run(ticks <-chan time.Time) {
	defer close(l.done)
	if l.ticker != nil {
		defer l.ticker.Stop()
	}
	for {
		select {
		case <-ticks:
			_ = l.flush(false)
		case <-l.stop:
			l.err = l.flush(true)
			return
		}
	}
}

// Stop makes the final flush, waits for it and returns its error. Later
// calls only return that error again.
func (l *Loop) Stop() error {
	l.once.Do(func() { close(l.stop) })
	<-l.done
	return l.err
}
