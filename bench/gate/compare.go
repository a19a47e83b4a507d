package main

// -compare: how loadlab compare judges identical runs and a small real
// difference on this machine, with and without the noisy neighbour,
// measured in sequence (A, then B) and as a duet (one attack alternating
// between A and B, so the machine's noise falls on both).

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/loadlab/loadlab/bench/machine"
)

var (
	compareMode = flag.Bool("compare", false, "benchmark loadlab compare instead of the gate: A/A pairs (sequential and duet), two origins 5% apart, A/A duets beside the neighbour")
	pairs       = flag.Int("pairs", 30, "-compare: A/A pairs, each two sequential runs and one duet of -duration, the neighbour beside every other pair's second run and duet")
	detect      = flag.Int("detect", 3, "-compare: pairs of origins 5% apart, each measured in sequence (the neighbour beside the slower) and as a duet beside the neighbour, -long each")
	aaLong      = flag.Int("aa", 3, "-compare: A/A duets of -long beside the neighbour")
	long        = flag.Duration("long", 30*time.Second, "-compare: length of the 5% pairs' runs and of the A/A duets beside the neighbour")
)

// figure is one row of `loadlab compare -type json`.
type figure struct {
	Stat       string      `json:"stat"`
	Ratio      float64     `json:"ratio"`
	Interval   [2]*float64 `json:"interval"` // null when it could not be computed
	IntervalOf string      `json:"interval_of"`
	Outcome    string      `json:"outcome"`
}

// different says the figure was judged worse or better.
func (f figure) different() bool { return f.Outcome == "worse" || f.Outcome == "better" }

// excludes says the interval excludes no change (1 for a ratio, 0 for a
// difference in points): different at 99% whatever the minimum change.
func (f figure) excludes() bool {
	none := 1.0
	if f.IntervalOf != "ratio" {
		none = 0
	}
	return f.lo() > none || f.hi() < none
}

func (f figure) lo() float64 { return orNaN(f.Interval[0]) }
func (f figure) hi() float64 { return orNaN(f.Interval[1]) }

func (f figure) width() float64 { return f.hi() - f.lo() }

func orNaN(x *float64) float64 {
	if x == nil {
		return math.NaN()
	}
	return *x
}

// tally counts the A/A verdicts of one way of comparing.
type tally struct {
	pairs, pairsDifferent, pairsExcluding int
	figures, different, excluding, cannot int
}

func (t *tally) add(fs []figure) {
	t.pairs++
	anyD, anyX := false, false
	for _, f := range fs {
		t.figures++
		if f.different() {
			t.different++
			anyD = true
		}
		if f.excludes() {
			t.excluding++
			anyX = true
		}
		if f.Outcome == "cannot tell" {
			t.cannot++
		}
	}
	if anyD {
		t.pairsDifferent++
	}
	if anyX {
		t.pairsExcluding++
	}
}

func (t tally) String() string {
	return fmt.Sprintf("a figure judged different (default -min-change 5%%) in %d of %d pairs (%d of %d figures); an interval excluding no change in %d pairs (%d figures); cannot tell %d figures",
		t.pairsDifferent, t.pairs, t.different, t.figures, t.pairsExcluding, t.excluding, t.cannot)
}

