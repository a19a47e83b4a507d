// Command gate benchmarks loadlab's CI gate where teams run it: on a busy
// machine. Each repetition archives a series of builds of a loopback
// origin, one real run per build (`loadlab attack -archive`), the change
// being a +15% slower origin from one build on, and a noisy neighbour
// beside two unchanged builds: a process at real-time priority that takes
// every core in bursts, as a busy CI host does (a plain busy loop at the
// same priority barely moves anything: the scheduler shares the cores
// fairly). It then asks `loadlab archive trend` which build changed each
// figure (p50, p95, p99, mean), and gates after every build as CI would
// (`-fail-on-regression`), and prints how often each verdict was right.
//
//	go run ./bench/gate                      # 20 repetitions of 8 builds
//	go run ./bench/gate -reps 3 -builds 6    # a quick look
//	go run ./bench/gate -compare             # loadlab compare instead (compare.go)
//
// With -compare it measures `loadlab compare` on the same machine and
// neighbour: identical runs (A/A) compared in sequence and as a duet
// (`attack -duet`, `compare -duet`), how often a figure is judged
// different; two origins 5% apart, whether sequential runs beside the
// neighbour and a duet beside it find the difference; and A/A duets of
// -long beside the neighbour, whether B/A's interval holds 1.00 and how
// wide it is.
//
// Every request goes to loopback; every attack, origin and neighbour is
// bounded in time and ended by PID.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/bench/machine"
)

var (
	loadlab   = flag.String("loadlab", "", "the loadlab `binary` (built from this checkout when empty)")
	reps      = flag.Int("reps", 20, "repetitions (seeds 1..n)")
	builds    = flag.Int("builds", 8, "builds in each series")
	changeAt  = flag.Int("change", 5, "the first `build` of the slower origin (1-based)")
	disturbed = flag.Int("disturbed", 2, "unchanged builds run beside the noisy neighbour")
	repeat    = flag.Int("repeat", 1, "runs of each build (its replicates, as loadlab run -repeat makes them)")
	rate      = flag.Int("rate", 200, "requests per second of each run")
	duration  = flag.Duration("duration", 3*time.Second, "length of each run")
	burst     = flag.Duration("burst", 60*time.Millisecond, "the neighbour's burst: every core taken for this long")
	every     = flag.Duration("every", 250*time.Millisecond, "the neighbour's burst period")
	keep      = flag.Bool("keep", false, "keep the temporary folder (archives, origins' recipes)")
	niceness  = flag.Int("nice", 0, "run the origins and attacks at this nice value (-5: ahead of other work at 0; needs the privilege to lower it)")
	realtime  = flag.Bool("rt", false, "run the origins and attacks at real-time priority (SCHED_RR 1; the neighbour then at SCHED_FIFO 2, above them): on a machine other work keeps busy, the quiet runs are quiet and the disturbance measured is the neighbour's (needs the privilege)")

	neighbour = flag.Bool("neighbour", false, "internal: be the noisy neighbour for -for")
	neighFor  = flag.Duration("for", 0, "internal: the neighbour's lifetime")
)

