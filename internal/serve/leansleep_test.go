package serve

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// sleepy sleeps ?d= (default 150 ms) with the request context's Sleep and
// answers "slept" or "not slept"; results gets each Sleep's outcome.
func sleepy(stop <-chan struct{}, results chan<- bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, err := time.ParseDuration(r.URL.Query().Get("d"))
		if err != nil {
			d = 150 * time.Millisecond
		}
		sl, ok := r.Context().(interface {
			Sleep(time.Duration, <-chan struct{}) bool
		})
		if !ok {
			http.Error(w, "no Sleep", http.StatusInternalServerError)
			return
		}
		slept := sl.Sleep(d, stop)
		results <- slept
		if slept {
			_, _ = io.WriteString(w, "slept "+r.URL.Path)
		} else {
			_, _ = io.WriteString(w, "not slept")
		}
	})
}

func TestLeanSleep(t *testing.T) {
	for _, c := range []struct {
		name     string
		in       string // written at once
		closeAt  time.Duration
		stopAt   time.Duration
		want     []bool
		answers  []string
		min, max time.Duration // time until the last Sleep returned
	}{
		{"sleeps its time", "GET /a HTTP/1.1\r\nHost: x\r\n\r\n", 0, 0, []bool{true}, []string{"200 slept /a"}, 150 * time.Millisecond, 2 * time.Second},
		{"pipelined request kept", "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b?d=10ms HTTP/1.1\r\nHost: x\r\n\r\n", 0, 0, []bool{true, true},
			[]string{"200 slept /a", "200 slept /b"}, 160 * time.Millisecond, 2 * time.Second},
		{"client gone", "GET /a?d=10s HTTP/1.1\r\nHost: x\r\n\r\n", 100 * time.Millisecond, 0, []bool{false}, nil, 100 * time.Millisecond, 2 * time.Second},
		{"stopped", "GET /a?d=10s HTTP/1.1\r\nHost: x\r\n\r\n", 0, 100 * time.Millisecond, []bool{false}, []string{"200 not slept"}, 100 * time.Millisecond, 2 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			stop := make(chan struct{})
			results := make(chan bool, 4)
			u := start(t, Config{}, sleepy(stop, results))
			conn, br := dialRaw(t, u)
			begin := time.Now()
			_, _ = io.WriteString(conn, c.in)
			if c.closeAt > 0 {
				time.AfterFunc(c.closeAt, func() { conn.Close() })
			}
			if c.stopAt > 0 {
				time.AfterFunc(c.stopAt, func() { close(stop) })
			}
			var got []bool
			for range c.want {
				select {
				case ok := <-results:
					got = append(got, ok)
				case <-time.After(3 * time.Second):
					t.Fatalf("Sleep did not return (got %v)", got)
				}
			}
			took := time.Since(begin)
			for i := range c.want {
				if got[i] != c.want[i] {
					t.Errorf("Sleep results %v, want %v", got, c.want)
					break
				}
			}
			if took < c.min || took > c.max {
				t.Errorf("took %v, want %v..%v", took, c.min, c.max)
			}
			var answers []string
			for range c.answers {
				answers = append(answers, readAnswer(t, br))
			}
			if strings.Join(answers, "\n") != strings.Join(c.answers, "\n") {
				t.Errorf("answers %q, want %q", answers, c.answers)
			}
		})
	}
}
