// Command scale runs the search-flood incident at its own numbers
// (examples/000-incident-replay-full-scale: /search at 1,000, 1,100 and
// 1,200 req/s plus /news at 1 req/s through an "overflow" and a "fixed"
// pool to a 1 s origin) with `loadlab run`, then prints the incident
// report's table of success ratios next to the measured one and the
// model's, with each component's CPU and peak RSS and the generator's
// schedule lag. Short steps are allowed (-duration; the seed ran 300 s).
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
	flag.Parse()
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
	wall := time.Since(t0)
	b, err := os.ReadFile(filepath.Join(*out, "summary.json"))
	check(err)
	var sum summary.Summary
	check(json.Unmarshal(b, &sum))

	fmt.Printf("The search-flood incident at its own numbers: %s steps, run in %s (%s)\n\n", *dur, wall.Round(time.Second), *out)
	fmt.Printf("%-9s %5s | %-27s | %-27s | %s\n", "pool", "rate", "search success seed/run/model", "news success seed/run/model", "CPU mean/peak % (rss MiB) and generator lag p99")
	for _, st := range sum.Steps {
		pool, rate := st.Vars["proxy"], st.Vars["rate"]
		if pool == "" {
			pool = st.Variants["proxy"]
		}
		s := seed[pool][rate]
		cells := make([]string, 2)
		var lag float64
		for i, name := range []string{"search", "news"} {
			for _, sc := range st.Scenarios {
				if sc.Name != name {
					continue
				}
				lag = max(lag, sc.LagP99)
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
		fmt.Printf("%-9s %5s | %-27s | %-27s | %s; lag p99 %s\n", pool, rate, cells[0], cells[1], strings.Join(res, ", "), summary.FmtSeconds(lag))
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench/scale:", err)
		os.Exit(1)
	}
}
