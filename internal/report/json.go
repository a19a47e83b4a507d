package report

import (
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/loadlab/loadlab/internal/metrics"
)

// jsonLatencies is vegeta's latencies object: its keys, in its order, and
// its unit (nanoseconds): total, then loadlab's one latency summary, then
// min, always present (it takes the place of the summary's).
type jsonLatencies struct {
	Total time.Duration `json:"total"`
	metrics.LatencySummary
	Min time.Duration `json:"min"`
}

func latenciesJSON(l *metrics.Latencies) jsonLatencies {
	return jsonLatencies{l.Total, l.LatencySummary, l.Min}
}

type jsonBytes struct {
	Total uint64  `json:"total"`
	Mean  float64 `json:"mean"`
}

type jsonLag struct {
	Late      uint64        `json:"late"`
	LateAfter time.Duration `json:"late_after"`
	Mean      time.Duration `json:"mean"`
	P99       time.Duration `json:"99th"`
	Max       time.Duration `json:"max"`
}

type jsonError struct {
	Error string `json:"error"`
	Count uint64 `json:"count"`
}

type jsonGroup struct {
	Key       string         `json:"key"`
	Requests  uint64         `json:"requests"`
	Rate      float64        `json:"rate"`
	Success   float64        `json:"success"`
	Latencies jsonLatencies  `json:"latencies"`
	Codes     map[string]int `json:"status_codes"`
	Errors    uint64         `json:"errors"`
}

// jsonReport is vegeta's JSON report, keys in vegeta's order and units,
// followed by loadlab's extra keys.
type jsonReport struct {
	Latencies   jsonLatencies  `json:"latencies"`
	BytesIn     jsonBytes      `json:"bytes_in"`
	BytesOut    jsonBytes      `json:"bytes_out"`
	Earliest    time.Time      `json:"earliest"`
	Latest      time.Time      `json:"latest"`
	End         time.Time      `json:"end"`
	Duration    time.Duration  `json:"duration"`
	Wait        time.Duration  `json:"wait"`
	Requests    uint64         `json:"requests"`
	Rate        float64        `json:"rate"`
	Throughput  float64        `json:"throughput"`
	Success     float64        `json:"success"`
	StatusCodes map[string]int `json:"status_codes"`
	Errors      []string       `json:"errors"`

	// loadlab's additions
	IntervalStart   *time.Time        `json:"interval_start,omitempty"`
	IntervalEnd     *time.Time        `json:"interval_end,omitempty"`
	Partial         bool              `json:"partial,omitempty"`
	IntervalCovered time.Duration     `json:"interval_covered,omitempty"`
	SendLatencies   *jsonLatencies    `json:"send_latencies,omitempty"`
	DueLatencies    *jsonLatencies    `json:"due_latencies,omitempty"`
	Lag             jsonLag           `json:"lag"`
	Dropped         uint64            `json:"dropped"`
	ErrorCounts     []jsonError       `json:"error_counts"`
	ErrorsOmitted   uint64            `json:"errors_omitted,omitempty"`
	LatencyBasis    string            `json:"latency_basis"`
	InputBases      map[string]string `json:"latency_basis_by_input,omitempty"`
	ByAttack        []jsonGroup       `json:"by_attack,omitempty"`
	ByTarget        []jsonGroup       `json:"by_target,omitempty"`
	ByStep          []jsonGroup       `json:"by_step,omitempty"`
	Stragglers      uint64            `json:"stragglers,omitempty"`
	ReadIncomplete  bool              `json:"read_incomplete,omitempty"`
	Accounting      *jsonAccounting   `json:"accounting,omitempty"`
	Flow            *jsonFlow         `json:"flow,omitempty"`
}

