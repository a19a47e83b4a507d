package trend

import (
	"math"
	"strconv"
)

// Number is a figure that encodes in JSON as null when it is not finite
// (an interval that could not be computed, a change from zero).
type Number float64

// MarshalJSON implements json.Marshaler.
func (n Number) MarshalJSON() ([]byte, error) {
	if !n.finite() {
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

func (n Number) finite() bool { return !math.IsNaN(float64(n)) && !math.IsInf(float64(n), 0) }