func main() {
	flag.Parse()
	if *neighbour {
		beNeighbour(*burst, *every, *neighFor)
		return
	}
	if *changeAt < 2 || *changeAt > *builds || *disturbed > *builds-1 {
		fmt.Fprintln(os.Stderr, "gate: -change must be within 2..-builds, -disturbed below -builds")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "loadlab-bench-gate-")
	check(err)
	if !*keep {
		defer os.RemoveAll(dir)
	}
	bin := *loadlab
	if bin == "" {
		bin = filepath.Join(dir, "loadlab")
		build := exec.Command("go", "build", "-o", bin, "./cmd/loadlab")
		build.Stderr = os.Stderr
		check(build.Run())
	}
	self, err := os.Executable()
	check(err)
	if *compareMode {
		benchCompare(bin, dir, self)
		return
	}
	fmt.Printf("machine: %s; %s\n", machine.Describe(), stealLine())
	fmt.Printf("series: %d builds of %d runs each, +15%% origin from build %d, neighbour (SCHED_FIFO bursts of %v every %v on every core) beside %d unchanged builds, %d req/s for %v per run, %d repetitions, origins and attacks %s\n\n",
		*builds, *repeat, *changeAt, *burst, *every, *disturbed, *rate, *duration, *reps, priority())

	before := origin(bin, dir, "before", "10ms", "20ms")
	after := origin(bin, dir, "after", "11.5ms", "23ms")
	defer before.stop()
	defer after.stop()

	metrics := []string{"p50", "p95", "p99", "mean"}
	named := map[string]int{}   // metric → repetitions naming exactly the change
	falseAt := map[string]int{} // metric → repetitions naming an unchanged build
	var gateRight, gateRuns, gateWrongFail, gateMissed, gateCannot, acceptRight int
	var lagDisturbed, lagQuiet []float64
	exits := map[[2]int]int{} // (after the change, exit code) -> count
	for rep := 1; rep <= *reps; rep++ {
		rng := rand.New(rand.NewPCG(uint64(rep), 7))
		noisy := map[int]bool{}
		for len(noisy) < *disturbed {
			b := 1 + rng.IntN(*builds)
			if b != *changeAt {
				noisy[b] = true
			}
		}
		db := filepath.Join(dir, fmt.Sprintf("rep%02d.db", rep))
		var gates []int
		for b := 1; b <= *builds; b++ {
			o := before
			if b >= *changeAt {
				o = after
			}
			for r := 0; r < *repeat; r++ {
				var n *exec.Cmd
				if noisy[b] {
					n = startNeighbour(self, *duration+time.Second)
				}
				attack := measured(bin, "attack", "-rate", fmt.Sprint(*rate), "-duration", duration.String(),
					"-archive", db, "-label", fmt.Sprintf("build=%d", b), "-name", "page", "-output", filepath.Join(dir, "last.lll"))
				attack.Stdin = strings.NewReader("GET http://" + o.addr + "/\n")
				out, err := attack.CombinedOutput()
				stopNeighbour(n)
				if err != nil {
					fmt.Fprintf(os.Stderr, "gate: attack of build %d: %v\n%s", b, err, out)
					os.Exit(1)
				}
			}
			lag := lastLagMS(bin, db)
			if noisy[b] {
				lagDisturbed = append(lagDisturbed, lag)
			} else {
				lagQuiet = append(lagQuiet, lag)
			}
			code := gate(bin, db, "p99")
			gates = append(gates, code)
			gateRuns++
			switch want := b >= *changeAt; {
			case want && code == 1, !want && code == 0:
				gateRight++
			case !want && code == 1:
				gateWrongFail++
			case want && code != 1:
				gateMissed++
			}
			if code == 3 {
				gateCannot++
			}
			side := b2i(b >= *changeAt)
			if b == 1 {
				side = 2
			}
			exits[[2]int{side, code}]++
		}
		line := fmt.Sprintf("rep %2d (neighbour beside %v): gate exits %v;", rep, keys(noisy), gates)
		for _, m := range metrics {
			idx := changes(bin, db, m)
			ok := len(idx) == 1 && idx[0] == *changeAt
			if ok {
				named[m]++
			}
			for _, i := range idx {
				if i != *changeAt {
					falseAt[m]++
					break
				}
			}
			line += fmt.Sprintf(" %s %v", m, idx)
		}
		// Accept the change: the gate goes green again.
		if id := changeID(bin, db, "p99"); id != "" {
			if exec.Command(bin, "archive", "accept", "-db", db, id).Run() == nil && gate(bin, db, "p99") != 1 {
				acceptRight++
			}
		}
		fmt.Println(line)
	}
	fmt.Printf("\n%-6s %28s %28s\n", "figure", "change named (only it)", "an unchanged build named")
	for _, m := range metrics {
		fmt.Printf("%-6s %21d of %2d %21d of %2d\n", m, named[m], *reps, falseAt[m], *reps)
	}
	fmt.Printf("\ngate after each build (-metric p99 -fail-on-regression): right %d of %d; exit 1 on an unchanged newest build %d; change missed (exit 0 or 3) %d; cannot tell (3) %d\n",
		gateRight, gateRuns, gateWrongFail, gateMissed, gateCannot)
	for side, name := range []string{"before the change (builds 2 on)", "from the change on", "1 (nothing before it to judge against)"} {
		fmt.Printf("  newest build %s: exit 0 %d, 1 %d, 3 %d\n", name, exits[[2]int{side, 0}], exits[[2]int{side, 1}], exits[[2]int{side, 3}])
	}
	fmt.Printf("archive accept of the change: the gate no longer exits 1 in %d of %d repetitions\n", acceptRight, *reps)
	fmt.Printf("schedule lag p99 of the builds' last runs: beside the neighbour median %.1f ms (max %.1f), quiet median %.1f ms\n",
		median(lagDisturbed), maxOf(lagDisturbed), median(lagQuiet))
	fmt.Printf("load average at the end %s; %s\n", machine.LoadAvg(), stealLine())
}

// an origin simulator playing a lognormal latency of the given p50/p99.
type proc struct {
	cmd  *exec.Cmd
	addr string
}

func origin(bin, dir, name, p50, p99 string) *proc {
	recipe := filepath.Join(dir, name+".json")
	check(os.WriteFile(recipe, fmt.Appendf(nil,
		`{"route": "/*", "body": "ok", "stages": [{"at": 0, "status": 200, "latency": {"distribution": "lognormal", "p50": %q, "p99": %q}}]}`, p50, p99), 0o644))
	addr := freeAddr()
	cmd := measured(bin, "origin", "-recipe", recipe, "-listen", addr)
	cmd.Stderr = os.Stderr
	check(cmd.Start())
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			fmt.Fprintln(os.Stderr, "gate: the origin did not listen on", addr)
			os.Exit(1)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return &proc{cmd: cmd, addr: addr}
}