func benchCompare(bin, dir, self string) {
	fmt.Printf("machine: %s; %s\n", machine.Describe(), stealLine())
	fmt.Printf("compare: %d A/A pairs of %v at %d req/s a side (sequential, and a duet), neighbour (SCHED_FIFO bursts of %v every %v on every core) beside every other pair's second run and duet; %d pairs of origins 5%% apart and %d A/A duets, %v each, beside the neighbour; origins and attacks %s\n\n",
		*pairs, *duration, *rate, *burst, *every, *detect, *aaLong, *long, priority())
	a := origin(bin, dir, "a", "10ms", "20ms")
	a2 := origin(bin, dir, "a2", "10ms", "20ms")
	slow := origin(bin, dir, "slow", "10.5ms", "21ms")
	defer a.stop()
	defer a2.stop()
	defer slow.stop()

	var seq, seqQuiet, seqNoisy, duet, duetQuiet, duetNoisy tally
	for i := 1; i <= *pairs; i++ {
		noisy := i%2 == 0
		x := measure(bin, dir, self, "seq-a", a, nil, *duration, false)
		y := measure(bin, dir, self, "seq-b", a2, nil, *duration, noisy)
		fs := compareFigures(bin, "", x, y)
		d := measure(bin, dir, self, "duet", a, a2, *duration, noisy)
		fd := compareFigures(bin, "", "-duet", d)
		seq.add(fs)
		duet.add(fd)
		if noisy {
			seqNoisy.add(fs)
			duetNoisy.add(fd)
		} else {
			seqQuiet.add(fs)
			duetQuiet.add(fd)
		}
		fmt.Printf("A/A pair %2d (neighbour %v): sequential %s; duet %s\n", i, noisy, outcomes(fs), outcomes(fd))
	}
	if *pairs > 0 {
		fmt.Printf("\nA/A sequential: %s\n  quiet: %s\n  beside the neighbour: %s\n", seq, seqQuiet, seqNoisy)
		fmt.Printf("A/A duet:       %s\n  quiet: %s\n  beside the neighbour: %s\n\n", duet, duetQuiet, duetNoisy)
	}

	// A real 5% difference: judged with -min-change 0 (every change
	// beyond noise), since a 5% minimum would call half of the true 5%
	// changes smaller than it.
	found := map[string][2]int{} // stat -> [sequential, duet] found worse
	for i := 1; i <= *detect; i++ {
		x := measure(bin, dir, self, "det-a", a, nil, *long, false)
		y := measure(bin, dir, self, "det-b", slow, nil, *long, true)
		fs := compareFigures(bin, "0", x, y)
		d := measure(bin, dir, self, "det-duet", a, slow, *long, true)
		fd := compareFigures(bin, "0", "-duet", d)
		for _, f := range fs {
			c := found[f.Stat]
			if f.Outcome == "worse" {
				c[0]++
			}
			found[f.Stat] = c
		}
		for _, f := range fd {
			c := found[f.Stat]
			if f.Outcome == "worse" {
				c[1]++
			}
			found[f.Stat] = c
		}
		fmt.Printf("5%% pair %d: sequential %s\n           duet       %s\n", i, ratios(fs), ratios(fd))
	}
	if *detect > 0 {
		fmt.Printf("\n5%% slower origin found worse (-min-change 0, 99%%), of %d:\n", *detect)
		for _, s := range []string{"p50", "mean", "p90", "p99"} {
			fmt.Printf("  %-5s sequential (neighbour beside the slower) %d, duet (beside the neighbour) %d\n", s, found[s][0], found[s][1])
		}
		fmt.Println()
	}

	var contains, narrow, n int
	widths := map[string][]float64{}
	for i := 1; i <= *aaLong; i++ {
		d := measure(bin, dir, self, "aa-long", a, a2, *long, true)
		fd := compareFigures(bin, "", "-duet", d)
		for _, f := range fd {
			if f.Stat != "p50" {
				widths[f.Stat] = append(widths[f.Stat], f.width())
				continue
			}
			n++
			if f.lo() <= 1 && f.hi() >= 1 {
				contains++
			}
			if f.width() < 0.02 {
				narrow++
			}
			widths["p50"] = append(widths["p50"], f.width())
		}
		fmt.Printf("A/A duet %d of %v beside the neighbour: %s\n", i, *long, ratios(fd))
	}
	if *aaLong > 0 {
		fmt.Printf("\nA/A duets of %v beside the neighbour: B/A p50 interval contains 1.00 in %d of %d, narrower than 2%% in %d of %d; widest interval:", *long, contains, n, narrow, n)
		var keys []string
		for k := range widths {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Printf(" %s %.2f%%", k, 100*maxOf(widths[k]))
		}
		fmt.Println()
	}
}

// measure runs one attack of d against o (a duet with b when b is not
// nil, at twice the rate so each side gets -rate), the neighbour beside
// it when noisy, and returns its results file.
func measure(bin, dir, self, name string, o, b *proc, d time.Duration, noisy bool) string {
	out := filepath.Join(dir, name+".lll")
	r := *rate
	args := []string{"attack", "-quiet", "-duration", d.String(), "-output", out}
	if b != nil {
		r *= 2
		args = append(args, "-duet", "http://"+b.addr)
	}
	args = append(args, "-rate", fmt.Sprint(r))
	var n *exec.Cmd
	if noisy {
		n = startNeighbour(self, d+time.Second)
	}
	cmd := measured(bin, args...)
	cmd.Stdin = strings.NewReader("GET http://" + o.addr + "/\n")
	msg, err := cmd.CombinedOutput()
	stopNeighbour(n)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gate: attack %s: %v\n%s", name, err, msg)
		os.Exit(1)
	}
	return out
}

// compareFigures runs loadlab compare -type json on args (with
// -min-change minChange unless empty) and returns its figures.
func compareFigures(bin, minChange string, args ...string) []figure {
	full := []string{"compare", "-type", "json"}
	if minChange != "" {
		full = append(full, "-min-change", minChange)
	}
	cmd := exec.Command(bin, append(full, args...)...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	_ = cmd.Run() // an exit code of 3 (cannot tell) still prints the comparison
	var r struct {
		Comparisons []struct {
			Figures []figure `json:"figures"`
		} `json:"comparisons"`
	}
	check(json.Unmarshal(out.Bytes(), &r))
	var fs []figure
	for _, c := range r.Comparisons {
		fs = append(fs, c.Figures...)
	}
	return fs
}

func outcomes(fs []figure) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, f.Stat+" "+f.Outcome)
	}
	return strings.Join(parts, ", ")
}

func ratios(fs []figure) string {
	var parts []string
	for _, f := range fs {
		if f.IntervalOf == "ratio" && !math.IsNaN(f.Ratio) {
			parts = append(parts, fmt.Sprintf("%s %.3f [%.3f, %.3f] %s", f.Stat, f.Ratio, f.lo(), f.hi(), f.Outcome))
		}
	}
	return strings.Join(parts, "; ")
}
