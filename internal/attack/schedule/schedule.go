// Package schedule computes when each request of an open-model attack is
// due: a constant rate, a linear ramp or a staircase of steps. Due times are
// computed from the request's index, never accumulated, so they do not
// drift however long the attack runs.
package schedule

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

// Rate is a request rate of Freq requests per Per.
type Rate struct {
	Freq uint64
	Per  time.Duration
}

// PerSecond is the rate in requests per second.
func (r Rate) PerSecond() float64 {
	if r.Per <= 0 {
		return 0
	}
	return float64(r.Freq) * float64(time.Second) / float64(r.Per)
}

// IsZero reports whether r means "as fast as possible".
func (r Rate) IsZero() bool { return r.Freq == 0 }

// String formats r as it is parsed, e.g. "1000/s", "60/m" or "5/250ms".
func (r Rate) String() string {
	if r.Freq == 0 {
		return "0"
	}
	switch r.Per {
	case time.Second:
		return fmt.Sprintf("%d/s", r.Freq)
	case time.Minute:
		return fmt.Sprintf("%d/m", r.Freq)
	case time.Hour:
		return fmt.Sprintf("%d/h", r.Freq)
	}
	return fmt.Sprintf("%d/%s", r.Freq, r.Per)
}

// at is the offset of the i-th request (0-based) at this rate: i*Per/Freq,
// computed in 128 bits so it is exact.
func (r Rate) at(i uint64) time.Duration {
	hi, lo := bits.Mul64(i, uint64(r.Per))
	if hi >= r.Freq {
		return math.MaxInt64
	}
	q, _ := bits.Div64(hi, lo, r.Freq)
	if q > math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(q)
}

// count is how many requests are due strictly before d: ceil(d*Freq/Per).
func (r Rate) count(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(d), r.Freq)
	if hi >= uint64(r.Per) {
		return math.MaxUint64
	}
	q, rem := bits.Div64(hi, lo, uint64(r.Per))
	if rem != 0 {
		q++
	}
	return q
}

// ParseRate parses vegeta's rate syntax: "N" (per second), "N/s", "N/m",
// "N/h", "N/1s", "N/250ms"; "0" means as fast as possible.
func ParseRate(s string) (Rate, error) {
	s = strings.TrimSpace(s)
	num, per, hasPer := strings.Cut(s, "/")
	f, err := strconv.ParseUint(strings.TrimSpace(num), 10, 64)
	if err != nil {
		return Rate{}, fmt.Errorf("bad rate %q: want N, N/s, N/m or N/<duration>, e.g. 1000/s", s)
	}
	r := Rate{Freq: f, Per: time.Second}
	if hasPer {
		per = strings.TrimSpace(per)
		switch per {
		case "s", "m", "h", "ms", "us", "µs", "ns":
			per = "1" + per
		}
		d, err := time.ParseDuration(per)
		if err != nil || d <= 0 {
			return Rate{}, fmt.Errorf("bad rate %q: %q is not a positive duration", s, per)
		}
		r.Per = d
	}
	if f > 0 && r.Per/time.Duration(f) == 0 && f > uint64(r.Per) {
		return Rate{}, fmt.Errorf("bad rate %q: more than one request per nanosecond", s)
	}
	return r, nil
}

// Kind names a schedule shape.
type Kind uint8

// The schedule shapes.
const (
	Constant Kind = iota // Rate for Duration (forever when Duration is 0)
	Max                  // as fast as possible (rate 0)
	Ramp                 // linear from From to To over Duration
	Steps                // each rate of StepRates for StepDuration
)

// Schedule says when request i is due. The zero value is "as fast as
// possible, forever".
type Schedule struct {
	Kind         Kind
	Rate         Rate          // Constant
	From, To     Rate          // Ramp
	StepRates    []Rate        // Steps
	StepDuration time.Duration // Steps
	Duration     time.Duration // total length; 0 = until cancelled (Constant, Max)

	stepStart []uint64 // index of the first request of each step
}

// Parse parses a -rate value: a rate ("1000/s", "0") or a linear ramp
// "100/s..2000/s" over duration. duration 0 runs until cancelled, except
// for ramps, which need one.
func Parse(rate string, duration time.Duration) (*Schedule, error) {
	if duration < 0 {
		return nil, badinput.Field("-duration", "must not be negative, got %s", duration)
	}
	if from, to, ok := strings.Cut(rate, ".."); ok {
		f, err := ParseRate(from)
		if err != nil {
			return nil, badinput.Field("-rate", "%v", err)
		}
		t, err := ParseRate(to)
		if err != nil {
			return nil, badinput.Field("-rate", "%v", err)
		}
		if duration == 0 {
			return nil, badinput.Field("-rate", "a ramp %q needs a -duration to ramp over", rate)
		}
		if f.IsZero() && t.IsZero() {
			return nil, badinput.Field("-rate", "a ramp from 0 to 0 sends nothing")
		}
		return &Schedule{Kind: Ramp, From: f, To: t, Duration: duration}, nil
	}
	r, err := ParseRate(rate)
	if err != nil {
		return nil, badinput.Field("-rate", "%v", err)
	}
	if r.IsZero() {
		return &Schedule{Kind: Max, Duration: duration}, nil
	}
	return &Schedule{Kind: Constant, Rate: r, Duration: duration}, nil
}

