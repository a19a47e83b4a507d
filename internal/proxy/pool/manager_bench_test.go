package pool

import (
	"context"
	"testing"
	"time"
)

// BenchmarkCheckoutCheckin measures a checkout and checkin pair, from
// parallel callers, under each manager: the serial manager's hand-offs are
// the cost of modelling poolboy's single process.
func BenchmarkCheckoutCheckin(b *testing.B) {
	for _, m := range []string{ManagerConcurrent, ManagerSerial} {
		b.Run(m, func(b *testing.B) {
			p := New(Config{Size: 64, CheckoutTimeout: 5 * time.Second, Manager: m}, Options{})
			defer p.Close()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					w, _, err := p.Checkout(context.Background())
					if err != nil {
						b.Error(err)
						return
					}
					p.Checkin(w)
				}
			})
		})
	}
}
