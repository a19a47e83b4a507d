package main

import (
	"context"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loadlab/loadlab/bench/labproc"
	"github.com/loadlab/loadlab/bench/machine"
	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/blackbox"
	"github.com/loadlab/loadlab/internal/model"
	"github.com/loadlab/loadlab/internal/model/lab"
	"github.com/loadlab/loadlab/internal/origin/recipe"
	"github.com/loadlab/loadlab/internal/proxy/config"
	"github.com/loadlab/loadlab/internal/targets"
)

// boxOrigin is what every system of the black-box bench fronts: `loadlab
// origin` answering 200 after 50 ms.
const boxOrigin = `{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "50ms"}]}`

// boxCase is one system no one here wrote, started in front of origins.
type boxCase struct {
	name string
	// origins is how many `loadlab origin` processes it fronts.
	origins int
	// capacity is the configured capacity: servers / the origin's 50 ms.
	capacity float64
	// start writes the system's config into dir, starts it in front of
	// the origins' host:port and returns its URL and how to stop it.
	start func(dir string, origins []string) (string, func(), error)
	// proxyYAML, for the playground proxy, is its config: its own model is
	// the reference.
	proxyYAML string
	// recipe is the origins' recipe (default boxOrigin); contention, when
	// set, the slowdown it configures, which the fit must find.
	recipe     string
	contention *recipe.Contention
}

// contendedOrigin answers in 50 ms slowed by the requests in service, as
// a service contending for a lock (σ) and its caches (κ) would: at 8 in
// service each takes 50 ms × 1.91, so 8 servers hold 8 / 95.5 ms = 84/s.
// A stand-in: `loadlab origin` sleeps longer, it does not contend.
const contendedOrigin = `{"route": "/*", "stages": [{"at": 0, "status": 200, "latency": "50ms", "contention": {"sigma": 0.05, "kappa": 0.01}}]}`

var contended = recipe.Contention{Sigma: 0.05, Kappa: 0.01}

// The ports of the bench's servers (the session's range 28000-28999).
const (
	portHAProxy    = 28101
	portHAProxyRR  = 28102
	portNginxKeep  = 28201
	portNginxLimit = 28202
	portHAProxyUSL = 28103
	portHAProxyPy  = 28104
	portPython     = 28301
)

const playgroundProxy = `pools:
  default: {size: 8, overflow: 0, checkout_timeout: 300ms, timeout_status: 503, manager: concurrent}
routes:
  - {path: /*, upstream: "` + lab.UpstreamPlaceholder + `", pool: default, request_timeout: 5s}
`

func boxCases(bin string) []boxCase {
	return []boxCase{
		{name: "HAProxy: 1 server, maxconn 8, timeout queue 300ms", origins: 1, capacity: 8 / 0.05,
			start: func(dir string, o []string) (string, func(), error) {
				return startHAProxy(dir, portHAProxy, fmt.Sprintf("  timeout queue 300ms\n  server o1 %s maxconn 8\n", o[0]))
			}},
		{name: "HAProxy: 2 servers roundrobin, maxconn 6 each, timeout queue 200ms", origins: 2, capacity: 12 / 0.05,
			start: func(dir string, o []string) (string, func(), error) {
				return startHAProxy(dir, portHAProxyRR, fmt.Sprintf("  balance roundrobin\n  timeout queue 200ms\n  server o1 %s maxconn 6\n  server o2 %s maxconn 6\n", o[0], o[1]))
			}},
		{name: "nginx: upstream keepalive 8, max_conns 8", origins: 1, capacity: 8 / 0.05,
			start: func(dir string, o []string) (string, func(), error) {
				return startNginx(dir, portNginxKeep, fmt.Sprintf("upstream o { server %s max_conns=8; keepalive 8; }", o[0]),
					"proxy_pass http://o; proxy_http_version 1.1; proxy_set_header Connection \"\";")
			}},
		{name: "nginx: limit_conn 8 (503)", origins: 1, capacity: 8 / 0.05,
			start: func(dir string, o []string) (string, func(), error) {
				return startNginx(dir, portNginxLimit, "limit_conn_zone $server_port zone=c:1m;",
					fmt.Sprintf("limit_conn c 8; limit_conn_status 503; proxy_pass http://%s;", o[0]))
			}},
		{name: "contention: HAProxy maxconn 8, timeout queue 300ms, origin σ 0.05 κ 0.01", origins: 1, capacity: 8 / (0.05 * contended.Factor(8)),
			recipe: contendedOrigin, contention: &contended,
			start: func(dir string, o []string) (string, func(), error) {
				return startHAProxy(dir, portHAProxyUSL, fmt.Sprintf("  timeout queue 300ms\n  server o1 %s maxconn 8\n", o[0]))
			}},
		{name: "contention: loadlab proxy pool 8, checkout 300ms -> 503, origin σ 0.05 κ 0.01", origins: 1, capacity: 8 / (0.05 * contended.Factor(8)),
			proxyYAML: playgroundProxy, recipe: contendedOrigin, contention: &contended, start: startPlayground(bin)},
		{name: "contention: HAProxy maxconn 8 in front of Debian's python3 (40 ms sleep + 6 ms CPU under the GIL)",
			start: func(dir string, _ []string) (string, func(), error) {
				return startPython(dir, portPython, portHAProxyPy)
			}},
		{name: "loadlab proxy: pool 8, checkout 300ms -> 503", origins: 1, capacity: 8 / 0.05, proxyYAML: playgroundProxy, start: startPlayground(bin)},
	}
}

