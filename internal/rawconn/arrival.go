package rawconn

import "time"

// Arrival turns a receive timestamp (Unix ns, from Stamped.Recv or
// Conn.ReadStamped) into a time on
// now's monotonic clock, so it can be subtracted from other time.Now
// values: now less the stamp's age, the age clamped to [0, maxAge]. Zero
// when rx is 0 or older than maxAge (a stale or foreign stamp).
func Arrival(rx int64, now time.Time, maxAge time.Duration) time.Time {
	if rx == 0 {
		return time.Time{}
	}
	age := time.Duration(now.UnixNano() - rx)
	if age > maxAge {
		return time.Time{}
	}
	return now.Add(-max(age, 0))
}
