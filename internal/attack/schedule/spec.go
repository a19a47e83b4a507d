package schedule

import (
	"fmt"
	"strings"
	"time"
)

// Spec is a schedule as the user writes it, before its length is known:
// a constant rate (From equal to To), a linear ramp from From to To, or a
// staircase of Steps each held StepDuration. The attack flags (-rate,
// -steps, -step-duration) and plan scenarios (rate:, steps:,
// step_duration:) both come down to a Spec.
type Spec struct {
	From, To     Rate
	Steps        []Rate
	StepDuration time.Duration
	Text         string // as written, for reports
}

// IsRamp reports whether the rate changes linearly over time.
func (s Spec) IsRamp() bool { return len(s.Steps) == 0 && !s.From.Equal(s.To) }

// ParseSpec reads a rate ("1000/s", "0") or a linear ramp between two
// rates ("100/s..2000/s").
func ParseSpec(s string) (Spec, error) {
	text := strings.TrimSpace(s)
	from, to, ramp := strings.Cut(text, "..")
	f, err := ParseRate(from)
	if err != nil {
		return Spec{}, err
	}
	t := f
	if ramp {
		if t, err = ParseRate(to); err != nil {
			return Spec{}, err
		}
		if f.IsZero() && t.IsZero() {
			return Spec{}, fmt.Errorf("a ramp from 0 to 0 sends nothing")
		}
	}
	return Spec{From: f, To: t, Text: text}, nil
}

// ParseStepList reads a staircase's rates, "8,16,32" (each in ParseRate's
// grammar); the caller sets StepDuration.
func ParseStepList(list string) (Spec, error) {
	var sp Spec
	parts := strings.Split(list, ",")
	for i, f := range parts {
		r, err := ParseRate(f)
		if err != nil {
			return Spec{}, fmt.Errorf("step %d: %v", i+1, err)
		}
		sp.Steps = append(sp.Steps, r)
		parts[i] = strings.TrimSpace(f)
	}
	sp.From, sp.To = sp.Steps[0], sp.Steps[len(sp.Steps)-1]
	sp.Text = strings.Join(parts, ",")
	return sp, nil
}

// InputError is a schedule that cannot run because of one of its inputs.
// Input is that input's neutral name, "rate", "duration", "steps" or
// "step_duration", and the message may refer to another input: Message
// words both with the caller's names (a flag, a plan field).
type InputError struct {
	Input string
	msg   func(name func(input string) string) string
}

// Message words the error with name(input) for each input it mentions.
func (e *InputError) Message(name func(input string) string) string { return e.msg(name) }

// Error words the error with the neutral names.
func (e *InputError) Error() string {
	same := func(s string) string { return s }
	return e.Input + ": " + e.msg(same)
}

func inputError(input string, msg func(name func(string) string) string) *InputError {
	return &InputError{Input: input, msg: msg}
}

// New builds the schedule of sp lasting duration: 0 runs until cancelled,
// except for ramps, which need a duration to ramp over; a staircase stops
// after its last step or at duration, whichever is first. Errors are
// *InputError.
func New(sp Spec, duration time.Duration) (*Schedule, error) {
	if duration < 0 {
		return nil, inputError("duration", func(func(string) string) string {
			return fmt.Sprintf("must not be negative, got %s", duration)
		})
	}
	if len(sp.Steps) > 0 {
		return newSteps(sp, duration)
	}
	if sp.IsRamp() {
		if duration == 0 {
			return nil, inputError("rate", func(name func(string) string) string {
				return fmt.Sprintf("a ramp %q needs a %s to ramp over", sp.Text, name("duration"))
			})
		}
		return &Schedule{Kind: Ramp, From: sp.From, To: sp.To, Duration: duration}, nil
	}
	if sp.From.IsZero() {
		return &Schedule{Kind: Max, Duration: duration}, nil
	}
	return &Schedule{Kind: Constant, Rate: sp.From, Duration: duration}, nil
}

func newSteps(sp Spec, duration time.Duration) (*Schedule, error) {
	if sp.StepDuration <= 0 {
		return nil, inputError("step_duration", func(name func(string) string) string {
			return fmt.Sprintf("must be positive with %s, got %s", name("steps"), sp.StepDuration)
		})
	}
	total := sp.StepDuration * time.Duration(len(sp.Steps))
	if duration > 0 && duration < total {
		total = duration
	}
	s := &Schedule{Kind: Steps, StepRates: sp.Steps, StepDuration: sp.StepDuration, Duration: total}
	var n uint64
	for _, r := range sp.Steps {
		s.stepStart = append(s.stepStart, n)
		if !r.IsZero() {
			n += r.count(sp.StepDuration)
		}
	}
	s.stepStart = append(s.stepStart, n)
	return s, nil
}
