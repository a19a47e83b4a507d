// Package slug turns free text (plan, step, chart and group names) into a
// piece of a file or folder name: lower-case ASCII letters and digits, every
// other run of characters one dash, at most MaxLen bytes.
package slug

import "strings"

// MaxLen bounds a slug, so a long step name still makes a usable file name.
const MaxLen = 60

// Make returns the slug of s, or fallback when s has no letter or digit.
func Make(s, fallback string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
		if b.Len() >= MaxLen {
			break
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if out == "" {
		return fallback
	}
	return out
}
