package archive

import (
	"context"
	"time"
)

// Acceptance is a change a team accepted: from its run on, the run's
// level is the baseline a CI gate judges newer runs against (an intended
// slowdown, a new machine), so the gate stops failing on it.
type Acceptance struct {
	RunID string    `json:"run_id"`
	Note  string    `json:"note,omitempty"`
	At    time.Time `json:"at"`
}

// AcceptanceReader is a Reader that keeps acceptances: what the results
// site and the trend verdicts read of them.
type AcceptanceReader interface {
	// Accepted lists the acceptances, oldest first.
	Accepted(ctx context.Context) ([]Acceptance, error)
}

// Accepter is a Store that records acceptances (schema with the accepted
// table; every sqlstore.Store is one): what `loadlab archive accept` uses.
type Accepter interface {
	AcceptanceReader
	// Accept records that run id's level is accepted, with a note; accepting
	// a run again replaces its note.
	Accept(ctx context.Context, id, note string) (Acceptance, error)
}

// RunDetail is one run with its stored files: what `loadlab archive show
// -type json` prints and the results site serves at /api/runs/ID.
type RunDetail struct {
	*Run
	Files []File `json:"files"`
}