func (p *proc) stop() { _ = p.cmd.Process.Kill(); _ = p.cmd.Wait() }

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	defer l.Close()
	return l.Addr().String()
}

// gate runs the CI gate and returns its exit code.
func gate(bin, db, metric string) int {
	cmd := exec.Command(bin, "archive", "trend", "-db", db, "-by", "build", "-metric", metric, "-fail-on-regression")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		if ee.ExitCode() == 2 {
			fmt.Fprintf(os.Stderr, "gate: trend refused its input:\n%s", out)
			os.Exit(1)
		}
		return ee.ExitCode()
	}
	check(err)
	return -1
}

type trendJSON struct {
	Points []struct {
		ID    string `json:"id"`
		Label string `json:"label"`
	} `json:"points"`
	Changes []struct {
		Index int    `json:"index"`
		ID    string `json:"id"`
		Label string `json:"label"`
	} `json:"changes"`
}

func trendOf(bin, db, metric string) trendJSON {
	cmd := exec.Command(bin, "archive", "trend", "-db", db, "-by", "build", "-metric", metric, "-type", "json")
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	_ = cmd.Run() // exit 3 (cannot tell) still prints the trend
	var t trendJSON
	check(json.Unmarshal(out.Bytes(), &t))
	return t
}

// changes are the builds (1-based) the trend names as the first after a change.
func changes(bin, db, metric string) []int {
	var idx []int
	for _, c := range trendOf(bin, db, metric).Changes {
		var b int
		fmt.Sscan(c.Label, &b)
		idx = append(idx, b)
	}
	return idx
}

func changeID(bin, db, metric string) string {
	for _, c := range trendOf(bin, db, metric).Changes {
		return c.ID
	}
	return ""
}

// lastLagMS is the newest run's schedule lag p99, from `archive list -type json`.
func lastLagMS(bin, db string) float64 {
	out, err := exec.Command(bin, "archive", "list", "-db", db, "-type", "json").Output()
	check(err)
	var l struct {
		Runs []struct {
			LagP99 float64 `json:"lag_p99"`
		} `json:"runs"`
	}
	if json.Unmarshal(out, &l) != nil || len(l.Runs) == 0 {
		var runs []struct {
			LagP99 float64 `json:"lag_p99"`
		}
		if json.Unmarshal(out, &runs) != nil || len(runs) == 0 {
			return 0
		}
		return runs[0].LagP99 / 1e6
	}
	return l.Runs[0].LagP99 / 1e6
}

// measured is the command of an origin or attack: at -rt or -nice when set.
func measured(bin string, args ...string) *exec.Cmd {
	switch {
	case *realtime:
		return exec.Command("chrt", append([]string{"-r", "1", bin}, args...)...)
	case *niceness != 0:
		return exec.Command("nice", append([]string{"-n", fmt.Sprint(*niceness), bin}, args...)...)
	}
	return exec.Command(bin, args...)
}

// priority says how the origins and attacks ran.
func priority() string {
	switch {
	case *realtime:
		return "at real-time priority (SCHED_RR 1, the neighbour above them)"
	case *niceness != 0:
		return fmt.Sprintf("at nice %d", *niceness)
	}
	return "at normal priority"
}

// startNeighbour starts the noisy neighbour for d at real-time priority.
func startNeighbour(self string, d time.Duration) *exec.Cmd {
	prio := "1"
	if *realtime {
		prio = "2" // above the measured processes
	}
	n := exec.Command("chrt", "-f", prio, self, "-neighbour", "-burst", burst.String(), "-every", every.String(), "-for", d.String())
	check(n.Start())
	return n
}

// stopNeighbour ends a neighbour startNeighbour started (nil: none).
func stopNeighbour(n *exec.Cmd) {
	if n != nil {
		_ = n.Process.Kill()
		_ = n.Wait()
	}
}

// beNeighbour takes every core for burst in each period, until d has passed.
// Started under `chrt -f`, its threads run before any normal task.
func beNeighbour(burst, period, d time.Duration) {
	end := time.Now().Add(d)
	n := runtime.NumCPU()
	runtime.GOMAXPROCS(n + 1)
	for time.Now().Before(end) {
		start := time.Now()
		done := make(chan struct{})
		for range n {
			go func() {
				runtime.LockOSThread()
				for time.Since(start) < burst {
				}
				done <- struct{}{}
			}()
		}
		for range n {
			<-done
		}
		time.Sleep(period - burst)
	}
}

func stealLine() string {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return "steal unknown"
	}
	f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
	if len(f) < 9 {
		return "steal unknown"
	}
	var total, steal float64
	for i, s := range f[1:] {
		var v float64
		fmt.Sscan(s, &v)
		total += v
		if i == 7 {
			steal = v
		}
	}
	return fmt.Sprintf("steal %.2f%% since boot", 100*steal/total)
}

func keys(m map[int]bool) []int {
	var k []int
	for b := range m {
		k = append(k, b)
	}
	sort.Ints(k)
	return k
}

// b2i is 1 for true.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gate:", err)
		os.Exit(1)
	}
}
