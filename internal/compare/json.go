package compare

import (
	"encoding/json"
	"io"
	"math"
)

// JSONVersion is the version of the JSON shape WriteJSON writes; a change
// that removes or renames a key makes a new version.
const JSONVersion = 1

// JSONDoc is what `loadlab compare -type json` prints (docs/plots.md).
type JSONDoc struct {
	Version int `json:"version"`
	// Outcome is the comparison's as -fail-on-regression sees it: "worse"
	// when a figure got worse beyond noise, else "cannot tell" when one
	// could not be told, else "no difference".
	Outcome     string           `json:"outcome"`
	Confidence  float64          `json:"confidence"`  // of every interval, 0..1
	MinChange   float64          `json:"min_change"`  // smallest relative change judged, 0..1
	MinPoints   float64          `json:"min_points"`  // smallest change of the success ratio judged, percentage points
	Method      string           `json:"method"`      // how the intervals and verdicts were reached
	Comparisons []JSONComparison `json:"comparisons"` // one per group of runs compared, or per duet
}

// JSONComparison is one group's runs against its baseline, or one duet's
// side B against its side A.
type JSONComparison struct {
	Group    string       `json:"group"`
	Duet     bool         `json:"duet"`
	Baseline string       `json:"baseline"`
	Runs     []JSONRun    `json:"runs"` // baseline first
	Figures  []JSONFigure `json:"figures"`
	Notes    []string     `json:"notes,omitempty"`
}

// JSONRun is one run (or side) compared.
type JSONRun struct {
	Name       string `json:"name"`
	Requests   int64  `json:"requests"`
	Replicates int    `json:"replicates"` // runs it is made of (1: a single run)
	// Busy says the machine delayed the run's own requests (schedule lag
	// p99 above 10% of its latency p99), BusyWhy how much.
	Busy    bool   `json:"busy"`
	BusyWhy string `json:"busy_why,omitempty"`
}

// JSONFigure is one figure of one run against the baseline. Latencies
// are in ms, the success ratio in %, the throughput in requests a
// second; null where not known.
type JSONFigure struct {
	Run      string   `json:"run"`
	Stat     string   `json:"stat"` // mean, p50, p90, p99, success or throughput
	Unit     string   `json:"unit"` // ms, % or req/s
	Baseline *float64 `json:"baseline"`
	Value    *float64 `json:"value"`
	Ratio    *float64 `json:"ratio"` // value / baseline
	Diff     *float64 `json:"diff"`  // value - baseline
	// Interval is the confidence interval of the ratio (latencies,
	// throughput) or of the difference (success), as IntervalOf says;
	// null when not judged.
	Interval   *[2]float64 `json:"interval"`
	IntervalOf string      `json:"interval_of"` // "ratio" or "diff"
	Verdict    string      `json:"verdict"`     // as the table prints it (slower, faster, worse, better, higher, lower, no difference, cannot tell, too few requests, too short, no data)
	Outcome    string      `json:"outcome"`     // worse, better, no difference, cannot tell or not judged
}

func num(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// JSON returns the comparisons in the shape of JSONDoc.
func JSON(comps []Comparison) JSONDoc {
	doc := JSONDoc{Version: JSONVersion, Outcome: Gate(comps), Comparisons: []JSONComparison{}}
	for i, c := range comps {
		r := c.Report
		if i == 0 {
			doc.Confidence, doc.MinChange, doc.MinPoints, doc.Method = r.Options.Confidence, r.Options.MinChange, r.Options.MinPoints, r.Method()
		}
		jc := JSONComparison{Group: r.Group, Duet: r.Duet, Baseline: r.Baseline, Notes: r.Notes, Figures: []JSONFigure{}}
		for _, run := range c.Runs {
			noisy, why := run.Health().Judge()
			jc.Runs = append(jc.Runs, JSONRun{Name: run.Name, Requests: run.N(), Replicates: len(run.replicas()), Busy: noisy, BusyWhy: why})
		}
		for _, row := range r.Rows {
			f := JSONFigure{Run: row.Run, Stat: row.Stat.String(), Unit: "ms", Baseline: num(row.Base), Value: num(row.Value),
				Ratio: num(row.Ratio), Diff: num(row.Diff), IntervalOf: "ratio", Verdict: row.Verdict, Outcome: Outcome(row.Verdict)}
			if row.Ratio == 0 && row.Base != 0 { // per-request verdicts leave it out
				f.Ratio = num(row.Value / row.Base)
			}
			lo, hi := row.RatioLo, row.RatioHi
			switch row.Stat {
			case Success:
				f.Unit, f.IntervalOf, f.Ratio = "%", "diff", nil
				lo, hi = row.Lo, row.Hi
			case Throughput:
				f.Unit = "req/s"
			}
			if !r.Options.RunLevel && row.Stat != Success {
				f.IntervalOf, lo, hi = "diff", row.Lo, row.Hi
			}
			if !math.IsNaN(lo) && !math.IsNaN(hi) && !(lo == 0 && hi == 0 && row.Verdict == NoData) {
				f.Interval = &[2]float64{lo, hi}
			}
			jc.Figures = append(jc.Figures, f)
		}
		doc.Comparisons = append(doc.Comparisons, jc)
	}
	return doc
}

// WriteJSON writes JSON(comps), indented.
func WriteJSON(w io.Writer, comps []Comparison) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(JSON(comps))
}

// Gate is the outcome of the comparisons for a gate: "worse" when any
// figure got worse beyond noise, else "cannot tell" when any could not be
// told (too wide an interval, too few requests, too short a run, no
// data), else "no difference" (figures that got better count as no
// difference).
func Gate(comps []Comparison) string {
	out := NoChange
	for _, c := range comps {
		for _, row := range c.Report.Rows {
			switch Outcome(row.Verdict) {
			case "worse":
				return "worse"
			case CannotTell, "not judged":
				out = CannotTell
			}
		}
	}
	return out
}

// GateCode is Gate's exit code: 1 worse, 3 cannot tell, 0 otherwise.
func GateCode(outcome string) int {
	switch outcome {
	case "worse":
		return 1
	case CannotTell:
		return 3
	}
	return 0
}
