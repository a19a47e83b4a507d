// Package load is what a run asked of the system under test, its load:
// a paced rate ("350/s", or a schedule as the user gave it), or a closed
// loop's users, each sending its next request when its answer came ("32
// users"; "4-16 users" for a sweep over several counts). It is the one
// place a load is written, read back and shown: run folders, results
// headers, summaries and the archive all hold a Load, and every old form
// they were written in reads into one (UnmarshalJSON). Rates shown as
// numbers are written here too (FmtRate, PerSecond).
package load

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Load is a run's, a step's or a scenario's load: paced at Rate, or a
// closed loop of Users users (the fewest and the most of them for a
// sweep). The zero Load is unknown (a stream written before its header
// kept it).
type Load struct {
	// Rate is a paced load's schedule as given ("350/s", "10/s..100/s");
	// a closed loop's is its rate of 0 as given, or "".
	Rate string
	// Users and MaxUsers are a closed loop's users: the fewest and the
	// most of them when it swept over several counts, both the same for
	// one; 0 for a paced load.
	Users, MaxUsers int
}

// Paced is a load paced at rate, a schedule as the user gave it.
func Paced(rate string) Load { return Load{Rate: rate} }

// PerSecond is a load paced at r requests a second: "350/s", "99.5/s".
func PerSecond(r float64) Load {
	return Load{Rate: strings.TrimSuffix(strconv.FormatFloat(r, 'f', 1, 64), ".0") + "/s"}
}

// Closed is a closed loop of the given users, one count per step (in any
// order): its fewest and its most. Counts of 0 or less are no users; none
// left is the zero Load.
func Closed(users ...int) Load {
	users = slices.DeleteFunc(slices.Clone(users), func(n int) bool { return n <= 0 })
	if len(users) == 0 {
		return Load{}
	}
	return Load{Users: slices.Min(users), MaxUsers: slices.Max(users)}
}

// Of is the load a results header or a summary's scenario records: its
// rate as given, and a closed loop's users when it kept them (users > 0).
func Of(rate string, users int) Load {
	l := Closed(users)
	l.Rate = rate
	return l
}

// IsClosed reports whether l is a closed loop's users.
func (l Load) IsClosed() bool { return l.MaxUsers > 0 }

// Bounds are a closed loop's fewest and most users; 0, 0 for a paced
// load.
func (l Load) Bounds() (lo, hi int) {
	if !l.IsClosed() {
		return 0, 0
	}
	return l.Users, l.MaxUsers
}

// String writes the load as a user reads it: "350/s", "1 user", "32
// users", "4-16 users"; "" for the zero Load.
func (l Load) String() string {
	switch {
	case !l.IsClosed():
		return l.Rate
	case l.MaxUsers == 1:
		return "1 user"
	}
	return l.Count() + " users"
}

// Count is a closed loop's users as numbers: "32", "4-16" for a sweep;
// "" for a paced load.
func (l Load) Count() string {
	switch {
	case !l.IsClosed():
		return ""
	case l.Users == l.MaxUsers:
		return strconv.Itoa(l.Users)
	}
	return fmt.Sprintf("%d-%d", l.Users, l.MaxUsers)
}

// Parse reads a load as String writes it: "350/s" (or any schedule with
// a number in it) is paced, "1 user", "32 users" and "4-16 users" are a
// closed loop's.
func Parse(s string) (Load, error) {
	s = strings.TrimSpace(s)
	n, ok := strings.CutSuffix(s, " users")
	if !ok {
		n, ok = strings.CutSuffix(s, " user")
	}
	if !ok {
		if !strings.ContainsAny(s, "0123456789") {
			return Load{}, fmt.Errorf("want a rate such as 350/s or users such as 32 users, got %q", s)
		}
		return Paced(s), nil
	}
	lo, hi, sweep := strings.Cut(n, "-")
	if !sweep {
		hi = lo
	}
	a, err1 := strconv.Atoi(lo)
	b, err2 := strconv.Atoi(hi)
	if err1 != nil || err2 != nil || a <= 0 || b < a {
		return Load{}, fmt.Errorf("want users such as 32 users or 4-16 users, got %q", s)
	}
	return Load{Users: a, MaxUsers: b}, nil
}

// FmtRate writes a rate with thousands separators: "1,040" or "12.5".
func FmtRate(r float64) string {
	if r < 100 {
		return strconv.FormatFloat(math.Round(r*10)/10, 'f', -1, 64)
	}
	n := int64(math.Round(r))
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// FmtPerSecond writes a measured per-second figure (a rate sent, a
// throughput) to about three places: "1040/s", "15.2/s", "0.25/s".
func FmtPerSecond(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0f/s", r)
	case r >= 10:
		return fmt.Sprintf("%.1f/s", r)
	}
	return fmt.Sprintf("%.2f/s", r)
}