// startPlayground starts `loadlab proxy` with playgroundProxy in front of
// the first origin.
func startPlayground(bin string) func(dir string, o []string) (string, func(), error) {
	return func(dir string, o []string) (string, func(), error) {
		cfile := filepath.Join(dir, "proxy.yaml")
		y := strings.Replace(playgroundProxy, lab.UpstreamPlaceholder, "http://"+o[0], 1)
		if err := os.WriteFile(cfile, []byte(y), 0o644); err != nil {
			return "", nil, err
		}
		url, cmd, err := labproc.Start(context.Background(), nil, bin, "proxy", "-config", cfile, "-upstream", "http://"+o[0], "-listen", "127.0.0.1:0")
		if err != nil {
			return "", nil, err
		}
		return url, func() { labproc.Stop(cmd) }, nil
	}
}

// pythonServer is a service with genuine contention: each request
// sleeps 40 ms (its I/O), then spins 6 ms of CPU holding Python's global
// interpreter lock, so requests in service queue for the lock (and the 2
// cores) — the slowdown is the runtime's, not a formula's.
const pythonServer = `import sys, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        time.sleep(0.040)
        end = time.thread_time() + 0.006
        x = 0
        while time.thread_time() < end:
            for i in range(1000):
                x += i
        self.send_response(200)
        self.send_header("Content-Length", "3")
        self.end_headers()
        self.wfile.write(b"ok\n")
    def log_message(self, *a):
        pass
ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
`

// startPython runs pythonServer with Debian's python3 on pyPort and
// HAProxy (maxconn 8, timeout queue 300ms) in front of it on port.
func startPython(dir string, pyPort, port int) (string, func(), error) {
	file := filepath.Join(dir, "server.py")
	if err := os.WriteFile(file, []byte(pythonServer), 0o644); err != nil {
		return "", nil, err
	}
	_, stopPy, err := startServer(dir, pyPort, "/usr/bin/python3", file, strconv.Itoa(pyPort))
	if err != nil {
		return "", nil, err
	}
	url, stopHA, err := startHAProxy(dir, port, fmt.Sprintf("  timeout queue 300ms\n  server py 127.0.0.1:%d maxconn 8\n", pyPort))
	if err != nil {
		stopPy()
		return "", nil, err
	}
	return url, func() { stopHA(); stopPy() }, nil
}

// startHAProxy runs Debian's haproxy in the foreground with one backend
// whose lines are backend.
func startHAProxy(dir string, port int, backend string) (string, func(), error) {
	cfg := fmt.Sprintf(`global
  maxconn 4000
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
frontend fe
  bind 127.0.0.1:%d
  default_backend be
backend be
%s`, port, backend)
	file := filepath.Join(dir, fmt.Sprintf("haproxy-%d.cfg", port))
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		return "", nil, err
	}
	return startServer(dir, port, "haproxy", "-db", "-f", file)
}

