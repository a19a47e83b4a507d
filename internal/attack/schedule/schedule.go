// Package schedule computes when each request of an open-model attack is
// due: a constant rate, a linear ramp or a staircase of steps. Due times are
// computed from the request's index, never accumulated, so they do not
// drift however long the attack runs.
package schedule

import (
	"math"
	"strings"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

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

// flagNames are the attack flags each schedule input comes from.
var flagNames = map[string]string{"rate": "-rate", "duration": "-duration", "steps": "-steps", "step_duration": "-step-duration"}

func flagName(input string) string { return flagNames[input] }

// flagError words a grammar or schedule error with the attack's flags.
func flagError(flag string, err error) error {
	if ie, ok := err.(*InputError); ok {
		return badinput.Field(flagName(ie.Input), "%s", ie.Message(flagName))
	}
	return badinput.Field(flag, "%v", err)
}

// Parse reads the attack's -rate and -duration flags: a rate ("1000/s",
// "0") or a linear ramp "100/s..2000/s" over duration. duration 0 runs
// until cancelled, except for ramps, which need one. Errors name the flags.
func Parse(rate string, duration time.Duration) (*Schedule, error) {
	sp, err := ParseSpec(rate)
	if err != nil {
		return nil, flagError("-rate", err)
	}
	s, err := New(sp, duration)
	if err != nil {
		return nil, flagError("-rate", err)
	}
	return s, nil
}

// ParseSteps reads the attack's -steps "8,16,32" (rates in ParseRate's
// grammar), each held for -step-duration; -duration, when not 0, cuts the
// staircase short. Errors name the flags.
func ParseSteps(list string, stepDuration, duration time.Duration) (*Schedule, error) {
	sp, err := ParseStepList(list)
	if err != nil {
		return nil, flagError("-steps", err)
	}
	sp.StepDuration = stepDuration
	s, err := New(sp, duration)
	if err != nil {
		return nil, flagError("-steps", err)
	}
	return s, nil
}

// Length is how long the schedule runs: Duration, or a staircase's steps
// when they end sooner; 0 when it runs until cancelled.
func (s *Schedule) Length() time.Duration {
	if s.Kind == Steps {
		if all := time.Duration(len(s.StepRates)) * s.StepDuration; s.Duration <= 0 || all < s.Duration {
			return all
		}
	}
	return s.Duration
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
