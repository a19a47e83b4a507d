package attack

import (
	"strconv"
	"time"
)

// The pacer's modes (Options.Pacer).
const (
	// PacerPrecise wakes the pacer at each request's due time: lag of
	// tens of microseconds, a wake-up per request. The default.
	PacerPrecise = "precise"
	// PacerBatched lets requests due within a millisecond share a wake-up:
	// lag up to a millisecond, about half the CPU.
	PacerBatched = "batched"
)

// When the precise pacer falls back to batching: the generator cannot
// keep its schedule when the median lag (sent − due) of its requests
// stays above FallbackLag for FallbackAfter. A median, not a mean: a
// stall of a few milliseconds (another process taking the generator's
// CPU once) delays a few dozen requests and moves the mean, not the
// median. A median lag above FallbackLag means the pacer is no longer
// precise (the batched pacer's median is a few hundred microseconds),
// and what it costs (a wake-up per request) is what the saturated CPU
// lacks: batching gives it back.
const (
	FallbackLag   = 300 * time.Microsecond
	FallbackAfter = time.Second
	// fallbackWindow is the length of a window whose median is judged,
	// and fallbackMinRequests the fewest requests one needs (at low rates
	// a window lasts until it has them).
	fallbackWindow      = 250 * time.Millisecond
	fallbackMinRequests = 16
)

// Fallback records that an attack's precise pacer fell back to batching.
type Fallback struct {
	// At is when, from the attack's start (its first due time).
	At time.Duration `json:"at"`
	// LateShare is the share of the requests of the last windows that
	// were more than FallbackLag late (more than half: the median lag
	// was above it).
	LateShare float64 `json:"late_share"`
	// Over is how long the median lag stayed above FallbackLag.
	Over time.Duration `json:"over"`
}

// String is the fallback for a user, in one clause without a semicolon
// (a report's Machine line separates its verdict with one): "fell back
// to batching 3.2s into the attack: the median schedule lag stayed above
// 300µs for 1s (86% of its requests later than that), the generator's
// CPU saturated or taken by other processes".
func (f *Fallback) String() string {
	return "fell back to batching " + f.At.Round(100*time.Millisecond).String() + " into the attack: the median schedule lag stayed above " +
		FallbackLag.String() + " for " + f.Over.Round(10*time.Millisecond).String() + " (" + strconv.Itoa(int(f.LateShare*100+0.5)) +
		"% of its requests later than that), the generator's CPU saturated or taken by other processes"
}

// lagWatch is how the precise pacer sees its own lag: it cuts the
// requests into windows and counts the consecutive ones whose median lag
// is above the limit.
type lagWatch struct {
	limit  time.Duration // FallbackLag; tests may set their own
	after  int           // consecutive late windows that make a fallback
	start  time.Time     // of the current window
	n      int           // requests in it
	late   int           // of which later than limit
	lateN  int           // requests of the consecutive late windows
	lateK  int           // of which later than limit
	windws int           // consecutive late windows
	since  time.Time     // start of the first of them
}

func newLagWatch() lagWatch {
	return lagWatch{limit: FallbackLag, after: int(FallbackAfter / fallbackWindow)}
}

// observe records a request sent at now, lag after its due time, and
// reports whether the pacer should fall back, with what it saw.
func (w *lagWatch) observe(now time.Time, lag time.Duration) (*Fallback, bool) {
	if w.start.IsZero() {
		w.start = now
	}
	w.n++
	if lag > w.limit {
		w.late++
	}
	if w.n < fallbackMinRequests || now.Sub(w.start) < fallbackWindow {
		return nil, false
	}
	if 2*w.late > w.n {
		if w.windws == 0 {
			w.since = w.start
		}
		w.windws++
		w.lateN += w.n
		w.lateK += w.late
	} else {
		w.windws, w.lateN, w.lateK = 0, 0, 0
	}
	w.start, w.n, w.late = now, 0, 0
	if w.windws < w.after {
		return nil, false
	}
	return &Fallback{LateShare: float64(w.lateK) / float64(w.lateN), Over: now.Sub(w.since)}, true
}
