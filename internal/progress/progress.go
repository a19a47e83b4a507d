// Package progress draws a live one-line status of a running attack on a
// terminal: elapsed/total, current rate, requests in flight, success ratio,
// p50/p99 latency so far (from the due time) and a bar. It draws nothing
// when the output is not a terminal.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// IsTerminal reports whether w is a terminal (progress is drawn only then).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Bar is the live status line. Add is called with every result (from
// one goroutine); the line is redrawn every interval until Stop.
type Bar struct {
	w     io.Writer
	total time.Duration // 0 when unbounded

	mu    sync.Mutex
	m     *metrics.Metrics    // the results so far
	stats func() attack.Stats // nil until known: nothing is drawn

	lastSent uint64
	lastAt   time.Time
	stop     chan struct{}
	done     chan struct{}
}

// New returns a Bar writing to w for an attack of the given total duration
// (0 = unbounded) whose live counters stats returns; stats may be nil
// until Begin (the bar is then one of attackrun's watchers).
func New(w io.Writer, total time.Duration, stats func() attack.Stats) *Bar {
	return &Bar{
		w: w, total: total, stats: stats,
		m:    metrics.NewWith(metrics.Options{NoBreakdown: true}),
		stop: make(chan struct{}), done: make(chan struct{}),
	}
}

var _ results.Sink = (*Bar)(nil)

// Begin is told that attacks begin (attackrun.Watcher): where their
// live counters are read. The line shows their time, not a step's name.
func (b *Bar) Begin(_ string, _ []string, stats func() attack.Stats) {
	b.mu.Lock()
	b.stats = stats
	b.mu.Unlock()
}

// Add counts one result.
func (b *Bar) Add(r *results.Result) {
	b.mu.Lock()
	b.m.Add(r)
	b.mu.Unlock()
}

// Start redraws the line every interval in a goroutine.
func (b *Bar) Start(interval time.Duration) {
	go func() {
		defer close(b.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				b.draw(false)
			case <-b.stop:
				b.draw(true)
				return
			}
		}
	}()
}

// Stop draws the final line and ends it with a newline.
func (b *Bar) Stop() {
	close(b.stop)
	<-b.done
}

func (b *Bar) draw(final bool) {
	b.mu.Lock()
	stats := b.stats
	b.mu.Unlock()
	if stats == nil {
		return
	}
	st := stats()
	if st.Started.IsZero() {
		return
	}
	now := time.Now()
	elapsed := now.Sub(st.Started)
	rate := 0.0
	if !b.lastAt.IsZero() {
		rate = float64(st.Sent-b.lastSent) / now.Sub(b.lastAt).Seconds()
	} else if elapsed > 0 {
		rate = float64(st.Sent) / elapsed.Seconds()
	}
	b.lastSent, b.lastAt = st.Sent, now
	b.mu.Lock()
	p50, p99 := b.m.Quantile(0.50), b.m.Quantile(0.99)
	n, ok := b.m.Requests-b.m.Dropped, b.m.Successes // dropped ones are in the attack's stats
	b.mu.Unlock()
	succ := 0.0
	if n > 0 {
		succ = 100 * float64(ok) / float64(n)
	}
	var bar, of string
	if b.total > 0 {
		frac := min(elapsed.Seconds()/b.total.Seconds(), 1)
		const width = 20
		fill := int(frac * width)
		bar = "[" + strings.Repeat("=", fill) + strings.Repeat(" ", width-fill) + "] "
		of = "/" + b.total.Round(time.Second).String()
	}
	line := fmt.Sprintf("%s%s%s  %.0f req/s  in flight %d  done %d  ok %.2f%%  p50 %s  p99 %s",
		bar, elapsed.Round(100*time.Millisecond), of, rate, st.InFlight, n, succ, round(p50), round(p99))
	if st.Dropped > 0 {
		line += fmt.Sprintf("  dropped %d", st.Dropped)
	}
	if st.Late > 0 {
		line += fmt.Sprintf("  late %d (max %s)", st.Late, round(st.MaxLag))
	}
	end := ""
	if final {
		end = "\n"
	}
	fmt.Fprintf(b.w, "\r\033[K%s%s", line, end)
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d
}