// startNginx runs Debian's nginx in the foreground (one worker) with http
// lines httpExtra and the location's lines loc.
func startNginx(dir string, port int, httpExtra, loc string) (string, func(), error) {
	d := filepath.Join(dir, fmt.Sprintf("nginx-%d", port))
	if err := os.MkdirAll(filepath.Join(d, "tmp"), 0o755); err != nil {
		return "", nil, err
	}
	cfg := fmt.Sprintf(`worker_processes 1;
error_log %[1]s/error.log;
pid %[1]s/nginx.pid;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path %[1]s/tmp/body; proxy_temp_path %[1]s/tmp/proxy; fastcgi_temp_path %[1]s/tmp/fcgi;
  uwsgi_temp_path %[1]s/tmp/uwsgi; scgi_temp_path %[1]s/tmp/scgi;
  %[2]s
  server { listen 127.0.0.1:%[3]d; location / { %[4]s } }
}
`, d, httpExtra, port, loc)
	file := filepath.Join(d, "nginx.conf")
	if err := os.WriteFile(file, []byte(cfg), 0o644); err != nil {
		return "", nil, err
	}
	return startServer(dir, port, "nginx", "-p", d, "-e", filepath.Join(d, "error.log"), "-c", file, "-g", "daemon off;")
}

// startServer starts a Debian server by its PID and waits up to 10 s for
// its port; the stop function ends that PID (and its process group: nginx
// forks its worker) and reaps it.
func startServer(dir string, port int, name string, args ...string) (string, func(), error) {
	cmd := exec.Command(name, args...)
	ownGroup(cmd)
	logf, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.log", filepath.Base(name), port)))
	if err != nil {
		return "", nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return "", nil, err
	}
	stop := func() {
		signalGroup(cmd, false)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			signalGroup(cmd, true)
			<-done
		}
		logf.Close()
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return "http://" + addr, stop, nil
		}
	}
	stop()
	log, _ := os.ReadFile(logf.Name())
	return "", nil, fmt.Errorf("%s did not listen on %s within 10 s: %s", name, addr, strings.TrimSpace(string(log)))
}

