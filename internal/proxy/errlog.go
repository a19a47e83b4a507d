package proxy

import (
	"errors"
	"sync"
	"time"
)

// errBreakerOpen is the cause named in the body of an answer the breaker
// refused.
var errBreakerOpen = errors.New("circuit breaker open")

// errLogEvery is the shortest gap between two log lines of one route's
// upstream errors: under load an unreachable upstream fails thousands of
// requests a second, and the log says so once a second with a count.
const errLogEvery = time.Second

// errLog rate-limits the log lines of one route's upstream errors.
type errLog struct {
	mu         sync.Mutex
	last       time.Time
	suppressed int
}

// note logs err for the route unless a line was written less than
// errLogEvery ago, in which case it is counted into the next line.
func (l *errLog) note(logf func(string, ...any), route, upstream string, err error) {
	if logf == nil || l == nil {
		return
	}
	now := time.Now()
	l.mu.Lock()
	if !l.last.IsZero() && now.Sub(l.last) < errLogEvery {
		l.suppressed++
		l.mu.Unlock()
		return
	}
	n := l.suppressed
	l.last, l.suppressed = now, 0
	l.mu.Unlock()
	if n > 0 {
		logf("loadlab proxy: route %s: upstream %s: %v (and %d more upstream errors on this route since the last line)", route, upstream, err, n)
		return
	}
	logf("loadlab proxy: route %s: upstream %s: %v", route, upstream, err)
}
