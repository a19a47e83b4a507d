package report

import (
	"sync"

	"github.com/loadlab/loadlab/internal/metrics"
	"github.com/loadlab/loadlab/internal/results"
)

// aggregate reads every input on a goroutine of its own into metrics of
// its own (one per input, in input order, not closed): the order results
// are counted in changes none of the whole-run figures, so a report of
// several files without intervals uses every core, and the merged figures
// are the inputs' metrics merged (exact: counts add, HDR histograms merge
// bucket by bucket). Warnings are kept in input order. It must be called
// instead of Decode, never with it.
func (m *Merge) aggregate(o metrics.Options) ([]*metrics.Metrics, error) {
	per := make([]*metrics.Metrics, len(m.inputs))
	warns := make([]*Warning, len(m.inputs))
	errs := make([]error, len(m.inputs))
	var wg sync.WaitGroup
	for i := range m.inputs {
		per[i] = metrics.NewWith(o)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r results.Result
			for {
				ok, w, err := m.next(i, &r)
				if !ok {
					warns[i], errs[i] = w, err
					return
				}
				per[i].Add(&r)
			}
		}()
	}
	wg.Wait()
	m.started = true // the inputs are read: Decode has nothing left
	for i := range m.inputs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if warns[i] != nil {
			m.Warnings = append(m.Warnings, *warns[i])
		}
	}
	return per, nil
}
