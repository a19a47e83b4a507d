package recipe

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// MaxDuration caps every duration in a recipe (latencies, stage times).
const MaxDuration = 24 * time.Hour

// ParseDuration parses a recipe duration: "0", or a decimal number followed
// by a unit, one of "us", "ms", "s", "m" or "h" (e.g. "100ms", "1.5s").
// Origin_simulator knows only "ms" and "s"; the rest are loadlab extensions.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "0" {
		return 0, nil
	}
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.') {
		i++
	}
	num, unit := t[:i], t[i:]
	if num == "" {
		return 0, fmt.Errorf("want a number and a unit (ms, s), e.g. \"100ms\"")
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("bad number %q", num)
	}
	var scale time.Duration
	switch unit {
	case "us", "µs":
		scale = time.Microsecond
	case "ms":
		scale = time.Millisecond
	case "s":
		scale = time.Second
	case "m":
		scale = time.Minute
	case "h":
		scale = time.Hour
	case "":
		if f == 0 {
			return 0, nil
		}
		return 0, fmt.Errorf("missing unit (ms or s)")
	default:
		return 0, fmt.Errorf("unknown unit %q (want ms or s)", unit)
	}
	v := f * float64(scale)
	if v > float64(MaxDuration) {
		return 0, fmt.Errorf("longer than %v", MaxDuration)
	}
	return time.Duration(v), nil
}

// ParseDurationRange parses a duration or a range "A..B" (A <= B).
func ParseDurationRange(s string) (lo, hi time.Duration, err error) {
	a, b, isRange := strings.Cut(s, "..")
	if !isRange {
		d, err := ParseDuration(s)
		return d, d, err
	}
	if lo, err = ParseDuration(a); err != nil {
		return 0, 0, fmt.Errorf("range start: %w", err)
	}
	if hi, err = ParseDuration(b); err != nil {
		return 0, 0, fmt.Errorf("range end: %w", err)
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("range end %v is before its start %v", hi, lo)
	}
	return lo, hi, nil
}

// formatMillis renders d as origin_simulator prints latencies: integer
// milliseconds.
func formatMillis(d time.Duration) string {
	return strconv.FormatInt(d.Milliseconds(), 10)
}
