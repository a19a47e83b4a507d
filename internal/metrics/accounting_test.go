package metrics

import (
	"testing"
	"time"

	"github.com/loadlab/loadlab/internal/results"
)

func accounted(seqs ...uint64) *Metrics {
	m := New()
	t0 := time.Unix(1700000000, 0)
	for _, s := range seqs {
		due := t0.Add(time.Duration(s) * time.Millisecond)
		m.Add(&results.Result{Attack: "a", Seq: s, Due: due, Sent: due, Latency: time.Millisecond, Code: 200})
	}
	m.Close()
	return m
}

func TestAccounting(t *testing.T) {
	m := accounted(0, 1, 2, 3, 5, 6, 6, 7)
	a := m.Accounting
	if !a.Known() || a.Complete() || a.Scheduled != 8 || a.Missing != 1 || a.Twice != 1 || a.Recorded != 8 {
		t.Fatalf("%+v", a)
	}
	if m := accounted(3, 1, 0, 2); !m.Accounting.Complete() || m.Accounting.Scheduled != 4 {
		t.Fatalf("complete out of order: %+v", m.Accounting)
	}
	// Without due times (vegeta's files) the accounting is unknown.
	v := New()
	v.Add(&results.Result{Seq: 5, Sent: time.Unix(1, 0), Code: 200})
	v.Close()
	if v.Accounting.Known() {
		t.Errorf("vegeta input: %+v", v.Accounting)
	}
	// A damaged sequence number turns it off instead of allocating.
	if m := accounted(0, 1<<40); m.Accounting.Known() || !m.Accounting.Unavailable {
		t.Errorf("huge seq: %+v", m.Accounting)
	}
}

// Shards of one attack each hold part of its sequence: merged, they are
// complete; a request both recorded is counted twice.
func TestAccountingMergesShards(t *testing.T) {
	a, b := accounted(0, 2, 4), accounted(1, 3, 5)
	a.Merge(b)
	a.Close()
	if !a.Accounting.Complete() || a.Accounting.Scheduled != 6 {
		t.Fatalf("merged shards: %+v", a.Accounting)
	}
	c := accounted(0, 1, 2)
	c.Merge(accounted(2, 3))
	c.Close()
	if c.Accounting.Twice != 1 || c.Accounting.Missing != 0 {
		t.Fatalf("overlap: %+v", c.Accounting)
	}
}

// A stream whose header planned more requests than it recorded is of an
// attack that did not finish: the planned requests never recorded are
// counted, and the accounting is not complete.
func TestAccountingPlanned(t *testing.T) {
	m := NewWith(Options{Planned: map[string]uint64{"": 10}})
	for _, s := range []uint64{0, 1, 2, 3} {
		m.Add(&results.Result{Seq: s, Due: time.Unix(1, 0), Sent: time.Unix(1, 0), Code: 200})
	}
	m.Close()
	if a := m.Accounting; a.Complete() || a.NeverRecorded != 6 || a.Missing != 0 || a.Scheduled != 4 || a.PlannedTotal() != 10 {
		t.Fatalf("killed attack: %+v", a)
	}
	full := NewWith(Options{Planned: map[string]uint64{"": 2}})
	for _, s := range []uint64{1, 0} {
		full.Add(&results.Result{Seq: s, Due: time.Unix(1, 0), Sent: time.Unix(1, 0), Code: 200})
	}
	full.Close()
	if a := full.Accounting; !a.Complete() || a.NeverRecorded != 0 {
		t.Fatalf("finished attack: %+v", a)
	}
}
