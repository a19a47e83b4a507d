package archive

import "github.com/loadlab/loadlab/internal/load"

// Load is the run's load as the one who planned it thinks of it: a closed
// loop's users ("32 users", "1 user", "4-32 users" for a sweep), else the
// rate it sent ("350/s", "99.5/s"). Runs are ordered by it (Filter.Sort
// "load"): paced runs by rate, then closed loops by their fewest and most
// users (load.Load.Bounds).
func (r *Run) Load() load.Load {
	if l := load.Closed(r.Users...); l.IsClosed() {
		return l
	}
	return load.PerSecond(r.Rate)
}
