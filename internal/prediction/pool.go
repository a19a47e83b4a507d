package prediction

import "time"

// Pool is a pool's gauges over the step, one point per interval, and its
// counts and peaks. (A pool read from a summary.json of version 1 has
// no series, only the counts and peaks.)
type Pool struct {
	Pool          string    `json:"pool"`
	Manager       string    `json:"manager"`
	Size          int       `json:"size"`
	Overflow      int       `json:"overflow"`
	T             []float64 `json:"t,omitempty"` // seconds since the step began
	InUse         []int     `json:"workers_in_use,omitempty"`
	OverflowInUse []int     `json:"overflow_in_use,omitempty"`
	Waiting       []int     `json:"waiting,omitempty"`
	Mailbox       []int     `json:"mailbox,omitempty"`
	Checkouts     uint64    `json:"checkouts"`
	Timeouts      uint64    `json:"checkout_timeouts"`
	Opened        uint64    `json:"overflow_opened"`
	Dismissed     uint64    `json:"overflow_dismissed"`
	MailboxPeak   int       `json:"mailbox_peak"`
	// PeakInUse and PeakWaiting are the highest points of InUse and
	// Waiting.
	PeakInUse   int `json:"peak_in_use"`
	PeakWaiting int `json:"peak_waiting"`
	// FirstTimeout is when the first checkout timed out (0: none did).
	FirstTimeout time.Duration `json:"first_timeout"`
	// StartCost and StopCost are the serial manager's per-worker costs,
	// dial and close included.
	StartCost time.Duration `json:"start_cost"`
	StopCost  time.Duration `json:"stop_cost"`
	// CheckoutTimeout is the pool's checkout timeout.
	CheckoutTimeout time.Duration `json:"checkout_timeout"`
	// ManagerUtilization is the share of the step the serial manager was
	// busy: near 1, its mailbox holds or grows on costs too small for the
	// model to see, and the prediction is fragile.
	ManagerUtilization float64 `json:"manager_utilization"`
}

// SetPeaks sets PeakInUse and PeakWaiting from the series.
func (p *Pool) SetPeaks() {
	p.PeakInUse, p.PeakWaiting = peak(p.InUse), peak(p.Waiting)
}

func peak(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
