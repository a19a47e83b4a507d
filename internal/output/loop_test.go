package output

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
)

func TestLoopFlushesAtTicksThenOnceFinal(t *testing.T) {
	ticks := make(chan time.Time)
	var mu sync.Mutex
	var got []bool
	errFinal := errors.New("receiver down")
	l := On(ticks, func(final bool) error {
		mu.Lock()
		got = append(got, final)
		mu.Unlock()
		if final {
			return errFinal
		}
		return errors.New("a periodic error is the flush's to report")
	})
	ticks <- time.Now()
	ticks <- time.Now() // received only once the first flush is over
	if err := l.Stop(); err != errFinal {
		t.Errorf("Stop: %v, want the final flush's error", err)
	}
	if err := l.Stop(); err != errFinal {
		t.Errorf("second Stop: %v, want the final flush's error again", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[0] || got[1] || !got[2] {
		t.Errorf("flushes %v, want two periodic then one final", got)
	}
}

func TestEveryFlushesPeriodically(t *testing.T) {
	flushed := make(chan bool, 100)
	l := Every(time.Millisecond, func(final bool) error { flushed <- final; return nil })
	select {
	case final := <-flushed:
		if final {
			t.Error("the first flush is marked final before Stop")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no periodic flush in 20 s")
	}
	if err := l.Stop(); err != nil {
		t.Fatal(err)
	}
	var last bool
	for len(flushed) > 0 {
		last = <-flushed
	}
	if !last {
		t.Error("the last flush is not marked final")
	}
}

func TestJobBeginReturnsThePreviousCounters(t *testing.T) {
	var j Job
	if _, ok := j.Stats(); ok || j.Step() != "" {
		t.Fatal("a zero Job has counters or a step")
	}
	first := func() attack.Stats { return attack.Stats{Sent: 7} }
	if prev := j.Begin("100/s", first); prev != nil {
		t.Error("the first Begin returns previous counters")
	}
	if s, ok := j.Stats(); !ok || s.Sent != 7 || j.Step() != "100/s" {
		t.Errorf("after Begin: stats %+v (%v), step %q", s, ok, j.Step())
	}
	prev := j.Begin("200/s", func() attack.Stats { return attack.Stats{Sent: 1} })
	if prev == nil || prev().Sent != 7 {
		t.Error("the second Begin does not return the first job's counters")
	}
	if s, _ := j.Stats(); s.Sent != 1 || j.Step() != "200/s" {
		t.Errorf("after the second Begin: stats %+v, step %q", s, j.Step())
	}
}
