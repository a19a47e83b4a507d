package recipe

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxBodySize caps one generated or fetched body (64 MiB).
const MaxBodySize = 64 << 20

// ParseSize parses a size as origin_simulator does: an integer followed by
// "b", "kb" (1024 bytes) or "mb" (1024 kb), e.g. "300kb". Units are
// case-insensitive. Sizes above MaxBodySize are refused.
func ParseSize(s string) (int64, error) { return ParseSizeUpTo(s, MaxBodySize) }

// ParseSizeUpTo parses a size as ParseSize does, refusing sizes above max
// bytes.
func ParseSizeUpTo(s string, max int64) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	num, unit := t[:i], t[i:]
	if num == "" {
		return 0, fmt.Errorf("want an integer and a unit (b, kb, mb), e.g. \"300kb\"")
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n > max {
		return 0, fmt.Errorf("larger than the %d MB limit", max>>20)
	}
	switch unit {
	case "b":
	case "kb":
		n *= 1 << 10
	case "mb":
		n *= 1 << 20
	case "":
		return 0, fmt.Errorf("missing unit (b, kb or mb)")
	default:
		return 0, fmt.Errorf("unknown unit %q (want b, kb or mb)", unit)
	}
	if n > max {
		return 0, fmt.Errorf("larger than the %d MB limit", max>>20)
	}
	return n, nil
}

// ParseSizeRange parses a size or a range "A..B" (A <= B).
func ParseSizeRange(s string) (lo, hi int64, err error) {
	a, b, isRange := strings.Cut(s, "..")
	if !isRange {
		n, err := ParseSize(s)
		return n, n, err
	}
	if lo, err = ParseSize(a); err != nil {
		return 0, 0, fmt.Errorf("range start: %w", err)
	}
	if hi, err = ParseSize(b); err != nil {
		return 0, 0, fmt.Errorf("range end: %w", err)
	}
	if hi < lo {
		return 0, 0, fmt.Errorf("range end is smaller than its start")
	}
	return lo, hi, nil
}
