package verdict

import (
	"encoding/json"
	"math"
	"strconv"
)

// Number is a figure that encodes in JSON as null when it is not finite
// (an interval that could not be computed, a change from zero).
type Number float64

// MarshalJSON implements json.Marshaler.
func (n Number) MarshalJSON() ([]byte, error) {
	if !n.Finite() {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, float64(n), 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler: null is NaN.
func (n *Number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = Number(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	*n = Number(f)
	return err
}

// Finite reports whether n is a number (not NaN, not infinite).
func (n Number) Finite() bool { return !math.IsNaN(float64(n)) && !math.IsInf(float64(n), 0) }

// MarshalJSON implements json.Marshaler: the figures that could not be
// computed (an interval without runs enough) are null.
func (v Verdict) MarshalJSON() ([]byte, error) {
	type plain Verdict
	return json.Marshal(struct {
		plain
		Before Number `json:"before"`
		After  Number `json:"after"`
		Change Number `json:"change"`
		Lo     Number `json:"lo"`
		Hi     Number `json:"hi"`
		Noise  Number `json:"noise"`
	}{plain(v), Number(v.Before), Number(v.After), Number(v.Change), Number(v.Lo), Number(v.Hi), Number(v.Noise)})
}
