package model

import (
	"container/heap"
	"time"
)

// eventKind is what happens at an event.
type eventKind uint8

const (
	evArrive      eventKind = iota // a request reaches the system
	evDelivered                    // a request got its worker
	evGiveUp                       // the checkout timeout or the client's timeout fires
	evUpstreamEnd                  // the upstream answered, failed or timed out
	evManager                      // the serial manager takes its next message
	evSample                       // the once-a-second gauges
	evStepStart                    // the step begins after earlier steps' attacks: counters start over
)

// event is one thing due at a virtual instant; n orders events due at the
// same instant by when they were scheduled.
type event struct {
	at   time.Duration
	n    uint64
	kind eventKind
	r    *request
	p    *simPool
}

// agenda is the event queue, earliest first.
type agenda []event

func (a agenda) Len() int { return len(a) }
func (a agenda) Less(i, j int) bool {
	if a[i].at != a[j].at {
		return a[i].at < a[j].at
	}
	return a[i].n < a[j].n
}
func (a agenda) Swap(i, j int) { a[i], a[j] = a[j], a[i] }
func (a *agenda) Push(x any)   { *a = append(*a, x.(event)) }
func (a *agenda) Pop() any {
	old := *a
	e := old[len(old)-1]
	*a = old[:len(old)-1]
	return e
}

// clock is the simulation's virtual time and its agenda.
type clock struct {
	now  time.Duration
	next uint64
	q    agenda
}

// at schedules an event.
func (c *clock) at(t time.Duration, kind eventKind, r *request, p *simPool) {
	c.next++
	heap.Push(&c.q, event{at: t, n: c.next, kind: kind, r: r, p: p})
}

// pop takes the earliest event and moves time to it.
func (c *clock) pop() (event, bool) {
	if len(c.q) == 0 {
		return event{}, false
	}
	e := heap.Pop(&c.q).(event)
	c.now = e.at
	return e, true
}

// epoch is the wall-clock instant virtual time 0 stands for, for the
// breaker's and cache's clocks.
var epoch = time.Unix(1_000_000_000, 0)

// wall is the virtual instant as a time.Time.
func (c *clock) wall() time.Time { return epoch.Add(c.now) }
