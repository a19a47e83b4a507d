package shardset

import (
	"fmt"
	"unicode/utf8"
)

// Name names a run read from several files as the glob pattern that
// matches them all: shard-1-of-3.lll, shard-2-of-3.lll and
// shard-3-of-3.lll are shard-*-of-3.lll. Names with nothing in common
// before the part that differs are named by the first and a count. One
// name is itself.
func Name(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	pre, suf := names[0], names[0]
	for _, n := range names[1:] {
		pre = commonPrefix(pre, n)
		suf = commonSuffix(suf, n)
	}
	shortest := len(names[0])
	for _, n := range names[1:] {
		shortest = min(shortest, len(n))
	}
	// The prefix and the suffix must not overlap in any name.
	for len(pre)+len(suf) > shortest {
		_, size := utf8.DecodeRuneInString(suf)
		suf = suf[size:]
	}
	if pre == "" {
		return fmt.Sprintf("%s and %d more", names[0], len(names)-1)
	}
	return pre + "*" + suf
}

// commonPrefix is the longest prefix of a and b, whole runes only.
func commonPrefix(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) {
		ra, n := utf8.DecodeRuneInString(a[i:])
		rb, _ := utf8.DecodeRuneInString(b[i:])
		if ra != rb {
			break
		}
		i += n
	}
	return a[:i]
}

// commonSuffix is the longest suffix of a and b, whole runes only.
func commonSuffix(a, b string) string {
	i, j := len(a), len(b)
	for i > 0 && j > 0 {
		ra, n := utf8.DecodeLastRuneInString(a[:i])
		rb, m := utf8.DecodeLastRuneInString(b[:j])
		if ra != rb {
			break
		}
		i, j = i-n, j-m
	}
	return a[i:]
}
