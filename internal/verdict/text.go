package verdict

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// describe says the verdict in a sentence for someone who reads only it.
func describe(v *Verdict, o Options) string {
	var b strings.Builder
	n := v.RunsBefore + v.RunsAfter
	least := Size(v.Stat, v.MinChange, false)
	switch {
	case v.RunsBefore == 0 || v.RunsAfter == 0:
		fmt.Fprintf(&b, "cannot tell: %s before and %s after to judge %s", runs(v.RunsBefore), runs(v.RunsAfter), v.Stat)
	case v.Paired && (math.IsNaN(v.Change) || math.IsNaN(v.Lo)):
		fmt.Fprintf(&b, "cannot tell: the two sides' time blocks (at least %d are needed) do not give %s", MinBlocks, v.Stat)
	case v.Paired && v.Outcome == CannotTell:
		fmt.Fprintf(&b, "cannot tell whether %s changed by %s or more: %s (%s)", v.Stat, least, Size(v.Stat, v.Change, true), interval(v))
	case math.IsNaN(v.Change):
		b.WriteString("cannot tell: every run of one side was noisy, and a verdict does not rest on noisy runs")
	case v.Outcome == Worse || v.Outcome == Better:
		fmt.Fprintf(&b, "%s %s by %s (%s), %s against %s%s", v.Stat, v.Outcome, Size(v.Stat, v.Change, true), interval(v), runs(v.RunsAfter), runs(v.RunsBefore), noise(v))
	case v.Outcome == Same:
		if v.MinChange > 0 {
			fmt.Fprintf(&b, "no change of %s or more in %s: %s (%s), %s against %s%s", least, v.Stat, Size(v.Stat, v.Change, true), interval(v), runs(v.RunsAfter), runs(v.RunsBefore), noise(v))
		} else {
			fmt.Fprintf(&b, "no change in %s: %s (%s), %s against %s%s", v.Stat, Size(v.Stat, v.Change, true), interval(v), runs(v.RunsAfter), runs(v.RunsBefore), noise(v))
		}
	case math.IsNaN(v.Lo):
		fmt.Fprintf(&b, "cannot tell: one run on each side and no replicates, so the run-to-run noise of %s is unknown", v.Stat)
		if v.Repeats > 0 {
			fmt.Fprintf(&b, "; %d runs of each would", v.Repeats)
		}
	default:
		fmt.Fprintf(&b, "%s cannot show a %s change of %s at %s run-to-run noise (%s, %s)", runs(n), least, v.Stat, Size(v.Stat, v.Noise, false), Size(v.Stat, v.Change, true), interval(v))
		switch {
		case v.Repeats > v.RunsAfter:
			fmt.Fprintf(&b, "; %d repeats of the newer build would", v.Repeats)
		case v.Repeats > 0:
			b.WriteString("; the change measured lies near the minimum: a rerun of the newer build would likely settle it")
		default:
			fmt.Fprintf(&b, "; even %d repeats of the newer build would not: more runs of the older builds are needed", MaxRepeats)
		}
	}
	switch {
	case v.Paired:
		b.WriteString("; paired: both sides ran at once, and the same time blocks of each were drawn, so noise that hit both cancels")
	case v.WithinOnly:
		b.WriteString("; the run-to-run noise is unknown (one run each, no replicates): the interval rests on the spread of the runs' time blocks")
	}
	if v.FloorFromReplicates {
		fmt.Fprintf(&b, "; the smallest change judged, %s, is the replicates' noise floor", least)
	}
	if len(v.Noisy) > 0 {
		names := make([]string, len(v.Noisy))
		for i, x := range v.Noisy {
			names[i] = x.ID + " (" + x.Why + ")"
		}
		switch {
		case v.NoisyKept:
			fmt.Fprintf(&b, "; judged with %s, whose lag only adds latency and so could only have hidden this change: %s", plural(len(v.Noisy), "noisy run"), strings.Join(names, ", "))
		case math.IsNaN(v.Change):
			fmt.Fprintf(&b, "; noisy, so not judged: %s", strings.Join(names, ", "))
		default:
			fmt.Fprintf(&b, "; left out %s: %s", plural(len(v.Noisy), "noisy run"), strings.Join(names, ", "))
		}
	}
	return b.String()
}

// Size formats a change of the stat: "+4.2%" (relative) or "+3.0 points"
// (rates); signed adds the sign.
func Size(s Stat, x float64, signed bool) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	f := "%.1f"
	if signed {
		f = "%+.1f"
	}
	if s.Points() {
		u := " points"
		if math.Abs(x) == 1 {
			u = " point"
		}
		return fmt.Sprintf(f, x) + u
	}
	if x >= 1 {
		return "x" + strconv.FormatFloat(1+x, 'f', 2, 64)
	}
	return fmt.Sprintf(f, 100*x) + "%"
}

func interval(v *Verdict) string {
	return fmt.Sprintf("%s%% interval %s to %s", strconv.FormatFloat(100*v.Confidence, 'g', 4, 64), Size(v.Stat, v.Lo, true), Size(v.Stat, v.Hi, true))
}

func noise(v *Verdict) string {
	if v.WithinOnly || math.IsNaN(v.Noise) {
		return ""
	}
	return ", run-to-run noise " + Size(v.Stat, v.Noise, false)
}

func runs(n int) string { return plural(n, "run") }

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
