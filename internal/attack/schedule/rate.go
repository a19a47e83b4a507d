package schedule

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// Rate is a request rate of Freq requests per Per. Both forms a user can
// write are carried exactly: whole requests per unit ("1000/s", "5/250ms")
// as written, and decimal ones ("2.5/s", "0.25") as the fraction they
// stand for (5 per 2 s, 1 per 4 s).
type Rate struct {
	Freq uint64
	Per  time.Duration
}

// PerSecond is the rate in requests per second.
func (r Rate) PerSecond() float64 {
	if r.Per <= 0 {
		return 0
	}
	return float64(r.Freq) * float64(time.Second) / float64(r.Per)
}

// IsZero reports whether r means "as fast as possible" (or, in a
// staircase, a pause).
func (r Rate) IsZero() bool { return r.Freq == 0 }

// Equal reports whether r and o are the same rate, however written
// ("60/m" equals "1/s").
func (r Rate) Equal(o Rate) bool {
	if r.IsZero() || o.IsZero() {
		return r.IsZero() == o.IsZero()
	}
	h1, l1 := bits.Mul64(r.Freq, uint64(o.Per))
	h2, l2 := bits.Mul64(o.Freq, uint64(r.Per))
	return h1 == h2 && l1 == l2
}

// String formats r in the grammar ParseRate reads, e.g. "1000/s", "60/m"
// or "5/250ms".
func (r Rate) String() string {
	if r.Freq == 0 {
		return "0"
	}
	switch r.Per {
	case time.Second:
		return fmt.Sprintf("%d/s", r.Freq)
	case time.Minute:
		return fmt.Sprintf("%d/m", r.Freq)
	case time.Hour:
		return fmt.Sprintf("%d/h", r.Freq)
	}
	return fmt.Sprintf("%d/%s", r.Freq, r.Per)
}

// at is the offset of the i-th request (0-based) at this rate: i*Per/Freq,
// computed in 128 bits so it is exact.
func (r Rate) at(i uint64) time.Duration {
	hi, lo := bits.Mul64(i, uint64(r.Per))
	if hi >= r.Freq {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, r.Freq)
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(q)
}

// count is how many requests are due strictly before d: ceil(d*Freq/Per).
func (r Rate) count(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(d), r.Freq)
	if hi >= uint64(r.Per) {
		return math.MaxUint64
	}
	q, rem := bits.Div64(hi, lo, uint64(r.Per))
	if rem != 0 {
		q++
	}
	return q
}

// rateHelp is the grammar, for error messages.
const rateHelp = "want N or N/<unit>, e.g. 1000/s, 600/m, 2.5/s or 5/250ms"

// ParseRate reads one rate, the grammar of both the attack flags and
// plans: a number of requests ("1000", "2.5", "0") per second, or per a
// unit or duration after a slash ("1000/s", "600/m", "1/h", "5/250ms").
// "0" means as fast as possible. Errors name the text, not a flag or
// field: the caller adds where it came from.
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	num, unit, _ := strings.Cut(s, "/")
	per, err := parsePer(strings.TrimSpace(unit))
	if err != nil {
		return Rate{}, fmt.Errorf("bad rate %q: %v", s, err)
	}
	n, err := parseCount(strings.TrimSpace(num))
	if err != nil {
		return Rate{}, fmt.Errorf("bad rate %q: %s", s, rateHelp)
	}
	r, ok := exact(n, per)
	if !ok {
		return Rate{}, fmt.Errorf("bad rate %q: more than one request per nanosecond", s)
	}
	return r, nil
}

// parsePer reads what follows the slash: nothing (per second), a bare unit
// ("s", "ms") or a positive duration ("250ms", "1s").
func parsePer(unit string) (time.Duration, error) {
	switch unit {
	case "":
		return time.Second, nil
	case "s", "m", "h", "ms", "us", "µs", "ns":
		unit = "1" + unit
	}
	d, err := time.ParseDuration(unit)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration", unit)
	}
	return d, nil
}

// parseCount reads a non-negative number of requests exactly.
func parseCount(num string) (*big.Rat, error) {
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return nil, errors.New("not a number of requests")
	}
	if f == 0 {
		return new(big.Rat), nil
	}
	if n, ok := new(big.Rat).SetString(num); ok && n.Sign() > 0 {
		return n, nil // the decimal as written, not its float approximation
	}
	return new(big.Rat).SetFloat64(f), nil
}

// exact turns n requests per per into a Rate: n's numerator per its
// denominator times per. A fraction too fine for 64 bits is rounded to the
// nearest one that fits; ok is false above one request per nanosecond.
func exact(n *big.Rat, per time.Duration) (Rate, bool) {
	if n.Sign() == 0 {
		return Rate{Per: per}, true
	}
	x := new(big.Rat).Quo(n, new(big.Rat).SetInt64(int64(per))) // requests per ns
	if x.Cmp(big.NewRat(1, 1)) > 0 {
		return Rate{}, false
	}
	num := n.Num()
	den := new(big.Int).Mul(n.Denom(), big.NewInt(int64(per)))
	if num.IsUint64() && den.IsInt64() {
		return Rate{Freq: num.Uint64(), Per: time.Duration(den.Int64())}, true
	}
	return nearest(x), true
}

// nearest is the Rate closest to x requests per nanosecond (0 < x <= 1)
// whose period fits in a time.Duration: the last continued-fraction
// convergent of x that fits, or one request per the longest period.
func nearest(x *big.Rat) Rate {
	best := Rate{Freq: 1, Per: math.MaxInt64}
	// convergents p/q of 1/x = Per/Freq
	p0, q0 := big.NewInt(1), big.NewInt(0)
	p1, q1 := big.NewInt(0), big.NewInt(1)
	y := new(big.Rat).Inv(x)
	for range 64 {
		a := new(big.Int).Quo(y.Num(), y.Denom())
		p2 := new(big.Int).Add(new(big.Int).Mul(a, p0), p1)
		q2 := new(big.Int).Add(new(big.Int).Mul(a, q0), q1)
		if !p2.IsInt64() || p2.Sign() <= 0 || !q2.IsUint64() || q2.Sign() <= 0 {
			break
		}
		best = Rate{Freq: q2.Uint64(), Per: time.Duration(p2.Int64())}
		frac := new(big.Rat).Sub(y, new(big.Rat).SetInt(a))
		if frac.Sign() == 0 {
			break
		}
		y.Inv(frac)
		p0, p1, q0, q1 = p2, p0, q2, q0
	}
	return best
}
