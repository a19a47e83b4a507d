package results

import "strings"

// DroppedPrefix starts the Error of a result for a request the attack never
// sent: it was due while -max-workers requests were in flight, or the
// generator fell too far behind schedule (see internal/attack). Such a
// result has Code 0, Latency 0, its Due time and Sent set to when it was
// dropped. Reports count it as dropped (and as a failed request), never as
// a latency sample.
const DroppedPrefix = "dropped: "

// Dropped reports whether r stands for a request that was never sent.
func (r *Result) Dropped() bool { return r.Code == 0 && strings.HasPrefix(r.Error, DroppedPrefix) }
