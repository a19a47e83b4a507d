package results

// Sink consumes results one at a time, the way vegeta's metrics take them
// (Report.Add). Every consumer of results implements it: the results
// stream being written, the aggregated metrics and their per-interval
// figures, the progress line, the charts' collectors and compare's runs.
// A Sink must not retain r: the caller may reuse it after Add returns.
type Sink interface {
	Add(r *Result)
}

// SinkFunc adapts a function to a Sink.
type SinkFunc func(*Result)

// Add calls f(r).
func (f SinkFunc) Add(r *Result) { f(r) }

// Tee returns a Sink that hands every result to each of sinks in order.
// Nil sinks are left out.
func Tee(sinks ...Sink) Sink {
	var t tee
	for _, s := range sinks {
		if s != nil {
			t = append(t, s)
		}
	}
	if len(t) == 1 {
		return t[0]
	}
	return t
}

type tee []Sink

func (t tee) Add(r *Result) {
	for _, s := range t {
		s.Add(r)
	}
}
