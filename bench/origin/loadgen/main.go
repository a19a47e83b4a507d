// Command loadgen is the open-loop generator of the origin benchmark: it
// sends GET requests at a constant rate over a fixed set of pre-opened
// HTTP/1.1 keep-alive connections (like wrk2, unlike wrk's closed loop,
// whose connections fall into lockstep waves behind a fixed latency) and
// prints client-seen latency percentiles, measured from each request's
// scheduled send time so that generator stalls count too.
//
// It speaks just enough HTTP/1.1 (Content-Length bodies) to stay cheap on a
// shared 2-core machine, and refuses any host that is not loopback.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
)

func main() {
	target := flag.String("url", "", "loopback `URL` to request (http only)")
	rate := flag.Int("rate", 5000, "requests per second")
	duration := flag.Duration("duration", 15*time.Second, "how long to send")
	warmup := flag.Duration("warmup", 2*time.Second, "leading part of the run left out of the statistics")
	conns := flag.Int("conns", 0, "keep-alive connections to open before the run (0: rate*1.2)")
	timeout := flag.Duration("timeout", 10*time.Second, "per-request timeout")
	flag.Parse()
	u, err := url.Parse(*target)
	if err != nil || u.Scheme != "http" || u.Host == "" {
		fail("-url: want http://127.0.0.1:PORT/path")
	}
	if ip := net.ParseIP(u.Hostname()); ip == nil || !ip.IsLoopback() {
		fail("-url: only loopback addresses (127.0.0.0/8, ::1)")
	}
	if *rate <= 0 || *duration <= 0 {
		fail("-rate and -duration must be positive")
	}
	if *conns <= 0 {
		*conns = *rate * 6 / 5
	}
	req := []byte("GET " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: loadlab-bench\r\n\r\n")

	interval := time.Second / time.Duration(*rate)
	total := int(*duration / interval)
	slots := make(chan time.Time, total)
	var (
		mu   sync.Mutex
		hist = metrics.NewHistogram()
		// sendHist measures from the actual write: without the
		// generator's own dispatch delay (sends go out in 1 ms batches).
		sendHist  = metrics.NewHistogram()
		ok, bad   atomic.Int64
		inFlight  atomic.Int64
		maxFlight atomic.Int64
		wg        sync.WaitGroup
	)
	var start time.Time
	var opened atomic.Int64
	dialer := net.Dialer{Timeout: 5 * time.Second}
	var openWG sync.WaitGroup
	workers := make([]net.Conn, *conns)
	for i := range workers {
		openWG.Add(1)
		go func() {
			defer openWG.Done()
			c, err := dialer.Dial("tcp", u.Host)
			if err == nil {
				workers[i] = c
				opened.Add(1)
			}
		}()
		if i%200 == 199 {
			time.Sleep(10 * time.Millisecond) // stay under the listen backlog
		}
	}
	openWG.Wait()
	for _, c := range workers {
		if c == nil {
			continue
		}
		wg.Add(1)
		go func(c net.Conn) {
			defer wg.Done()
			defer c.Close()
			br := bufio.NewReaderSize(c, 16<<10)
			for sched := range slots {
				n := inFlight.Add(1)
				for m := maxFlight.Load(); n > m && !maxFlight.CompareAndSwap(m, n); m = maxFlight.Load() {
				}
				sent := time.Now()
				_ = c.SetDeadline(sent.Add(*timeout))
				_, err := c.Write(req)
				if err == nil {
					err = readResponse(br)
				}
				inFlight.Add(-1)
				if err != nil {
					bad.Add(1)
					return // this connection is done; others carry on
				}
				ok.Add(1)
				if sched.Sub(start) >= *warmup {
					now := time.Now()
					mu.Lock()
					metrics.RecordLatency(hist, now.Sub(sched))
					metrics.RecordLatency(sendHist, now.Sub(sent))
					mu.Unlock()
				}
			}
		}(c)
	}

	start = time.Now()
	for i := 0; i < total; {
		due := min(int(time.Since(start)/interval)+1, total)
		for ; i < due; i++ {
			slots <- start.Add(time.Duration(i) * interval)
		}
		time.Sleep(time.Millisecond)
	}
	sendEnd := time.Since(start)
	close(slots)
	wg.Wait()
	msOf := func(v int64) float64 {
		return float64(time.Duration(v)*metrics.HistogramUnit) / float64(time.Millisecond)
	}
	ms := func(q float64) string { return fmt.Sprintf("%.1f", msOf(hist.ValueAtQuantile(q))) }
	// Requests never sent (all connections broken) count as errors.
	unsent := int64(total) - ok.Load() - bad.Load()
	fromSend := func(q float64) string { return fmt.Sprintf("%.1f", msOf(sendHist.ValueAtQuantile(q))) }
	fmt.Printf("| %d | %.0f | %d | %d | %d | %d | %s | %s | %s | %s | %.1f | %s | %s |",
		total, float64(total)/sendEnd.Seconds(), opened.Load(), ok.Load(), bad.Load()+unsent, maxFlight.Load(),
		ms(50), ms(90), ms(99), ms(99.9), msOf(hist.Max()), fromSend(50), fromSend(99))
}

// readResponse reads one response with a Content-Length body, expecting 200.
func readResponse(br *bufio.Reader) error {
	status := 0
	length := int64(-1)
	for first := true; ; first = false {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		if first {
			if len(line) < 12 {
				return errors.New("bad status line")
			}
			status, _ = strconv.Atoi(string(line[9:12]))
			continue
		}
		if k, v, found := bytes.Cut(line, []byte(":")); found && bytes.EqualFold(bytes.TrimSpace(k), []byte("Content-Length")) {
			length, _ = strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
		}
	}
	if length < 0 {
		return errors.New("no Content-Length")
	}
	if _, err := br.Discard(int(length)); err != nil {
		return err
	}
	if status != 200 {
		return fmt.Errorf("status %d", status)
	}
	return nil
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "loadgen: "+msg)
	os.Exit(2)
}
