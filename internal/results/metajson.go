package results

import (
	"encoding/json"
	"time"

	"github.com/loadlab/loadlab/internal/load"
)

// metaJSON is Meta as a header stores it, field for field in the order
// every version wrote them: the load is the schedule as given ("rate")
// and a closed loop's users ("users", absent for a paced attack and in
// the streams written before headers kept it).
type metaJSON struct {
	Version   int               `json:"version"`
	Created   time.Time         `json:"created"`
	Generator string            `json:"generator,omitempty"`
	Command   []string          `json:"command,omitempty"`
	Attack    string            `json:"attack,omitempty"`
	Rate      string            `json:"rate,omitempty"`
	Labels    map[string]string `json:"labels,omitempty"`
	Shard     *Shard            `json:"shard,omitempty"`
	Planned   uint64            `json:"planned,omitempty"`
	Users     int               `json:"users,omitempty"`
	Seed      uint64            `json:"seed,omitempty"`
	Templates []TemplatedTarget `json:"templates,omitempty"`
	Flow      string            `json:"flow,omitempty"`
}

// MarshalJSON writes m as a header stores it (metaJSON).
func (m Meta) MarshalJSON() ([]byte, error) {
	users, _ := m.Load.Bounds()
	return json.Marshal(metaJSON{Version: m.Version, Created: m.Created, Generator: m.Generator, Command: m.Command,
		Attack: m.Attack, Rate: m.Load.Rate, Labels: m.Labels, Shard: m.Shard, Planned: m.Planned, Users: users,
		Seed: m.Seed, Templates: m.Templates, Flow: m.Flow})
}

// UnmarshalJSON reads a header of any version (metaJSON).
func (m *Meta) UnmarshalJSON(b []byte) error {
	var w metaJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*m = Meta{Version: w.Version, Created: w.Created, Generator: w.Generator, Command: w.Command,
		Attack: w.Attack, Load: load.Of(w.Rate, w.Users), Labels: w.Labels, Shard: w.Shard, Planned: w.Planned,
		Seed: w.Seed, Templates: w.Templates, Flow: w.Flow}
	return nil
}
