// Command shards benchmarks one attack split into shard processes on one
// machine against nginx (Debian's, on loopback): by default 4 shards of
// 5,000 req/s each for 30 s, started together with -start-at. It prints,
// per shard, the requests, the CPU it used, when its first request went
// out against when it was due, and its largest schedule lag; then the
// shard-start skew (the spread of the first requests' lateness), and
// checks that `loadlab report` of the shard files counts exactly the sum
// of the shards.
//
//	go build -o bin/loadlab ./cmd/loadlab && go run ./bench/shards
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loadlab/loadlab/bench/machine"
	"github.com/loadlab/loadlab/internal/results"
)

func main() {
	n := flag.Int("shards", 4, "shard processes")
	rate := flag.Int("rate", 5000, "requests per second per shard")
	dur := flag.Duration("duration", 30*time.Second, "attack duration")
	bin := flag.String("loadlab", "bin/loadlab", "the loadlab binary")
	port := flag.Int("port", 18480, "nginx's loopback port")
	flag.Parse()
	dir, err := os.MkdirTemp("", "loadlab-bench-shards")
	check(err)
	defer os.RemoveAll(dir)

	stopNginx := startNginx(dir, *port)
	defer stopNginx()

	target := fmt.Sprintf("GET http://127.0.0.1:%d/x\n", *port)
	global := *rate * *n
	start := time.Now().Add(3 * time.Second).UTC()
	files := make([]string, *n)
	cpu := make([]time.Duration, *n)
	var wg sync.WaitGroup
	for i := range files {
		files[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.lll", i+1))
		cmd := exec.Command(*bin, "attack", "-quiet", "-shard", fmt.Sprintf("%d/%d", i+1, *n), "-rate", fmt.Sprintf("%d/s", global),
			"-duration", dur.String(), "-start-at", start.Format(time.RFC3339Nano), "-output", files[i])
		cmd.Stdin = strings.NewReader(target)
		cmd.Stderr = os.Stderr
		wg.Add(1)
		go func() {
			defer wg.Done()
			check(cmd.Run())
			cpu[i] = machine.ChildCPU(cmd.ProcessState)
		}()
	}
	wg.Wait()

	fmt.Printf("%d shards x %d req/s (%d req/s in all) for %s against nginx on loopback, started together at -start-at\n\n", *n, *rate, global, *dur)
	fmt.Printf("%-8s %10s %10s %12s %14s %12s %12s %10s\n", "shard", "requests", "CPU s", "µs/request", "first late by", "lag p99", "lag max", "success")
	var total uint64
	var firstMin, firstMax time.Duration
	for i, f := range files {
		src, err := results.Open(f)
		check(err)
		var r results.Result
		var count, ok uint64
		var first time.Duration
		var firstDue time.Time
		var lagMax time.Duration
		var lags []time.Duration
		for src.Decode(&r) == nil {
			// The shard's first request is its earliest due, whatever
			// order the answers came back in.
			if !r.Sent.IsZero() && (firstDue.IsZero() || r.Due.Before(firstDue)) {
				firstDue, first = r.Due, r.Sent.Sub(r.Due)
			}
			if !r.Sent.IsZero() {
				lag := max(r.Sent.Sub(r.Due), 0)
				lags = append(lags, lag)
				lagMax = max(lagMax, lag)
			}
			if r.Code >= 200 && r.Code < 400 {
				ok++
			}
			count++
		}
		src.Close()
		total += count
		if i == 0 || first < firstMin {
			firstMin = first
		}
		if i == 0 || first > firstMax {
			firstMax = first
		}
		slices.Sort(lags)
		var p99 time.Duration
		if len(lags) > 0 {
			p99 = lags[len(lags)*99/100]
		}
		fmt.Printf("%-8d %10d %10.2f %12.2f %14s %12s %12s %9.2f%%\n", i+1, count, cpu[i].Seconds(), float64(cpu[i].Microseconds())/float64(count),
			first.Round(time.Microsecond), p99.Round(time.Microsecond), lagMax.Round(time.Microsecond), 100*float64(ok)/float64(count))
	}
	out, err := exec.Command(*bin, append([]string{"report"}, files...)...).Output()
	check(err)
	m := regexp.MustCompile(`Requests\s+\[total, rate, throughput\]\s+(\d+), ([\d.]+),`).FindSubmatch(out)
	if m == nil {
		fmt.Fprintf(os.Stderr, "no totals in the merged report:\n%s", out)
		os.Exit(1)
	}
	merged, _ := strconv.ParseUint(string(m[1]), 10, 64)
	fmt.Printf("\nshard-start skew (spread of the first requests' lateness): %s\n", (firstMax - firstMin).Round(time.Microsecond))
	fmt.Printf("merged report: %d requests at %s/s (sum of the shards: %d, %s)\n", merged, m[2], total, map[bool]string{true: "equal", false: "DIFFERENT"}[merged == total])
	if merged != total {
		os.Exit(1)
	}
}

// startNginx serves 204s on the loopback port with a configuration of its
// own (one worker per core, access log off) and returns its stop.
func startNginx(dir string, port int) func() {
	if _, err := exec.LookPath("nginx"); err != nil {
		fmt.Fprintln(os.Stderr, "bench/shards: nginx not found (apt-get install -y nginx-light)")
		os.Exit(2)
	}
	conf := filepath.Join(dir, "nginx.conf")
	os.MkdirAll(filepath.Join(dir, "nginx"), 0o755)
	check(os.WriteFile(conf, []byte(fmt.Sprintf(`daemon off;
worker_processes auto;
pid %[1]s/nginx/nginx.pid;
error_log %[1]s/nginx/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path %[1]s/nginx/body;
  proxy_temp_path %[1]s/nginx/proxy;
  fastcgi_temp_path %[1]s/nginx/fastcgi;
  uwsgi_temp_path %[1]s/nginx/uwsgi;
  scgi_temp_path %[1]s/nginx/scgi;
  keepalive_requests 1000000;
  server { listen 127.0.0.1:%[2]d; location / { return 204; } }
}
`, dir, port)), 0o644))
	cmd := exec.Command("nginx", "-c", conf, "-p", filepath.Join(dir, "nginx"))
	cmd.Stderr = os.Stderr
	check(cmd.Start())
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return func() { cmd.Process.Signal(syscall.SIGQUIT); cmd.Wait() }
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
