package metrics

import "github.com/loadlab/loadlab/internal/results"

// maxLedgerSeq bounds the sequence numbers the ledger tracks (16 MiB of
// bits per attack): a damaged file claiming a huge sequence number turns
// the accounting off instead of allocating without limit.
const maxLedgerSeq = 1 << 27

// Accounting checks that every request an attack scheduled is recorded
// exactly once: each result carries its attack's sequence number, so the
// numbers seen must run from 0 to the highest without a gap or a repeat.
// The whole run's Metrics keeps it (not its groups or intervals).
type Accounting struct {
	Scheduled uint64 // highest sequence number + 1, summed over attacks
	Recorded  uint64 // results seen with a due time (loadlab's own attacks)
	Missing   uint64 // sequence numbers never seen below the highest
	Twice     uint64 // results whose sequence number was seen before
	// Unavailable says a sequence number was beyond what is tracked, so the
	// figures above are not complete.
	Unavailable bool
	// Owned, when set, says which sequence numbers the inputs were to
	// record: shards of a split attack send only theirs, so the others
	// are not missing.
	Owned func(seq uint64) bool
	// Planned is, per attack name, the requests its schedule planned; nil
	// when unknown (see Options.Planned).
	Planned map[string]uint64
	// NeverRecorded counts the planned requests beyond the last one
	// recorded: the attack did not finish its plan (killed, interrupted,
	// out of targets) or its file was cut short. Missing does not count
	// them.
	NeverRecorded uint64
	// Sessions says the results are a flow's, whose schedule makes
	// sessions due: the figures above count sessions (each recorded on
	// its last result), not requests.
	Sessions bool

	ledgers map[string]*ledger
	last    *ledger // the last attack's ledger: consecutive results mostly share it
	lastKey string
}

type ledger struct {
	bits []uint64
	max  uint64
	any  bool
}

// Known reports whether the input had the due times and sequence numbers
// the accounting needs (loadlab's attacks record them; vegeta's do not
// record due times).
func (a *Accounting) Known() bool { return a != nil && a.Recorded > 0 && !a.Unavailable }

// Complete reports whether every scheduled request was recorded once, and
// every planned one was scheduled.
func (a *Accounting) Complete() bool {
	return a.Known() && a.Missing == 0 && a.Twice == 0 && a.NeverRecorded == 0
}

// PlannedTotal is the number of requests the attacks planned in all (0 when
// no input said).
func (a *Accounting) PlannedTotal() uint64 {
	var n uint64
	for _, p := range a.Planned {
		n += p
	}
	return n
}

func (a *Accounting) add(r *results.Result) {
	if r.Due.IsZero() || a.Unavailable {
		return
	}
	seq := r.Seq
	if r.FlowStep != nil {
		// A flow's schedule makes sessions due: each is recorded once,
		// on its last result (a dropped one's only result).
		if r.Ended.Outcome == "" {
			return
		}
		seq, a.Sessions = r.Session, true
	}
	if seq >= maxLedgerSeq {
		a.Unavailable = true
		a.ledgers = nil
		return
	}
	if a.ledgers == nil {
		a.ledgers = map[string]*ledger{}
	}
	l := a.last
	if l == nil || r.Attack != a.lastKey {
		if l = a.ledgers[r.Attack]; l == nil {
			l = &ledger{}
			a.ledgers[r.Attack] = l
		}
		a.last, a.lastKey = l, r.Attack
	}
	a.Recorded++
	word := int(seq / 64)
	for len(l.bits) <= word {
		l.bits = append(l.bits, 0)
	}
	bit := uint64(1) << (seq % 64)
	if l.bits[word]&bit != 0 {
		a.Twice++
	}
	l.bits[word] |= bit
	if !l.any || seq > l.max {
		l.max, l.any = seq, true
	}
}

// close computes Scheduled and Missing.
func (a *Accounting) close() {
	if a.Unavailable {
		return
	}
	a.Scheduled, a.Missing, a.NeverRecorded = 0, 0, 0
	for name, planned := range a.Planned {
		var got uint64
		if l := a.ledgers[name]; l != nil && l.any {
			got = l.max + 1
		}
		if got < planned {
			a.NeverRecorded += planned - got
		}
	}
	for _, l := range a.ledgers {
		if !l.any {
			continue
		}
		n := l.max + 1
		if a.Owned != nil {
			for seq := uint64(0); seq < n; seq++ {
				if a.Owned(seq) {
					a.Scheduled++
					if l.bits[seq/64]&(1<<(seq%64)) == 0 {
						a.Missing++
					}
				}
			}
			continue
		}
		a.Scheduled += n
		var seen uint64
		for i, w := range l.bits {
			for ; w != 0; w &= w - 1 {
				if uint64(i)*64 < n {
					seen++
				}
			}
		}
		a.Missing += n - seen
	}
}

// merge adds o's ledgers into a (shards of one attack share its sequence
// numbers, so their ledgers are combined bit by bit).
func (a *Accounting) merge(o *Accounting) {
	if o == nil {
		return
	}
	if o.Unavailable {
		a.Unavailable, a.ledgers = true, nil
	}
	if a.Unavailable {
		return
	}
	a.Recorded += o.Recorded
	a.Twice += o.Twice
	if a.ledgers == nil && len(o.ledgers) > 0 {
		a.ledgers = map[string]*ledger{}
	}
	for name, ol := range o.ledgers {
		l := a.ledgers[name]
		if l == nil {
			l = &ledger{}
			a.ledgers[name] = l
		}
		for len(l.bits) < len(ol.bits) {
			l.bits = append(l.bits, 0)
		}
		for i, w := range ol.bits {
			a.Twice += uint64(popcount(l.bits[i] & w))
			l.bits[i] |= w
		}
		if ol.any && (!l.any || ol.max > l.max) {
			l.max, l.any = ol.max, true
		}
	}
}

func popcount(w uint64) int {
	n := 0
	for ; w != 0; w &= w - 1 {
		n++
	}
	return n
}
