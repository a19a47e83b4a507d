package pool

import "sync/atomic"

// Stats holds a pool's monotonic counters. It can outlive a pool so that a
// pool rebuilt on config reload keeps counting where the old one stopped.
type Stats struct {
	checkouts      atomic.Uint64
	timeouts       atomic.Uint64
	overflowOpened atomic.Uint64
	overflowClosed atomic.Uint64
}

// Snapshot is a pool's state at one instant.
type Snapshot struct {
	Name           string `json:"name"`
	Manager        string `json:"manager"` // serial or concurrent
	Size           int    `json:"size"`
	Overflow       int    `json:"overflow"`
	InUse          int    `json:"in_use"`          // workers checked out, overflow included
	Idle           int    `json:"idle"`            // persistent workers free
	OverflowInUse  int    `json:"overflow_in_use"` // overflow workers alive
	Waiting        int    `json:"waiting"`         // callers queued for a worker
	Mailbox        int    `json:"mailbox"`         // serial: messages queued for the manager
	MailboxPeak    int    `json:"mailbox_peak"`    // serial: the most ever queued
	Checkouts      uint64 `json:"checkouts"`       // successful checkouts
	Timeouts       uint64 `json:"checkout_timeouts"`
	OverflowOpened uint64 `json:"overflow_opened"` // overflow workers started
	OverflowClosed uint64 `json:"overflow_closed"` // workers dismissed
}
