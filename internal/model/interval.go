package model

import (
	"fmt"
	"io"
	"time"
)

// Interval is a prediction's range from the uncertainty of what it rests
// on (a fitted queue's servers and service time, each known within an
// interval): the figures predicted at the two ends. Near the knee it is
// wide, as a small change of the capacity there changes much.
type Interval struct {
	Success    [2]float64       `json:"success"`
	Throughput [2]float64       `json:"throughput"`
	P50        [2]time.Duration `json:"p50"`
	P99        [2]time.Duration `json:"p99"`
}

// NewInterval is the range of the figures of one scenario over the
// predictions made at the ends of the inputs' intervals (the central
// prediction among them).
func NewInterval(ps ...*ScenarioPrediction) *Interval {
	var iv *Interval
	for _, p := range ps {
		if p == nil {
			continue
		}
		x := 0.0
		if p.Duration > 0 {
			x = p.Success * float64(p.Requests) / p.Duration.Seconds()
		}
		if iv == nil {
			iv = &Interval{Success: [2]float64{p.Success, p.Success}, Throughput: [2]float64{x, x},
				P50: [2]time.Duration{p.Latencies.P50, p.Latencies.P50}, P99: [2]time.Duration{p.Latencies.P99, p.Latencies.P99}}
			continue
		}
		iv.Success = [2]float64{min(iv.Success[0], p.Success), max(iv.Success[1], p.Success)}
		iv.Throughput = [2]float64{min(iv.Throughput[0], x), max(iv.Throughput[1], x)}
		iv.P50 = [2]time.Duration{min(iv.P50[0], p.Latencies.P50), max(iv.P50[1], p.Latencies.P50)}
		iv.P99 = [2]time.Duration{min(iv.P99[0], p.Latencies.P99), max(iv.P99[1], p.Latencies.P99)}
	}
	return iv
}

func writeInterval(w io.Writer, iv *Interval) {
	fmt.Fprintf(w, "    Interval      [success, p50, p99]              %.2f%%..%.2f%%, %s..%s, %s..%s (the fit's uncertainty)\n",
		100*iv.Success[0], 100*iv.Success[1], round(iv.P50[0]), round(iv.P50[1]), round(iv.P99[0]), round(iv.P99[1]))
}
