package blackbox

import (
	"context"
	"errors"
	"time"

	"github.com/loadlab/loadlab/internal/badinput"
)

// Validate checks the bounds of a calibration as `loadlab model -fit`
// takes them (the target is checked when the calibration starts): an
// error is bad input naming the flag (-fit-step, -fit-max-rate,
// -fit-budget, -timeout).
func (o Options) Validate() error {
	switch {
	case o.Step < 100*time.Millisecond || o.Step > time.Minute:
		return badinput.Field("-fit-step", "want 100ms to 1m, got %v", o.Step)
	case o.MaxRate < 20 || o.MaxRate > 1e6:
		return badinput.Field("-fit-max-rate", "want 20 to 1000000 req/s, got %v", o.MaxRate)
	case o.Budget < 10:
		return badinput.Field("-fit-budget", "want at least 10 requests, got %d", o.Budget)
	case o.Timeout <= 0:
		return badinput.Field("-timeout", "want a positive duration, got %v", o.Timeout)
	}
	return nil
}

// LoadOrCalibrate returns the fit saved in the file load when it is given
// (o.Target, when given, must be the fit's target), or else calibrates
// o.Target and, when save is given, saves the fit there. What is wrong
// with the input is bad input naming the flag (-fit-load, -target,
// -fit-save).
func LoadOrCalibrate(ctx context.Context, load, save string, o Options) (*Fit, error) {
	switch {
	case load != "" && save != "":
		return nil, badinput.Field("-fit-save", "give -fit-load (reuse a calibration) or -fit-save (keep a new one), not both")
	case load == "" && o.Target == "":
		return nil, badinput.Field("-target", "give the request line to calibrate, e.g. -target 'GET http://127.0.0.1:8080/page'")
	}
	if load != "" {
		f, err := Load(load)
		if err != nil {
			return nil, err
		}
		if o.Target != "" && o.Target != f.Target {
			return nil, badinput.Field("-target", "%s holds a fit of %q, not of %q: leave -target out, or calibrate it", load, f.Target, o.Target)
		}
		return f, nil
	}
	f, err := Calibrate(ctx, o)
	var bad *BadTargetError
	switch {
	case errors.As(err, &bad):
		return nil, badinput.Field("-target", "%s", bad.Msg)
	case err != nil:
		return nil, err
	}
	if save != "" {
		if err := Save(save, f); err != nil {
			return nil, badinput.Field("-fit-save", "%v", err)
		}
	}
	return f, nil
}
