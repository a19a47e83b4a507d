package report

import "time"

// durations and Round reproduce how vegeta prints durations in text
// reports: rounded to the unit below the largest one that fits (5.016s,
// 21.508ms, 185.346µs).
var durations = [...]time.Duration{
	time.Hour, time.Minute, time.Second, time.Millisecond, time.Microsecond, time.Nanosecond,
}

// Round rounds d as vegeta prints durations in its text report; every
// latency loadlab prints in that style goes through it.
func Round(d time.Duration) time.Duration {
	for i, unit := range durations {
		if d >= unit && i < len(durations)-1 {
			return d.Round(durations[i+1])
		}
	}
	return d
}

// milliseconds converts d to fractional milliseconds exactly as vegeta's
// hdrplot reporter does.
func milliseconds(d time.Duration) float64 {
	msec, nsec := d/time.Millisecond, d%time.Millisecond
	return float64(msec) + float64(nsec)/1e6
}