// blackboxes calibrates each system through its URL alone, then holds the
// fitted queue's predictions against real attacks at 0.5 to 2 times the
// fitted knee.
func blackboxes(bin string, d time.Duration, only string, calStep time.Duration) error {
	if bin == "" {
		b, cleanup, err := buildBinary()
		if err != nil {
			return err
		}
		defer cleanup()
		bin = b
	}
	dir, err := os.MkdirTemp("", "bench-blackbox-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	const timeout = 5 * time.Second
	fmt.Printf("Black boxes: real servers on loopback in front of `loadlab origin` (50 ms), calibrated by blackbox.Calibrate (%v probes), then attacked %v per rate; %s, load average %s\n\n",
		calStep, d, time.Now().UTC().Format("2006-01-02 15:04 UTC"), machine.LoadAvg())
	fmt.Println("| system | knee fitted │ configured | calibration requests │ search | rate/s | success model │ real | p50 model │ real | p99 model │ real | within 3 pts / 10% |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | ---: | ---: | :---: |")
	var total, good, ownTotal, ownGood int
	var closed []string
	var findings []string
	for _, c := range boxCases(bin) {
		if only != "" && !strings.Contains(c.name, only) {
			continue
		}
		var origins []string
		var stops []func()
		stopAll := func() {
			for i := len(stops) - 1; i >= 0; i-- {
				stops[i]()
			}
		}
		if c.recipe == "" {
			c.recipe = boxOrigin
		}
		rfile := filepath.Join(dir, "recipe.json")
		if err := os.WriteFile(rfile, []byte(c.recipe), 0o644); err != nil {
			return err
		}
		for range c.origins {
			url, cmd, err := labproc.Start(context.Background(), nil, bin, "origin", "-recipe", rfile, "-listen", "127.0.0.1:0", "-seed", "1")
			if err != nil {
				stopAll()
				return err
			}
			stops = append(stops, func() { labproc.Stop(cmd) })
			origins = append(origins, strings.TrimPrefix(url, "http://"))
		}
		url, stop, err := c.start(dir, origins)
		if err != nil {
			stopAll()
			return fmt.Errorf("%s: %v", c.name, err)
		}
		stops = append(stops, stop)
		var calLog strings.Builder
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		f, err := blackbox.Calibrate(ctx, blackbox.Options{Target: "GET " + url + "/page", Step: calStep, Timeout: timeout, Log: &calLog})
		cancel()
		if err != nil {
			stopAll()
			return fmt.Errorf("%s: calibration: %v\n%s", c.name, err, calLog.String())
		}
		fmt.Fprintf(os.Stderr, "%s\n%s", c.name, calLog.String())
		blackbox.WriteFit(os.Stderr, f)
		knee := f.Capacity
		if math.IsInf(knee, 0) || knee <= 0 {
			knee = c.capacity
		}
		// The capacity search the calibration replaces: about 12 probes
		// (internal/experiment/search.go) of a 10 s step near the knee.
		search := 12 * 10 * knee
		kneeMark, configured := "yes", fmt.Sprintf("%.0f", c.capacity)
		switch {
		case c.capacity == 0: // nothing configures it: the real attacks judge
			kneeMark, configured = "not configured", "?"
		case math.Abs(f.Capacity-c.capacity) > 0.05*c.capacity:
			kneeMark = "no"
		}
		first := true
		for _, x := range []float64{0.5, 0.8, 1.2, 2.0} {
			rate := math.Round(x * knee)
			sch, err := schedule.Parse(strconv.FormatFloat(rate, 'f', -1, 64)+"/s", d)
			if err != nil {
				stopAll()
				return err
			}
			in, err := f.Input(sch, timeout, 1)
			if err != nil {
				stopAll()
				return err
			}
			pr, err := model.Predict(in)
			if err != nil {
				stopAll()
				return err
			}
			m, err := lab.Attack(url+"/page", sch, timeout)
			if err != nil {
				stopAll()
				return err
			}
			row := func(label string, p *model.ScenarioPrediction, own bool) {
				ok := math.Abs(p.Success-m.Success) <= 0.03 && agree(p.Latencies.P50, m.P50) && agree(p.Latencies.P99, m.P99)
				mark := "no"
				if ok {
					mark = "yes"
				}
				if own {
					ownTotal++
					if ok {
						ownGood++
					}
				} else {
					total++
					if ok {
						good++
					}
				}
				head := fmt.Sprintf("| %s | | |", label)
				if first {
					head = fmt.Sprintf("| %s | %.0f │ %s (%s) | %d │ %.0f |", label, f.Capacity, configured, kneeMark, f.Requests, search)
					first = false
				}
				fmt.Printf("%s %.0f (%.1fx) | %.2f%% │ %.2f%% | %s │ %s | %s │ %s | %s |\n", head, rate, x, 100*p.Success, 100*m.Success,
					ms(p.Latencies.P50), ms(m.P50), ms(p.Latencies.P99), ms(m.P99), mark)
			}
			label := ""
			if first {
				label = c.name
			}
			row(label, pr.Scenarios[0], false)
			if c.proxyYAML != "" {
				own, err := ownModel(c.proxyYAML, c.recipe, sch, timeout)
				if err != nil {
					stopAll()
					return err
				}
				row("↳ its own model, same run", own, true)
			}
		}
		// Closed loops: half and twice the fitted servers as users, each
		// sending its next request when the previous is answered.
		for _, users := range []int{max(1, f.Servers/2), 2 * f.Servers} {
			sch, err := schedule.Parse("0", d)
			if err != nil {
				stopAll()
				return err
			}
			in, err := f.Input(sch, timeout, 1)
			if err != nil {
				stopAll()
				return err
			}
			in.Scenarios[0].Workers = users
			pr, err := model.Predict(in)
			if err != nil {
				stopAll()
				return err
			}
			m, gotX, err := lab.AttackClosed(url+"/page", users, d, timeout)
			if err != nil {
				stopAll()
				return err
			}
			p := pr.Scenarios[0]
			predX := p.Success * float64(p.Requests) / d.Seconds()
			ok := math.Abs(predX-gotX) <= 0.1*gotX && agree(p.Latencies.P50, m.P50) && agree(p.Latencies.P99, m.P99)
			closed = append(closed, fmt.Sprintf("| %s | %d | %.0f │ %.0f | %s │ %s | %s │ %s | %s |", c.name, users, predX, gotX,
				ms(p.Latencies.P50), ms(m.P50), ms(p.Latencies.P99), ms(m.P99), yesNo(ok)))
		}
		for _, n := range f.Notes {
			findings = append(findings, c.name+": "+n)
		}
		if u := f.USL; u != nil {
			line := fmt.Sprintf("%s: contention σ %.4f (95%%: %.4f..%.4f), κ %.5f (95%%: %.5f..%.5f), slowdown ×%.2f at %d in service (95%%: ×%.2f..×%.2f), significant: %v",
				c.name, u.Sigma, u.SigmaCI[0], u.SigmaCI[1], u.Kappa, u.KappaCI[0], u.KappaCI[1], u.Factor(u.Top), u.Top, u.SlowdownCI[0], u.SlowdownCI[1], u.Significant)
			if k := c.contention; k != nil {
				line += fmt.Sprintf("; configured σ %.2f κ %.2f (×%.2f at %d, ×%.2f at 8): fitted ×%.2f at 8", k.Sigma, k.Kappa, k.Factor(u.Top), u.Top, k.Factor(8), u.Factor(8))
			}
			findings = append(findings, line)
		}
		findings = append(findings, fmt.Sprintf("%s: fitted %d servers (%.1f..%.1f), service %v, queue %s %v -> %d", c.name, f.Servers, f.ServersCI[0], f.ServersCI[1], f.ServiceMean.Round(10*time.Microsecond), f.Queue, f.QueueTimeout.Round(10*time.Microsecond), f.RefusalStatus))
		stopAll()
	}
	fmt.Printf("\nfitted queues: %d of %d points within 3 points of success and 10%% (or 10 ms) of p50 and p99; the playground proxy's own model: %d of %d (load average after: %s)\n\n", good, total, ownGood, ownTotal, machine.LoadAvg())
	fmt.Println("Closed loops through the same fits: N users, each sending its next request when the previous is answered (attack -rate=0 -max-workers N)")
	fmt.Println()
	fmt.Println("| system | users | throughput/s model │ real | p50 model │ real | p99 model │ real | within 10% |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | :---: |")
	for _, l := range closed {
		fmt.Println(l)
	}
	fmt.Println()
	for _, s := range findings {
		fmt.Println("- " + s)
	}
	return nil
}

// ownModel is the playground proxy's own model of the same attack: the
// reference for its fitted queue.
func ownModel(cfgYAML, originRecipe string, sch *schedule.Schedule, timeout time.Duration) (*model.ScenarioPrediction, error) {
	cfg, err := config.Parse([]byte(cfgYAML), "playground proxy")
	if err != nil {
		return nil, err
	}
	rs, err := recipe.Parse([]byte(originRecipe))
	if err != nil {
		return nil, err
	}
	ts, err := targets.ReadAll(strings.NewReader("GET http://proxy.model.invalid/page"), targets.Options{})
	if err != nil {
		return nil, err
	}
	pr, err := model.Predict(model.Input{Proxy: cfg, Origin: rs, Seed: 1, Scenarios: []model.Scenario{{Name: "s", Schedule: sch, Targets: ts, ToProxy: []bool{true}, Timeout: timeout}}})
	if err != nil {
		return nil, err
	}
	return pr.Scenarios[0], nil
}

// buildBinary builds ./cmd/loadlab into a temporary folder.
func buildBinary() (string, func(), error) {
	dir, err := os.MkdirTemp("", "bench-model-")
	if err != nil {
		return "", nil, err
	}
	bin, err := labproc.Build(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}
