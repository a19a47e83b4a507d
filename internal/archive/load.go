package archive

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/loadlab/loadlab/internal/experiment/summary"
)

// Load is the run's load as the one who planned it thinks of it: a closed
// loop's users ("32 users", "1 user", "4-32 users" for a sweep), else the rate it
// sent ("350/s", "99.5/s").
func (r *Run) Load() string {
	switch lo, hi := UsersBounds(r.Users); {
	case hi == 0:
	case lo == hi:
		return summary.UsersText(lo) // "1 user"
	default:
		return usersRange(r.Users) + " users"
	}
	return strings.TrimSuffix(strconv.FormatFloat(r.Rate, 'f', 1, 64), ".0") + "/s"
}

// UsersBounds are the fewest and the most of a closed loop's users (a
// Run's Users); 0, 0 for a paced run. Runs are ordered by load with them
// (Filter.Sort "load").
func UsersBounds(users []int) (lo, hi int) {
	if len(users) == 0 {
		return 0, 0
	}
	return slices.Min(users), slices.Max(users)
}

// usersRange is the fewest and the most of users, "32" or "4-32"; "" for
// none.
func usersRange(users []int) string {
	if len(users) == 0 {
		return ""
	}
	lo, hi := UsersBounds(users)
	if lo == hi {
		return strconv.Itoa(lo)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}

// slugUsers matches the load part of a closed loop's slug, before its ID.
var slugUsers = regexp.MustCompile(`-([0-9]+)(?:-([0-9]+))?users-$`)

// SlugUsers are the users a run's slug names (Slug) when it was a closed
// loop: [32] of "users-60s-32users-<id>", [4 32] of "...-4-32users-<id>";
// nil for a paced run's slug. It gives the users of a run archived before
// the archive kept them. (A run shorter than half a second has no length
// in its slug: if its name ends in a number, that number reads as users.)
func SlugUsers(slug, id string) []int {
	m := slugUsers.FindStringSubmatch(strings.TrimSuffix(slug, id))
	if m == nil || !strings.HasSuffix(slug, "-"+id) {
		return nil
	}
	var users []int
	for _, s := range m[1:] {
		if n, err := strconv.Atoi(s); err == nil {
			users = append(users, n)
		}
	}
	return users
}