// ParseSteps parses -steps "8,16,32" (rates, per second unless given as
// N/m etc.), each held for stepDuration. duration, when not 0, cuts the
// staircase short.
func ParseSteps(list string, stepDuration, duration time.Duration) (*Schedule, error) {
	if stepDuration <= 0 {
		return nil, badinput.Field("-step-duration", "must be positive with -steps, got %s", stepDuration)
	}
	var rates []Rate
	for i, f := range strings.Split(list, ",") {
		r, err := ParseRate(f)
		if err != nil {
			return nil, badinput.Field("-steps", "step %d: %v", i+1, err)
		}
		rates = append(rates, r)
	}
	total := stepDuration * time.Duration(len(rates))
	if duration > 0 && duration < total {
		total = duration
	}
	s := &Schedule{Kind: Steps, StepRates: rates, StepDuration: stepDuration, Duration: total}
	var n uint64
	for _, r := range rates {
		s.stepStart = append(s.stepStart, n)
		if !r.IsZero() {
			n += r.count(stepDuration)
		}
	}
	s.stepStart = append(s.stepStart, n)
	return s, nil
}

// Unpaced reports whether requests go out as fast as possible.
func (s *Schedule) Unpaced() bool { return s.Kind == Max }

// String describes the schedule as the user wrote it.
func (s *Schedule) String() string {
	switch s.Kind {
	case Max:
		return "0"
	case Ramp:
		return s.From.String() + ".." + s.To.String()
	case Steps:
		parts := make([]string, len(s.StepRates))
		for i, r := range s.StepRates {
			parts[i] = r.String()
		}
		return "steps " + strings.Join(parts, ",") + " x " + s.StepDuration.String()
	}
	return s.Rate.String()
}

// At returns when request i (0-based) is due, as an offset from the start,
// and its step. ok is false once i is past the end of the schedule. For an
// unpaced schedule every request is due at 0.
func (s *Schedule) At(i uint64) (due time.Duration, step uint32, ok bool) {
	switch s.Kind {
	case Max:
		return 0, 0, true
	case Constant:
		due = s.Rate.at(i)
	case Ramp:
		due = s.rampAt(i)
	case Steps:
		k := s.stepOf(i)
		if k >= len(s.StepRates) {
			return 0, 0, false
		}
		due = time.Duration(k)*s.StepDuration + s.StepRates[k].at(i-s.stepStart[k])
		step = uint32(k)
	}
	if s.Duration > 0 && due >= s.Duration {
		return 0, 0, false
	}
	return due, step, true
}

// stepOf finds the step holding request i.
func (s *Schedule) stepOf(i uint64) int {
	lo, hi := 0, len(s.StepRates)
	for lo < hi { // first step whose end is > i
		m := (lo + hi) / 2
		if s.stepStart[m+1] > i {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// rampAt solves N(t) = i for a rate rising linearly from r0 to r1 over D:
// N(t) = r0*t + (r1-r0)*t²/(2D).
func (s *Schedule) rampAt(i uint64) time.Duration {
	if i == 0 {
		return 0
	}
	r0, r1 := s.From.PerSecond(), s.To.PerSecond()
	d := s.Duration.Seconds()
	a := (r1 - r0) / d
	n := float64(i)
	var t float64
	if a == 0 {
		t = n / r0
	} else {
		disc := r0*r0 + 2*a*n
		if disc < 0 { // ramping down past zero: never due
			return math.MaxInt64
		}
		t = 2 * n / (r0 + math.Sqrt(disc))
	}
	if t*1e9 >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(math.Round(t * 1e9))
}

// Total is the number of requests the schedule sends, and false when it is
// unbounded (no duration, or as fast as possible).
func (s *Schedule) Total() (uint64, bool) {
	switch s.Kind {
	case Constant:
		if s.Duration == 0 {
			return 0, false
		}
		return s.Rate.count(s.Duration), true
	case Steps:
		n := uint64(0) // requests due before Duration
		for k, r := range s.StepRates {
			start := time.Duration(k) * s.StepDuration
			if start >= s.Duration {
				break
			}
			if !r.IsZero() {
				n += r.count(min(s.StepDuration, s.Duration-start))
			}
		}
		return n, true
	case Ramp:
		// binary search the first index past the end
		lo, hi := uint64(0), uint64(1)
		for {
			if _, _, ok := s.At(hi); !ok {
				break
			}
			hi *= 2
		}
		for lo < hi {
			m := lo + (hi-lo)/2
			if _, _, ok := s.At(m); ok {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return lo, true
	}
	return 0, false
}
