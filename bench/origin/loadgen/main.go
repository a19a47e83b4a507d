// Command loadgen is the open-loop generator of the origin benchmark: it
// sends GET requests at a constant rate (like wrk2 or vegeta, unlike wrk's
// closed loop, whose connections fall into lockstep waves behind a fixed
// latency) and prints client-seen latency percentiles, measured from each
// request's scheduled send time so that generator stalls count too.
//
// Loopback only: it refuses any URL whose host is not a loopback address.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

func main() {
	target := flag.String("url", "", "loopback `URL` to request")
	rate := flag.Int("rate", 5000, "requests per second")
	duration := flag.Duration("duration", 15*time.Second, "how long to send")
	warmup := flag.Duration("warmup", 2*time.Second, "leading part of the run left out of the statistics (connections opening)")
	timeout := flag.Duration("timeout", 10*time.Second, "per-request timeout")
	conns := flag.Int("conns", 0, "open this many keep-alive connections before the run (one request each, 250 at a time), so the run measures requests, not a dial storm")
	flag.Parse()
	u, err := url.Parse(*target)
	if err != nil || u.Host == "" {
		fmt.Fprintln(os.Stderr, "loadgen: -url: want http://127.0.0.1:PORT/path")
		os.Exit(2)
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		fmt.Fprintln(os.Stderr, "loadgen: -url: only loopback addresses (127.0.0.0/8, ::1)")
		os.Exit(2)
	}
	if *rate <= 0 || *duration <= 0 {
		fmt.Fprintln(os.Stderr, "loadgen: -rate and -duration must be positive")
		os.Exit(2)
	}

	tr := &http.Transport{
		MaxIdleConns:        0,
		MaxIdleConnsPerHost: 20000,
		IdleConnTimeout:     30 * time.Second,
		DisableCompression:  true,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
	}
	client := &http.Client{Transport: tr, Timeout: *timeout}

	if *conns > 0 {
		warm(client, *target, *conns)
	}

	var (
		mu        sync.Mutex
		hist      = hdrhistogram.New(1, int64(time.Minute/time.Microsecond), 3)
		sent      atomic.Int64
		ok        atomic.Int64
		failed    atomic.Int64
		inFlight  atomic.Int64
		maxFlight atomic.Int64
		wg        sync.WaitGroup
	)
	interval := time.Second / time.Duration(*rate)
	total := int(*duration / interval)
	start := time.Now().Add(10 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), *duration+*timeout+5*time.Second)
	defer cancel()

	for i := 0; i < total; {
		due := int(time.Since(start)/interval) + 1
		if due > total {
			due = total
		}
		for ; i < due; i++ {
			sched := start.Add(time.Duration(i) * interval)
			measured := sched.Sub(start) >= *warmup
			wg.Add(1)
			sent.Add(1)
			go func() {
				defer wg.Done()
				n := inFlight.Add(1)
				for {
					m := maxFlight.Load()
					if n <= m || maxFlight.CompareAndSwap(m, n) {
						break
					}
				}
				defer inFlight.Add(-1)
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, *target, nil)
				resp, err := client.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if err == nil && resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				if err != nil {
					failed.Add(1)
					return
				}
				ok.Add(1)
				if measured {
					lat := time.Since(sched)
					mu.Lock()
					_ = hist.RecordValue(lat.Microseconds())
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Millisecond)
	}
	sendEnd := time.Since(start)
	wg.Wait()
	ms := func(q float64) string { return fmt.Sprintf("%.1f", float64(hist.ValueAtQuantile(q))/1000) }
	fmt.Printf("| %d | %.0f | %d | %d | %d | %s | %s | %s | %s | %.1f |\n",
		sent.Load(), float64(sent.Load())/sendEnd.Seconds(), ok.Load(), failed.Load(), maxFlight.Load(),
		ms(50), ms(90), ms(99), ms(99.9), float64(hist.Max())/1000)
}

// warm opens n connections by sending n overlapping requests, 250 at a time
// per wave, all held open until every wave is out so none is reused.
func warm(client *http.Client, target string, n int) {
	var wg sync.WaitGroup
	release := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Get(target)
			if err != nil {
				return
			}
			<-release                             // keep the connection busy until all are open
			_, _ = io.Copy(io.Discard, resp.Body) // then hand it back to the pool
			resp.Body.Close()
		}()
		if i%250 == 249 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	close(release)
	wg.Wait()
}
