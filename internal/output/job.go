package output

import (
	"sync"
	"sync/atomic"

	"github.com/loadlab/loadlab/internal/attack"
)

// Job is the job in progress as an output sees it: the step its results
// belong to and where its attacks' counters are read. The zero Job is
// outside any step, with no counters. It is safe for concurrent use.
type Job struct {
	step atomic.Pointer[string] // read at every result: no lock

	mu    sync.Mutex
	stats func() attack.Stats
}

// Begin records that a job begins (attackrun.Watcher's Begin): the step
// of the results that follow ("" for an attack outside a plan) and where
// the job's counters are read, summed over its attacks. It returns where
// the previous job's counters were read (nil for the first), so that
// what they counted since the last flush is not lost.
func (j *Job) Begin(step string, stats func() attack.Stats) (prev func() attack.Stats) {
	j.mu.Lock()
	defer j.mu.Unlock()
	prev = j.stats
	j.step.Store(&step)
	j.stats = stats
	return prev
}

// Step is the step of the job in progress.
func (j *Job) Step() string {
	if p := j.step.Load(); p != nil {
		return *p
	}
	return ""
}

// Stats reads the counters of the job in progress; ok is false before
// the first job (or when it has none).
func (j *Job) Stats() (s attack.Stats, ok bool) {
	j.mu.Lock()
	f := j.stats
	j.mu.Unlock()
	if f == nil {
		return s, false
	}
	return f(), true
}
