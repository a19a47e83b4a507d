package blackbox

import (
	"fmt"
	"io"
	"math"
	"time"
)

// WriteFit prints the fitted parameters with their uncertainty, what the
// calibration cost, and what would change the prediction most.
func WriteFit(w io.Writer, f *Fit) {
	fmt.Fprintf(w, "Fitted queue of %s (%d calibration requests in %v, up to %.0f/s; announced at most %d and %v):\n",
		f.Target, f.Requests, f.Duration.Round(100*time.Millisecond), f.HighestRate, f.Worst.Requests, f.Worst.Duration)
	if f.Loaded != nil {
		fmt.Fprintf(w, "  calibration    reused from %s (measured %s)\n", f.Loaded.File, f.Loaded.Saved.Format("2006-01-02 15:04 UTC"))
	}
	if f.Redirect != nil {
		fmt.Fprintf(w, "  redirect       %s answers %d: calibrated %s\n", f.Redirect.From, f.Redirect.Status, f.Redirect.To)
	}
	st := f.ServiceTime
	fmt.Fprintf(w, "  service time   mean %v (95%%: %v..%v), p50 %v (%v..%v), p90 %v (%v..%v), p99 %v (%v..%v)\n",
		round(f.ServiceMean), round(f.ServiceMeanCI[0]), round(f.ServiceMeanCI[1]),
		round(st.P50), round(st.P50CI[0]), round(st.P50CI[1]), round(st.P90), round(st.P90CI[0]), round(st.P90CI[1]),
		round(st.P99), round(st.P99CI[0]), round(st.P99CI[1]))
	switch {
	case f.LeftOut > 0:
		fmt.Fprintf(w, "  evidence       %d time blocks of the probes, %d left out (the machine paused)\n", f.Blocks, f.LeftOut)
	case f.Blocks > 0:
		fmt.Fprintf(w, "  evidence       %d time blocks of the probes, none disturbed by the machine\n", f.Blocks)
	}
	switch f.Queue {
	case QueueNotFound:
		fmt.Fprintf(w, "  servers        no limit found (modelled as %d)\n", f.Servers)
	default:
		fmt.Fprintf(w, "  servers        %d (95%%: %.1f..%.1f), capacity %.1f req/s (95%%: %.1f..%.1f)\n", f.Servers, f.ServersCI[0], f.ServersCI[1], f.Capacity, f.CapacityCI[0], f.CapacityCI[1])
	}
	switch f.Queue {
	case QueueBounded:
		fmt.Fprintf(w, "  queue          bounded: waits %v, then answers %d\n", round(f.QueueTimeout), f.RefusalStatus)
	case QueueNone:
		fmt.Fprintf(w, "  queue          none: refused at once with %d\n", f.RefusalStatus)
	case QueueUnbounded:
		fmt.Fprintf(w, "  queue          unbounded: waits until the client's timeout (%v)\n", f.QueueTimeout)
	}
	if u := f.USL; u != nil {
		verdict := "not significant: the service time is kept constant"
		if u.Significant {
			verdict = "modelled: each request is slowed by the requests in service"
		}
		fmt.Fprintf(w, "  contention     σ %.4f (95%%: %.4f..%.4f), κ %.5f (95%%: %.5f..%.5f), λ %.1f/s (95%%: %.1f..%.1f)\n",
			u.Sigma, u.SigmaCI[0], u.SigmaCI[1], u.Kappa, u.KappaCI[0], u.KappaCI[1], u.Lambda, u.LambdaCI[0], u.LambdaCI[1])
		fmt.Fprintf(w, "                 service ×%.2f at %d in service (95%%: ×%.2f..×%.2f), from %d closed probes: %s\n",
			u.Factor(u.Top), u.Top, u.SlowdownCI[0], u.SlowdownCI[1], len(u.Levels), verdict)
	} else if f.Slowdown > 0 {
		fmt.Fprintf(w, "  contention     service %.0f%% slower below half the capacity than at low load\n", 100*f.Slowdown)
	}
	if f.Queue != QueueNotFound && !math.IsInf(f.Capacity, 0) {
		fmt.Fprintf(w, "  most sensitive the capacity: known within %.0f..%.0f req/s; predictions at rates in that range are uncertain (see each one's interval)\n", f.CapacityCI[0], f.CapacityCI[1])
	}
	for _, n := range f.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
	fmt.Fprintln(w)
}

func round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
