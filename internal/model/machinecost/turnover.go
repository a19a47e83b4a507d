package machinecost

import (
	"context"
	"net"
	"time"

	"github.com/loadlab/loadlab/internal/proxy/pool"
)

// Point is one row of the turnover measurement: with start and stop
// costs both Slept, the mean time a turnover (a worker started and
// dismissed back to back) took beyond 2 × Slept — the manager's dial
// and close as it makes them after sleeping, which the model has as
// Costs.Dial + Costs.Close + the Wake's extra at Slept.
type Point struct {
	Slept     time.Duration `json:"slept"`
	Turnovers int           `json:"turnovers"`
	Overhead  time.Duration `json:"overhead"`
}

// Turnovers measures the real serial manager's turnover at each sleep: a
// pool of one overflow worker whose start and stop costs are both the
// sleep, checked out and in back to back for about each, so that the
// manager dials after sleeping the stop cost and closes after sleeping
// the start cost, its costs owed back to back (pool.pay). upstream is a
// server on loopback to dial (the proxy's dialer: no keep-alive probes).
func Turnovers(ctx context.Context, upstream string, sleeps []time.Duration, each time.Duration) ([]Point, error) {
	d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: -1}
	var out []Point
	for _, s := range sleeps {
		n := max(2, int(each/(2*s)))
		p := pool.New(pool.Config{Name: "wake", Overflow: 1, CheckoutTimeout: 10 * time.Second, Manager: pool.ManagerSerial,
			StartCost: s, StopCost: s, Upstream: upstream}, pool.Options{Dial: d.DialContext})
		turn := func() error {
			w, _, err := p.Checkout(ctx)
			if err != nil {
				return err
			}
			p.Checkin(w)
			return nil
		}
		// A first turnover from an idle manager, then n back to back,
		// timed together: one turnover alone is not a measure, as a late
		// wake-up is made up by the next (pool.pay).
		err := turn()
		began := time.Now()
		for i := 0; i < n && err == nil; i++ {
			err = turn()
		}
		took := time.Since(began)
		p.Close()
		<-p.Done()
		if err != nil {
			return out, err
		}
		out = append(out, Point{Slept: s, Turnovers: n, Overhead: max(0, took/time.Duration(n)-2*s)})
	}
	return out, nil
}
