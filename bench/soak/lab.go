package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/loadlab/loadlab/bench/labproc"
)

// proc is one process of the lab.
type proc struct {
	name    string
	cmd     *exec.Cmd
	metrics string // Prometheus page with go_goroutines, or ""
	output  string // results file of an attack
}

// lab is the running origin, proxy and attacks.
type lab struct {
	bin, dir  string
	originURL string
	proxyURL  string
	procs     []*proc
}

const originRecipe = `[
 {"route": "/search*", "random_content": "2kb",
  "stages": [{"at": 0, "status": 200, "latency": "30ms", "faults": {"reset": 0.01, "hang": 0.01}}]},
 {"route": "/flaky", "body": "flaky but fine",
  "headers": {"cache-control": "public, max-age=5"},
  "stages": [{"at": 0, "status": 200, "latency": "10ms"}]}
]`

// flakyDown is what /flaky serves for 10 s of every minute.
const flakyDown = `{"route": "/flaky", "body": "down", "stages": [{"at": 0, "status": 503, "latency": "10ms"}]}`

const flakyUp = `{"route": "/flaky", "body": "flaky but fine", "headers": {"cache-control": "public, max-age=5"},
 "stages": [{"at": 0, "status": 200, "latency": "10ms"}]}`

const proxyConfig = `pools:
  search: {size: 8, overflow: 64, checkout_timeout: 1s, manager: serial}
  flaky: {size: 8, checkout_timeout: 1s}
routes:
  - name: search
    path: /search*
    pool: search
    upstream: ORIGIN
    request_timeout: 1s
  - name: flaky
    path: /flaky
    pool: flaky
    upstream: ORIGIN
    request_timeout: 1s
    fallback: true
    cache: true
    breaker: {window: 5s, threshold: 20, recovery: ramp}
`

// startLab starts origin and proxy, then the attacks, which end by
// themselves after d.
func startLab(ctx context.Context, bin, dir string, d time.Duration) (*lab, error) {
	l := &lab{bin: bin, dir: dir}
	recipe := filepath.Join(dir, "recipe.json")
	if err := os.WriteFile(recipe, []byte(originRecipe), 0o644); err != nil {
		return nil, err
	}
	var err error
	l.originURL, err = l.server(ctx, "origin", "/_admin/metrics", "origin", "-recipe", recipe, "-listen", "127.0.0.1:0", "-seed", "7")
	if err != nil {
		return nil, err
	}
	cfg := filepath.Join(dir, "proxy.yaml")
	if err := os.WriteFile(cfg, []byte(strings.ReplaceAll(proxyConfig, "ORIGIN", l.originURL)), 0o644); err != nil {
		return nil, err
	}
	l.proxyURL, err = l.server(ctx, "proxy", "/metrics", "proxy", "-config", cfg, "-listen", "127.0.0.1:0")
	if err != nil {
		l.stop()
		return nil, err
	}
	dur := d.String()
	attacks := []struct{ name, target string }{
		{"search", "GET " + l.proxyURL + "/search?q={{rand.letters 20}}\n"},
		{"flaky", "GET " + l.proxyURL + "/flaky\n"},
		{"direct", "GET " + l.originURL + "/search?direct={{seq}}\n"},
	}
	args := map[string][]string{
		"search": {"-rate=200/s", "-timeout=3s"},
		"flaky":  {"-rate=50/s", "-timeout=3s"},
		"direct": {"-rate=50/s", "-timeout=3s", "-keepalive=false"},
	}
	for _, a := range attacks {
		out := filepath.Join(dir, a.name+".lll")
		full := append([]string{"attack", "-name=" + a.name, "-duration=" + dur, "-output=" + out}, args[a.name]...)
		cmd := exec.Command(bin, full...)
		cmd.Stdin = strings.NewReader(a.target)
		log, err := os.Create(filepath.Join(dir, a.name+".log"))
		if err != nil {
			l.stop()
			return nil, err
		}
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			l.stop()
			return nil, err
		}
		l.procs = append(l.procs, &proc{name: "attack " + a.name, cmd: cmd, output: out})
	}
	return l, nil
}

// server starts a loadlab server and waits for its "listening on" line.
func (l *lab) server(ctx context.Context, name, metricsPath string, args ...string) (string, error) {
	log, err := os.Create(filepath.Join(l.dir, name+".log"))
	if err != nil {
		return "", err
	}
	u, cmd, err := labproc.Start(ctx, log, l.bin, args...)
	if err != nil {
		return "", fmt.Errorf("%v (see %s.log)", err, name)
	}
	l.procs = append(l.procs, &proc{name: name, cmd: cmd, metrics: u + metricsPath})
	return u, nil
}

