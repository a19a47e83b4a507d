// Command idleconns checks that 10,000 idle keep-alive connections to the
// origin simulator or the proxy do not stop them from serving normal
// requests quickly: it measures an attack's latency against each server
// without idle connections, then with N of them held open (each has served
// one request, so it is a keep-alive connection the server must watch),
// and prints p50/p99 side by side. Goal: p99 under 10 ms with 10,000 idle.
//
//	go run ./bench/idleconns [-idle 10000] [-rate 200/s] [-duration 10s]
//
// Loopback only; the servers and the attack are the real loadlab binary.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/loadlab/loadlab/bench/labproc"
	"github.com/loadlab/loadlab/bench/machine"
)

func main() {
	idle := flag.Int("idle", 10000, "idle keep-alive connections to hold open")
	rate := flag.String("rate", "200/s", "attack rate")
	duration := flag.Duration("duration", 10*time.Second, "attack duration per measurement")
	flag.Parse()
	dir, err := os.MkdirTemp("", "loadlab-idle-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	raiseFileLimit()
	bin, err := labproc.Build(dir)
	if err != nil {
		fail(err)
	}
	recipe := filepath.Join(dir, "recipe.json")
	_ = os.WriteFile(recipe, []byte(`{"body": "ok", "stages": [{"at": 0, "status": 200}]}`), 0o644)
	origin, stopOrigin := labproc.Server(bin, "origin", "-recipe", recipe, "-listen", "127.0.0.1:0", "-quiet")
	defer stopOrigin()
	cfg := filepath.Join(dir, "proxy.yaml")
	_ = os.WriteFile(cfg, []byte("pools:\n  default: {size: 16}\nroutes:\n  - {name: all, path: /*, upstream: "+origin+"}\n"), 0o644)
	proxy, stopProxy := labproc.Server(bin, "proxy", "-config", cfg, "-listen", "127.0.0.1:0")
	defer stopProxy()

	fmt.Printf("idleconns: %d idle keep-alive connections, attack %s for %v (%s, load average %s)\n\n",
		*idle, *rate, *duration, time.Now().UTC().Format(time.RFC3339), machine.LoadAvg())
	fmt.Println("| server | idle connections | requests | success | p50 | p99 | max |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, srv := range []struct{ name, url string }{{"origin", origin}, {"proxy", proxy}} {
		row(bin, dir, srv.name, srv.url, 0, *rate, *duration)
		conns := openIdle(srv.url, *idle)
		row(bin, dir, srv.name, srv.url, len(conns), *rate, *duration)
		for _, c := range conns {
			c.Close()
		}
	}
}

// row attacks url and prints one line of the table.
func row(bin, dir, name, url string, idle int, rate string, d time.Duration) {
	out := filepath.Join(dir, fmt.Sprintf("%s-%d.lll", name, idle))
	rep, err := labproc.Attack(bin, out, "GET "+url+"/x\n", "-rate="+rate, "-duration="+d.String())
	if err != nil {
		fail(err)
	}
	fmt.Printf("| %s | %d | %d | %.2f%% | %v | %v | %v |\n", name, idle, rep.Requests, 100*rep.Success,
		rep.Latencies.P50.Round(time.Microsecond), rep.Latencies.P99.Round(time.Microsecond), rep.Latencies.Max.Round(time.Microsecond))
}

// openIdle opens n connections to url and sends one request on each, so
// each becomes an idle keep-alive connection the server keeps watching.
func openIdle(url string, n int) []net.Conn {
	addr := strings.TrimPrefix(url, "http://")
	conns := make([]net.Conn, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	work := make(chan int)
	for w := 0; w < 64; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err == nil {
					_ = c.SetDeadline(time.Now().Add(10 * time.Second))
					_, err = io.WriteString(c, "GET /idle HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
					if err == nil {
						var resp *http.Response
						resp, err = http.ReadResponse(bufio.NewReader(c), nil)
						if err == nil {
							_, _ = io.Copy(io.Discard, resp.Body)
							resp.Body.Close()
						}
					}
					_ = c.SetDeadline(time.Time{})
				}
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				conns[i] = c
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	if firstErr != nil {
		fail(fmt.Errorf("opening idle connections to %s: %v", url, firstErr))
	}
	return conns
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "idleconns:", err)
	os.Exit(2)
}
