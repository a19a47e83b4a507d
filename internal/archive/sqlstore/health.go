package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/loadlab/loadlab/internal/archive"
	"github.com/loadlab/loadlab/internal/runblock"
)

// maxHealthText is the longest health column read: a runblock.Health as
// JSON takes about 150 bytes.
const maxHealthText = 4096

// healthText is h as stored in a health column.
func healthText(h runblock.Health) string {
	js, _ := json.Marshal(h)
	return string(js)
}

// parseHealth reads a health column: an empty one (a row stored before the archive
// kept health) or one that does not parse is Unknown.
func parseHealth(s string) runblock.Health {
	h := runblock.UnknownHealth()
	if s == "" || len(s) > maxHealthText {
		return h
	}
	if err := json.Unmarshal([]byte(s), &h); err != nil {
		return runblock.UnknownHealth()
	}
	return h
}

// scenarioHealth is the health stored per scenario: the bundle's, or a
// scenario's only step's.
func scenarioHealth(b *archive.Bundle) map[string]runblock.Health {
	if b.ScenarioHealth != nil {
		return b.ScenarioHealth
	}
	out := map[string]runblock.Health{}
	count := map[string]int{}
	for _, st := range b.Run.Steps {
		count[st.Scenario]++
		out[st.Scenario] = st.Health
	}
	for name, n := range count {
		if n > 1 {
			delete(out, name)
		}
	}
	return out
}

// Blocks returns a step's scenario in time blocks; nil for a run stored
// before the archive kept them.
func (s *Store) Blocks(ctx context.Context, id string, step int, scenario string) ([]runblock.Block, error) {
	seq, err := s.seq(ctx, id)
	if err != nil {
		return nil, err
	}
	var b []byte
	err = s.db.QueryRowContext(ctx, s.d.rebind("SELECT blocks FROM steps WHERE run_seq = ? AND idx = ? AND scenario = ?"), seq, step, scenario).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, archive.NotFound(fmt.Sprintf("step %d scenario %q of run %s", step, scenario, id))
	}
	if err != nil {
		return nil, s.dbError(err)
	}
	if len(b) == 0 {
		return nil, nil
	}
	blocks, err := runblock.DecodeBlocks(b)
	if err != nil {
		return nil, fmt.Errorf("%s: run %s step %d scenario %q: %v", s.name, id, step, scenario, err)
	}
	return blocks, nil
}