// jsonAccounting says whether every scheduled request is in the results
// once (present for loadlab's attacks, which record due times).
type jsonAccounting struct {
	Scheduled uint64 `json:"scheduled"`
	Sent      uint64 `json:"sent"`
	Dropped   uint64 `json:"dropped"`
	Missing   uint64 `json:"missing"`
	Twice     uint64 `json:"twice"`
	// Planned is the requests the attacks' schedules planned (0: unknown)
	// and NeverRecorded those of them beyond the last one recorded.
	Planned       uint64 `json:"planned,omitempty"`
	NeverRecorded uint64 `json:"never_recorded,omitempty"`
	Complete      bool   `json:"complete"`
}

func codesJSON(m *metrics.Metrics) map[string]int {
	out := make(map[string]int, len(m.StatusCodes))
	for c, n := range m.StatusCodes {
		out[strconv.Itoa(int(c))] = int(n)
	}
	return out
}

func groupsJSON(gs []*metrics.Group) []jsonGroup {
	if len(gs) < 2 {
		return nil
	}
	out := make([]jsonGroup, len(gs))
	for i, g := range gs {
		m := g.Metrics
		var errs uint64
		for _, e := range m.Errors {
			errs += e.Count
		}
		out[i] = jsonGroup{
			Key: g.Key, Requests: m.Requests, Rate: m.Rate, Success: m.Success,
			Latencies: latenciesJSON(&m.Latencies), Codes: codesJSON(m), Errors: errs + m.ErrorsOmitted,
		}
	}
	return out
}

func toJSON(m *metrics.Metrics, bases []InputBasis) *jsonReport {
	j := &jsonReport{
		Latencies: latenciesJSON(&m.Latencies),
		BytesIn:   jsonBytes{m.BytesIn.Total, m.BytesIn.Mean},
		BytesOut:  jsonBytes{m.BytesOut.Total, m.BytesOut.Mean},
		Earliest:  m.Earliest, Latest: m.Latest, End: m.End,
		Duration: m.Duration, Wait: m.Wait,
		Requests: m.Requests, Rate: m.Rate, Throughput: m.Throughput, Success: m.Success,
		StatusCodes:   codesJSON(m),
		Errors:        m.ErrorTexts(),
		Lag:           jsonLag{m.Lag.Late, metrics.DefaultLateAfter, m.Lag.Mean, m.Lag.P99, m.Lag.Max},
		Dropped:       m.Dropped,
		ErrorCounts:   make([]jsonError, len(m.Errors)),
		ErrorsOmitted: m.ErrorsOmitted,
		LatencyBasis:  "due",
	}
	for i, e := range m.Errors {
		j.ErrorCounts[i] = jsonError{e.Text, e.Count}
	}
	switch {
	case m.Basis() == metrics.FromSend:
		j.LatencyBasis = "send"
		if m.DueDiffers() {
			s := latenciesJSON(&m.OtherLatencies)
			j.DueLatencies = &s
		}
	case m.DueDiffers():
		s := latenciesJSON(&m.OtherLatencies)
		j.SendLatencies = &s
		if due, send := mixedBases(bases); due != nil {
			j.InputBases = map[string]string{}
			for _, n := range due {
				j.InputBases[n] = "due"
			}
			for _, n := range send {
				j.InputBases[n] = "send"
			}
		}
	default:
		j.LatencyBasis = "send"
	}
	if b := m.Breakdown(); b != nil {
		j.ByAttack, j.ByTarget, j.ByStep = groupsJSON(b.ByAttack()), groupsJSON(b.ByTarget()), groupsJSON(b.ByStep())
	}
	if a := m.Accounting; a.Known() || a != nil && a.NeverRecorded > 0 {
		j.Accounting = &jsonAccounting{Scheduled: a.Scheduled, Sent: m.Requests - m.Dropped, Dropped: m.Dropped,
			Missing: a.Missing, Twice: a.Twice, Planned: a.PlannedTotal(), NeverRecorded: a.NeverRecorded, Complete: a.Complete()}
	}
	return j
}

// WriteJSON writes m (closed) as one JSON object on one line: vegeta's keys
// and units (nanoseconds, ratios), then loadlab's extra keys.
func WriteJSON(w io.Writer, m *metrics.Metrics) error {
	return json.NewEncoder(w).Encode(toJSON(m, nil))
}