// run samples every interval until the attacks end (or ctx does), and
// flips /flaky down for 10 s of every minute.
func (l *lab) run(ctx context.Context, d, interval time.Duration) map[key][]point {
	series := map[key][]point{}
	start := time.Now()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	flip := time.NewTicker(10 * time.Second)
	defer flip.Stop()
	end := time.After(d + 5*time.Second)
	sample := func() {
		at := time.Since(start)
		for _, p := range l.procs {
			if p.cmd.ProcessState != nil {
				continue
			}
			for res, v := range readProc(p.cmd.Process.Pid) {
				series[key{p.name, res}] = append(series[key{p.name, res}], point{at, v})
			}
			if p.metrics != "" {
				if g, ok := goroutines(ctx, p.metrics); ok {
					series[key{p.name, "goroutines"}] = append(series[key{p.name, "goroutines"}], point{at, g})
				}
			}
		}
	}
	sample()
	for n := 1; ; {
		select {
		case <-ctx.Done():
			return series
		case <-end:
			return series
		case <-tick.C:
			sample()
		case <-flip.C:
			// Minute by minute: down from 20 s to 30 s, up again after.
			switch n % 6 {
			case 2:
				l.loadRecipe(ctx, flakyDown)
			case 3:
				l.loadRecipe(ctx, flakyUp)
			}
			n++
		}
	}
}

func (l *lab) loadRecipe(ctx context.Context, recipe string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, l.originURL+"/_admin/add_recipe", strings.NewReader(recipe))
	if err != nil {
		return
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// checkAccounting waits for the attacks and checks, with loadlab report,
// that every request each scheduled is in its results exactly once.
func (l *lab) checkAccounting(ctx context.Context) error {
	for _, p := range l.procs {
		if p.output == "" {
			continue
		}
		if err := p.cmd.Wait(); err != nil {
			return fmt.Errorf("%s: %v (see its log)", p.name, err)
		}
		out, err := exec.CommandContext(ctx, l.bin, "report", "-type=json", p.output).Output()
		if err != nil {
			return fmt.Errorf("report of %s: %v", p.name, err)
		}
		var rep struct {
			Requests   uint64 `json:"requests"`
			Success    float64
			Accounting *struct {
				Scheduled uint64 `json:"scheduled"`
				Complete  bool   `json:"complete"`
				Missing   uint64 `json:"missing"`
				Twice     uint64 `json:"twice"`
			} `json:"accounting"`
		}
		if err := json.Unmarshal(bytes.TrimSpace(out), &rep); err != nil {
			return fmt.Errorf("report of %s: %v", p.name, err)
		}
		if rep.Accounting == nil || !rep.Accounting.Complete {
			return fmt.Errorf("%s: requests not accounted for: %+v", p.name, rep.Accounting)
		}
		fmt.Printf("soak: %s: %d requests scheduled, all recorded once, success %.2f%%\n", p.name, rep.Accounting.Scheduled, 100*rep.Success)
	}
	return nil
}

// checkBreaker checks the /flaky breaker opened and closed again.
func (l *lab) checkBreaker(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.proxyURL+"/status", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var st struct {
		Routes []struct {
			Name    string `json:"name"`
			Breaker *struct {
				State       string            `json:"state"`
				Transitions map[string]uint64 `json:"transitions"`
			} `json:"breaker"`
		} `json:"routes"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		return err
	}
	for _, r := range st.Routes {
		if r.Name != "flaky" || r.Breaker == nil {
			continue
		}
		var opened uint64
		for k, n := range r.Breaker.Transitions {
			if strings.HasPrefix(k, "closed->") {
				opened += n
			}
		}
		if opened == 0 {
			return fmt.Errorf("the /flaky breaker never opened (transitions %v)", r.Breaker.Transitions)
		}
		fmt.Printf("soak: /flaky breaker opened %d times, now %s (transitions %v)\n", opened, r.Breaker.State, r.Breaker.Transitions)
		return nil
	}
	return fmt.Errorf("no /flaky route with a breaker in the proxy's status")
}

// stop ends every process still running (only those this program started).
func (l *lab) stop() {
	for _, p := range l.procs {
		labproc.Stop(p.cmd)
	}
}
