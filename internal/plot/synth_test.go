package plot

import (
	"math/rand/v2"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// staircase makes the pool staircase's picture: a pool that saturates every step
// seconds, latency climbing by rise per step up to a ceiling where requests
// fail with 500, plus a few transport errors.
func staircase(rate, seconds int) []results.Result {
	rng := rand.New(rand.NewPCG(3, 3))
	n := rate * seconds
	out := make([]results.Result, 0, n)
	interval := time.Second / time.Duration(rate)
	for i := 0; i < n; i++ {
		sent := t0.Add(time.Duration(i) * interval)
		step := float64(i) * interval.Seconds() / 4.3
		lat := 5*time.Second + time.Duration(int(step))*714*time.Millisecond + time.Duration(rng.IntN(40))*time.Millisecond
		code := uint16(200)
		errText := ""
		if lat > 11*time.Second {
			lat, code, errText = 11*time.Second+time.Duration(rng.IntN(20))*time.Millisecond, 500, "500 Internal Server Error"
		}
		if i%997 == 0 {
			lat, code, errText = time.Duration(rng.IntN(5))*time.Millisecond, 0, "connection refused"
		}
		out = append(out, results.Result{Seq: uint64(i), Sent: sent, Due: sent, Latency: lat, Code: code, Error: errText})
	}
	return out
}
