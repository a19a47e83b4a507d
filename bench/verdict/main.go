// Command verdict measures the series step of loadlab's verdicts (package
// internal/archive/changepoint) on synthetic series of run figures: how
// often a change put in is found, how often a series with none raises a
// false alarm, and how often a candidate is left undecided, at the
// package's level and at Apache Otava's default level for comparison.
//
//	go run ./bench/verdict               # 1000 series a scenario
//	go run ./bench/verdict -series 200
//
// The series are drawn by package changepoint/simulate from fixed seeds:
// the rates are the same on every machine; the time is not.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/prometheus/procfs"

	"github.com/loadlab/loadlab/bench/machine"
	"github.com/loadlab/loadlab/internal/archive/changepoint"
	"github.com/loadlab/loadlab/internal/archive/changepoint/simulate"
)

func main() {
	n := flag.Int("series", 1000, "series of each scenario")
	seed := flag.Uint64("seed", 1, "seed of the series drawn")
	flag.Parse()
	if *n < 1 {
		fmt.Fprintln(os.Stderr, "verdict: -series must be at least 1")
		os.Exit(2)
	}
	var scs []simulate.Scenario
	for _, pts := range []int{6, 10, 30, 100} {
		for _, noise := range []float64{0.03, 0.06} {
			scs = append(scs, simulate.Flat(pts, noise))
		}
	}
	for _, noise := range []float64{0.03, 0.06} {
		scs = append(scs, simulate.Step(100, 1, 0.5, noise), simulate.Step(100, 99, 0.5, noise))
	}
	scs = append(scs,
		simulate.Excursion(30, 14, 3, 0.2, 0.03), simulate.Excursion(100, 47, 3, 0.2, 0.03),
		simulate.Excursion(30, 14, 3, 0.2, 0.06),
		simulate.Step(6, 3, 0.2, 0.03), simulate.Step(6, 3, 0.1, 0.03),
		simulate.Step(30, 15, 0.1, 0.03), simulate.Step(30, 15, 0.05, 0.03),
	)
	levels := []float64{changepoint.DefaultAlpha, 0.001}
	steal0, total0 := steal()
	t0, c0 := time.Now(), machine.CPUTime()
	fmt.Printf("machine: %s\n", machine.Describe())
	fmt.Printf("%d series a scenario, seed %d; found: every change put in reported at its point; alarm: a change reported where none was put; undecided: a candidate left as \"cannot tell\"\n\n", *n, *seed)
	fmt.Printf("%-48s", "scenario")
	for _, a := range levels {
		fmt.Printf(" | %-24s", fmt.Sprintf("level %g", a))
	}
	fmt.Printf("\n%-48s", "")
	for range levels {
		fmt.Printf(" | %7s %7s %8s", "found", "alarm", "undecid.")
	}
	fmt.Println()
	for _, s := range scs {
		fmt.Printf("%-48s", s.Name)
		for _, a := range levels {
			r := simulate.Run(s, *n, *seed, changepoint.Options{Alpha: a})
			found := "-"
			if len(s.Want) > 0 {
				found = pct(r.Found, r.Series)
			}
			fmt.Printf(" | %7s %7s %8s", found, pct(r.Alarms, r.Series), pct(r.Undecided, r.Series))
		}
		fmt.Println()
	}
	steal1, total1 := steal()
	st := "unknown"
	if total1 > total0 {
		st = fmt.Sprintf("%.1f%%", 100*(steal1-steal0)/(total1-total0))
	}
	fmt.Printf("\n%.1f s, CPU %.1f s; steal %s; load average after %s\n", time.Since(t0).Seconds(), (machine.CPUTime() - c0).Seconds(), st, machine.LoadAvg())
}

func pct(k, n int) string { return fmt.Sprintf("%.1f%%", 100*float64(k)/float64(n)) }

// steal is the machine's stolen and total CPU seconds so far (/proc/stat),
// zero where it cannot be read.
func steal() (stolen, total float64) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return 0, 0
	}
	s, err := fs.Stat()
	if err != nil {
		return 0, 0
	}
	c := s.CPUTotal
	return c.Steal, c.User + c.Nice + c.System + c.Idle + c.Iowait + c.IRQ + c.SoftIRQ + c.Steal
}
