package report

import (
	"container/heap"
	"errors"
	"fmt"
	"io"

	"github.com/loadlab/loadlab/internal/results"
)

// Input is one named results source.
type Input struct {
	Name string
	Dec  results.Decoder
	// Shard is the input's shard record when it is one shard of a split
	// attack (loadlab attack -shard), else nil.
	Shard *results.Shard
	// Meta is the input's header when it has one (loadlab streams), else
	// nil: its Planned count lets the accounting tell an attack that did
	// not finish.
	Meta *results.Meta
}

// planned is, per attack name, the requests the inputs' headers planned
// (the largest when several inputs name one attack), nil when none said.
func (m *Merge) planned() map[string]uint64 {
	var out map[string]uint64
	for _, in := range m.inputs {
		if in.Meta == nil || in.Meta.Planned == 0 || in.Meta.Shard != nil {
			continue
		}
		if out == nil {
			out = map[string]uint64{}
		}
		out[in.Meta.Attack] = max(out[in.Meta.Attack], in.Meta.Planned)
	}
	return out
}

// Warning is a problem with an input that did not stop the report: the
// input ends in a torn or corrupt tail and everything before it is counted.
type Warning struct {
	Name    string                // input name
	Err     *results.CorruptError // where and why reading stopped
	Results uint64                // results read from this input before it
}

// String is the one-line warning printed to the user.
func (w Warning) String() string {
	if w.Err.Torn {
		return fmt.Sprintf("%s: %v; the %d results before it are reported (a killed or still-running attack leaves a torn tail)",
			w.Name, w.Err, w.Results)
	}
	return fmt.Sprintf("%s: %v; the %d results before it are reported, the rest of the file is unreadable",
		w.Name, w.Err, w.Results)
}

// Merge reads several inputs as one stream in approximate send-time order:
// each input is in completion order, and Merge always yields the pending
// result sent earliest. Torn or corrupt tails end their input and are kept
// as Warnings; other read errors stop the merge.
type Merge struct {
	h        mergeHeap
	Warnings []Warning
	started  bool
	inputs   []Input
	counts   []uint64
	due      []bool // the input's results carry due times
	last     int    // input of the result Decode returned last
	// oneStream makes Run read the inputs as one stream in send order even
	// when it could read them at once (for tests comparing the two).
	oneStream bool
}

// NewMerge returns a Merge over inputs.
func NewMerge(inputs ...Input) *Merge {
	return &Merge{inputs: inputs, counts: make([]uint64, len(inputs)), due: make([]bool, len(inputs))}
}

type head struct {
	r   results.Result
	src int
}

type mergeHeap []*head

func (h mergeHeap) Len() int           { return len(h) }
func (h mergeHeap) Less(i, j int) bool { return h[i].r.Sent.Before(h[j].r.Sent) }
func (h mergeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)        { *h = append(*h, x.(*head)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// fill reads the next result of input i into hd; false when the input ended.
func (m *Merge) fill(hd *head) (bool, error) {
	ok, w, err := m.next(hd.src, &hd.r)
	if w != nil {
		m.Warnings = append(m.Warnings, *w)
	}
	return ok, err
}

// next reads the next result of input i into r; false when the input
// ended, with a Warning when a torn or corrupt tail ended it. Inputs may
// be read concurrently, each by one goroutine.
func (m *Merge) next(i int, r *results.Result) (bool, *Warning, error) {
	in := m.inputs[i]
	err := in.Dec.Decode(r)
	if err == nil {
		m.counts[i]++
		m.due[i] = m.due[i] || !r.Due.IsZero()
		return true, nil, nil
	}
	if err == io.EOF {
		return false, nil, nil
	}
	var ce *results.CorruptError
	if errors.As(err, &ce) {
		return false, &Warning{Name: in.Name, Err: ce, Results: m.counts[i]}, nil
	}
	return false, nil, fmt.Errorf("%s: %w", in.Name, err)
}

// Decode yields the next result, io.EOF when every input is exhausted.
// The result's Body and Headers may be reused by later calls.
func (m *Merge) Decode(r *results.Result) error {
	if !m.started {
		m.started = true
		for i := range m.inputs {
			hd := &head{src: i}
			ok, err := m.fill(hd)
			if err != nil {
				return err
			}
			if ok {
				m.h = append(m.h, hd)
			}
		}
		heap.Init(&m.h)
	}
	if len(m.h) == 0 {
		return io.EOF
	}
	hd := m.h[0]
	*r = hd.r
	m.last = hd.src
	hd.r = results.Result{}
	ok, err := m.fill(hd)
	if err != nil {
		return err
	}
	if ok {
		heap.Fix(&m.h, 0)
	} else {
		heap.Pop(&m.h)
	}
	return nil
}

// hasShards reports whether any input is a shard of a split attack.
func (m *Merge) hasShards() bool {
	for _, in := range m.inputs {
		if in.Shard != nil {
			return true
		}
	}
	return false
}

// Source is the index of the input the last decoded result came from.
func (m *Merge) Source() int { return m.last }

// Damaged lists, per input, the damaged regions a resynchronising read
// skipped, as warnings.
func (m *Merge) Damaged() []string {
	var out []string
	for _, in := range m.inputs {
		if d, ok := in.Dec.(interface{ Damaged() []results.Damage }); ok {
			for _, dm := range d.Damaged() {
				out = append(out, in.Name+": "+dm.String())
			}
		}
	}
	return out
}

// DamageLost sums the results the skipped regions lost, as their block
// headers say; exact is false when a region's count is unknown or only a
// lower bound (see results.Damage.AtLeast). n is 0 without damage.
func (m *Merge) DamageLost() (n int64, regions int, exact bool) {
	exact = true
	for _, in := range m.inputs {
		if d, ok := in.Dec.(interface{ Damaged() []results.Damage }); ok {
			for _, dm := range d.Damaged() {
				regions++
				if dm.Lost < 0 || dm.AtLeast {
					exact = false
				}
				n += max(dm.Lost, 0)
			}
		}
	}
	return n, regions, exact
}

// Corrupt reports whether any input had a corrupt (not merely torn) tail.
func (m *Merge) Corrupt() bool {
	for _, w := range m.Warnings {
		if !w.Err.Torn {
			return true
		}
	}
	return false
}

// InputBasis says whether one input's results carry due times: latencies
// from the due time exist only for those that do (loadlab's streams), the
// others' (vegeta's files) run from the send time whatever the basis.
type InputBasis struct {
	Name     string
	DueTimes bool
}

// Bases returns each input's InputBasis, as far as it has been read.
func (m *Merge) Bases() []InputBasis {
	out := make([]InputBasis, len(m.inputs))
	for i, in := range m.inputs {
		out[i] = InputBasis{Name: in.Name, DueTimes: m.due[i]}
	}
	return out
}

// mixedBases returns the inputs with and without due times when there are
// both, else nil, nil.
func mixedBases(bases []InputBasis) (due, send []string) {
	for _, b := range bases {
		if b.DueTimes {
			due = append(due, b.Name)
		} else {
			send = append(send, b.Name)
		}
	}
	if len(due) == 0 || len(send) == 0 {
		return nil, nil
	}
	return due, send
}

// flows reports whether an input's header says it holds a flow's results
// (read as one stream: the flow's figures are counted from every result).
func (m *Merge) flows() bool {
	for _, in := range m.inputs {
		if in.Meta != nil && in.Meta.Flow != "" {
			return true
		}
	}
	return false
}
