package results

import "strings"

// A duet is one attack measuring two builds at once: every target is sent
// as written (side A) and with its scheme://host:port replaced by another
// base URL (side B), alternately, so that whatever the machine does to the
// attack falls on both (loadlab attack -duet). Its header's
// Labels[DuetLabel] is side B's base URL; a result is side B's when its
// URL starts with it (the attack refuses a B base URL that a target's
// URL, as written, already has).

// DuetLabel is the header label naming side B's base URL in a duet's
// results.
const DuetLabel = "duet"

// DuetSide is the side of a duet's result whose side B is sent to base
// (scheme://host:port): 1 for B, 0 for A.
func DuetSide(r *Result, base string) int {
	if rest, ok := strings.CutPrefix(r.URL, base); ok && (rest == "" || strings.IndexByte("/?#", rest[0]) >= 0) {
		return 1
	}
	return 0
}
