package load

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MarshalJSON writes the load as String does: "350/s", "32 users", "4-16
// users".
func (l Load) MarshalJSON() ([]byte, error) { return json.Marshal(l.String()) }

// UnmarshalJSON reads every form a load was written in: as MarshalJSON
// writes it, a users count (a results header's or summary's "users": 16),
// and the users of each step (an archived run's "users": [4, 8, 16]).
// null and "" are the zero Load.
func (l *Load) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*l = Load{}
		return nil
	case len(b) > 0 && b[0] == '[':
		var users []int
		if err := json.Unmarshal(b, &users); err != nil {
			return fmt.Errorf("load: want the users of each step, got %s", b)
		}
		*l = Closed(users...)
		return nil
	case len(b) > 0 && b[0] != '"':
		var n int
		if err := json.Unmarshal(b, &n); err != nil {
			return fmt.Errorf("load: want users or a rate, got %s", b)
		}
		*l = Closed(n)
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "" {
		*l = Load{}
		return nil
	}
	v, err := Parse(s)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	*l = v
	return nil
}
