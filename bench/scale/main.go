// Command scale runs the search-flood incident at its own numbers
// (examples/000-incident-replay-full-scale: /search at 1,000, 1,100 and
// 1,200 req/s plus /news at 1 req/s through an "overflow" and a "fixed"
// pool to a 1 s origin) with `loadlab run`, then prints the incident
// report's table of success ratios next to the measured one and the
// model's, with each component's CPU and peak RSS and the generator's
// schedule lag p99 per scenario (/news sends 1 request a second: its p99
// is its worst request but one). Short steps are allowed (-duration; the seed ran 300 s).
//
//	go build -o bin/loadlab ./cmd/loadlab && go run ./bench/scale -duration 30s
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// seed is the incident report's success per pool, rate and scenario (%).
var seed = map[string]map[string][2]float64{ // [search, news]
	"overflow": {"1000": {95.7, 96.3}, "1100": {57.2, 62.7}, "1200": {58.0, 64.3}},
	"fixed":    {"1000": {99.9, 99.7}, "1100": {92.5, 85.7}, "1200": {84.8, 84.7}},
}

func main() {
	bin := flag.String("loadlab", "bin/loadlab", "the loadlab binary")
	dur := flag.Duration("duration", 60*time.Second, "each step's length (the seed's was 300 s)")
	out := flag.String("out", "", "the run folder (default: a new temporary one, kept)")
	plan := flag.String("plan", "examples/000-incident-replay-full-scale/plan.yaml", "the full-scale plan")
	from := flag.String("from", "", "print the table of this earlier run folder instead of running")
	flag.Parse()
	if *from != "" {
		printTable(*from, 0)
		return
	}
	if *out == "" {
		d, err := os.MkdirTemp("", "loadlab-bench-scale")
		check(err)
		*out = filepath.Join(d, "run")
	}
	t0 := time.Now()
	cmd := exec.Command(*bin, "run", "-quiet", "-out", *out, "-set", "duration="+dur.String(), *plan)
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		// Exit 1 is the plan's thresholds failing, as the incident did.
		check(err)
	}
	printTable(*out, time.Since(t0))
}

// printTable prints the seed's table beside the run in dir (wall: the
// run's wall time, 0 when not known).
func printTable(dir string, wall time.Duration) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	check(err)
	var sum summary.Summary
	check(json.Unmarshal(b, &sum))
	if wall == 0 && !sum.Started.IsZero() {
		wall = sum.Ended.Sub(sum.Started)
	}
	dur := "-"
	if len(sum.Steps) > 0 {
		dur = sum.Steps[0].Vars["duration"]
	}
	fmt.Printf("The search-flood incident at its own numbers: %s steps, run in %s (%s)\n\n", dur, wall.Round(time.Second), dir)
	fmt.Printf("%-9s %5s | %-27s | %-27s | %s\n", "pool", "rate", "search success seed/run/model", "news success seed/run/model", "CPU mean/peak % (rss MiB) and generator lag p99 search / news")
	for _, st := range sum.Steps {
		pool, rate := st.Vars["proxy"], st.Vars["rate"]
		if pool == "" {
			pool = st.Variants["proxy"]
		}
		s := seed[pool][rate]
		cells := make([]string, 2)
		lags := make([]string, 2)
		for i, name := range []string{"search", "news"} {
			for _, sc := range st.Scenarios {
				if sc.Name != name {
					continue
				}
				lags[i] = summary.FmtSeconds(sc.LagP99)
				model := "-"
				if st.Model != nil {
					for _, ms := range st.Model.Scenarios {
						if ms.Name == name {
							model = fmt.Sprintf("%.1f", 100*ms.Success)
						}
					}
				}
				cells[i] = fmt.Sprintf("%5.1f / %5.1f / %5s", s[i], 100*sc.Success, model)
			}
		}
		var comps []string
		for k := range st.Means {
			if c, ok := strings.CutSuffix(k, " cpu %"); ok {
				comps = append(comps, c)
			}
		}
		sort.Strings(comps)
		var res []string
		for _, c := range comps {
			res = append(res, fmt.Sprintf("%s %.0f/%.0f (%.0f)", c, st.Means[c+" cpu %"], st.Peaks[c+" cpu %"], st.Peaks[c+" rss MiB"]))
		}
		fmt.Printf("%-9s %5s | %-27s | %-27s | %s; lag p99 %s / %s\n", pool, rate, cells[0], cells[1], strings.Join(res, ", "), lags[0], lags[1])
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/scale:", err)
		os.Exit(1)
	}
}
