package attackrun

import (
	"github.com/loadlab/loadlab/internal/attack"
	"github.com/loadlab/loadlab/internal/results"
)

// Watcher follows a job's attacks as they run, outside their results
// files: the live view, the Prometheus and OTLP exporters, the progress
// line.
type Watcher interface {
	results.Sink
	// Begin is called once per job, before its attacks start, with the
	// step the results that follow belong to ("" for an attack outside a
	// plan), the attacks' names (so their counters can start at zero) and
	// where their counters (sent, in flight, started...) are read, summed
	// over the job's attacks.
	Begin(step string, attacks []string, stats func() attack.Stats)
}

// sum reads the attacks' counters summed: the earliest start, the
// latest lag, the rest added up.
func sum(counters []func() attack.Stats) func() attack.Stats {
	if len(counters) == 1 {
		return counters[0]
	}
	return func() attack.Stats {
		var s attack.Stats
		for _, f := range counters {
			st := f()
			s.Sent += st.Sent
			s.Done += st.Done
			s.InFlight += st.InFlight
			s.Dropped += st.Dropped
			s.Late += st.Late
			s.Workers += st.Workers
			s.MaxLag = max(s.MaxLag, st.MaxLag)
			if s.Pacer == "" || st.Pacer == attack.PacerBatched {
				s.Pacer = st.Pacer // batched if any attack is
			}
			if s.Fallback == nil {
				s.Fallback = st.Fallback
			}
			if !st.Started.IsZero() && (s.Started.IsZero() || st.Started.Before(s.Started)) {
				s.Started = st.Started
			}
		}
		return s
	}
}
