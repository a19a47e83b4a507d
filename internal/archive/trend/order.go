package trend

import (
	"sort"
	"strings"
)

// NaturalLess orders label values as a person would: runs of digits by
// their number, the rest as text, so dates (2020-02-04), numbers (9 < 10)
// and versions (v1.9.2 < v1.10.0) sort right.
func NaturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := isDigit(a[0]), isDigit(b[0])
		if da && db {
			na, ra := digits(a)
			nb, rb := digits(b)
			ta, tb := strings.TrimLeft(na, "0"), strings.TrimLeft(nb, "0")
			if len(ta) != len(tb) {
				return len(ta) < len(tb)
			}
			if ta != tb {
				return ta < tb
			}
			if len(na) != len(nb) { // 01 before 1: a stable order for equal numbers
				return len(na) > len(nb)
			}
			a, b = ra, rb
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digits(s string) (run, rest string) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

// looksLikeHashes reports whether every value is a commit hash (7 to 64
// hexadecimal digits, some of them letters): such values have no order of
// their own.
func looksLikeHashes(values []string) bool {
	letters := false
	for _, v := range values {
		if len(v) < 7 || len(v) > 64 {
			return false
		}
		for i := 0; i < len(v); i++ {
			c := v[i]
			switch {
			case isDigit(c):
			case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
				letters = true
			default:
				return false
			}
		}
	}
	return letters
}

// order sorts points by their label value (natural order; commit hashes
// by the first start of each) and then by start time; by start time alone
// when by is empty.
func order(ps []Point, by string) {
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].Started.Before(ps[j].Started) })
	if by == "" {
		return
	}
	var values []string
	first := map[string]int{} // value -> rank of its first run
	for _, p := range ps {
		if _, ok := first[p.Label]; !ok {
			first[p.Label] = len(values)
			values = append(values, p.Label)
		}
	}
	if looksLikeHashes(values) {
		sort.SliceStable(ps, func(i, j int) bool { return first[ps[i].Label] < first[ps[j].Label] })
		return
	}
	sort.SliceStable(ps, func(i, j int) bool { return NaturalLess(ps[i].Label, ps[j].Label) })
}
