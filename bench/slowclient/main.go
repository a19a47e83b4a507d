// Command slowclient measures what slow clients cost the proxy's other
// users: origin and proxy as real processes on loopback, a pool of 4 + 4
// workers (checkout timeout 1 s) to a 20 ms origin, and beside normal GETs
// at a steady rate, slow clients holding connections open: POST bodies
// trickled at one byte a second and Slowloris heads at one byte a second.
// It prints, per row (no slow clients, then with them), the normal
// requests sent, answered 200, and their p50 / p99 / max latency.
//
//	go run ./bench/slowclient                       # the binary built from this tree
//	go run ./bench/slowclient -bin /path/to/loadlab # another build (e.g. before a fix)
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loadlab/loadlab/bench/labproc"
	"github.com/loadlab/loadlab/bench/machine"
)

func main() {
	bin := flag.String("bin", "", "loadlab binary (default: build ./cmd/loadlab)")
	slow := flag.Int("slow", 16, "slow body clients (and as many slow heads)")
	rate := flag.String("rate", "100/s", "rate of the normal GETs")
	duration := flag.Duration("duration", 15*time.Second, "how long the normal GETs run per row")
	flag.Parse()
	dir, err := os.MkdirTemp("", "loadlab-slowclient-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	if *bin == "" {
		if *bin, err = labproc.Build(dir); err != nil {
			fail(err)
		}
	}
	recipe := filepath.Join(dir, "recipe.json")
	_ = os.WriteFile(recipe, []byte(`{"body": "ok", "stages": [{"at": 0, "status": 200, "latency": "20ms"}]}`), 0o644)
	origin, stopOrigin := labproc.Server(*bin, "origin", "-recipe", recipe, "-listen", "127.0.0.1:0", "-quiet")
	defer stopOrigin()
	cfg := filepath.Join(dir, "proxy.yaml")
	_ = os.WriteFile(cfg, []byte("pools:\n  default: {size: 4, overflow: 4, checkout_timeout: 1s}\nroutes:\n  - {name: all, path: /*, upstream: "+origin+"}\n"), 0o644)
	proxy, stopProxy := labproc.Server(*bin, "proxy", "-config", cfg, "-listen", "127.0.0.1:0")
	defer stopProxy()

	fmt.Printf("slowclient: GET at %s for %v through a pool of 4 + 4 (checkout timeout 1 s) to a 20 ms origin (%s, load average %s)\n\n",
		*rate, *duration, time.Now().UTC().Format(time.RFC3339), machine.LoadAvg())
	fmt.Println("| slow clients | normal GETs | answered 200 | p50 | p99 | max |")
	fmt.Println("|---|---|---|---|---|---|")
	row(*bin, dir, proxy, "none", *rate, *duration)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	addr := strings.TrimPrefix(proxy, "http://")
	for i := 0; i < *slow; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			trickle(ctx, addr, "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Length: 100000\r\n\r\n", '.')
		}()
		go func() {
			defer wg.Done()
			trickle(ctx, addr, "GET /loris HTTP/1.1\r\nHost: a\r\nX-Slow: ", 'a')
		}()
	}
	time.Sleep(2 * time.Second) // the slow clients are connected and trickling
	row(*bin, dir, proxy, fmt.Sprintf("%d bodies + %d heads at 1 byte/s", *slow, *slow), *rate, *duration)
	cancel()
	wg.Wait()
}

// trickle sends head, then one byte a second (reconnecting when the server
// closes) until ctx ends.
func trickle(ctx context.Context, addr, head string, b byte) {
	for ctx.Err() == nil {
		c, err := net.DialTimeout("tcp", addr, 2*time.Second)
		if err != nil {
			return
		}
		go func() { <-ctx.Done(); c.Close() }()
		if _, err := io.WriteString(c, head); err == nil {
			for ctx.Err() == nil {
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
				if _, err := c.Write([]byte{b}); err != nil {
					break
				}
			}
		}
		c.Close()
	}
}

// row attacks url and prints one line of the table.
func row(bin, dir, url, name, rate string, d time.Duration) {
	out := filepath.Join(dir, fmt.Sprintf("normal-%d.lll", time.Now().UnixNano()))
	rep, err := labproc.Attack(bin, out, "GET "+url+"/news\n", "-rate="+rate, "-duration="+d.String(), "-timeout=5s")
	if err != nil {
		fail(err)
	}
	fmt.Printf("| %s | %d | %d | %v | %v | %v |\n", name, rep.Requests, rep.StatusCodes["200"],
		rep.Latencies.P50.Round(time.Microsecond), rep.Latencies.P99.Round(time.Microsecond), rep.Latencies.Max.Round(time.Microsecond))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "slowclient:", err)
	os.Exit(2)
}
