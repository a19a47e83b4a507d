package progress

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/results"
)

func TestBarLine(t *testing.T) {
	start := time.Now().Add(-5 * time.Second)
	cases := []struct {
		name  string
		total time.Duration
		stats attack.Stats
		want  []string
	}{
		{"bounded", 10 * time.Second, attack.Stats{Started: start, Sent: 100, InFlight: 3},
			[]string{"[==========          ]", "/10s", "in flight 3", "done 100", "ok 98.00%", "p50 10ms", "p99 1s"}},
		{"unbounded with drops", 0, attack.Stats{Started: start, Sent: 100, Dropped: 7, Late: 2, MaxLag: 3 * time.Millisecond},
			[]string{"dropped 7", "late 2 (max 3ms)"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			b := New(&buf, c.total, func() attack.Stats { return c.stats })
			for i := range 100 {
				r := results.Result{Code: 200, Latency: 10 * time.Millisecond}
				if i >= 98 {
					r.Code, r.Latency = 500, time.Second
				}
				b.Add(&r)
			}
			b.Add(&results.Result{Error: attack.ErrDropped}) // not a response
			b.Start(time.Hour)
			b.Stop()
			line := buf.String()
			for _, w := range c.want {
				if !strings.Contains(line, w) {
					t.Errorf("line %q lacks %q", line, w)
				}
			}
			if !strings.HasSuffix(line, "\n") {
				t.Error("final line not ended")
			}
		})
	}
	if IsTerminal(&bytes.Buffer{}) {
		t.Error("a buffer is not a terminal")
	}
}

// As one of attackrun's watchers the bar learns its counters once the
// attack is ready: before that it draws nothing, after it the line.
func TestBarDrawsOnceItHasCounters(t *testing.T) {
	var buf bytes.Buffer
	b := New(&buf, time.Second, nil)
	b.draw(false)
	if buf.Len() != 0 {
		t.Fatalf("drew %q without counters", buf.String())
	}
	b.Begin("step", []string{"a", "b"}, func() attack.Stats { return attack.Stats{Started: time.Now().Add(-time.Second), Sent: 10} })
	b.Add(&results.Result{Code: 200, Latency: time.Millisecond})
	b.Start(time.Hour)
	b.Stop()
	if line := buf.String(); !strings.Contains(line, "done 1") || !strings.HasSuffix(line, "\n") {
		t.Fatalf("line %q", line)
	}
}
