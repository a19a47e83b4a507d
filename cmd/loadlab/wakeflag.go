package main

import (
	"context"
	"flag"
	"os"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/model"
	"github.com/loadlab/loadlab/internal/model/machinecost"
)

// wakeFlag registers -wake: which of the serial manager's costs the
// model assumes. Its default is $LOADLAB_WAKE when set, else machine.
func wakeFlag(fs *flag.FlagSet) *string {
	def := machinecost.ModeMachine
	if v := os.Getenv("LOADLAB_WAKE"); v != "" {
		def = v
	}
	return fs.String("wake", def, "the model's pool-manager `costs`: machine (this machine's, measured once in under a second and cached), "+
		"measure (measure them again now), or reference (a reference machine's: the same predictions on every machine); default $LOADLAB_WAKE, else machine")
}

// checkWake checks -wake's value.
func checkWake(mode string) error {
	switch mode {
	case machinecost.ModeMachine, machinecost.ModeMeasure, machinecost.ModeReference:
		return nil
	}
	return badinput.Field("-wake", "want machine, measure or reference, got %q", mode)
}

// modelCosts returns the costs -wake asks for and the sentence saying
// which they are.
func modelCosts(ctx context.Context, mode string) (model.Costs, string, error) {
	if err := checkWake(mode); err != nil {
		return model.Costs{}, "", err
	}
	dir, err := machinecost.Dir()
	if err != nil && mode != machinecost.ModeReference {
		mode = machinecost.ModeMeasure // no cache: measured each time
		dir = os.TempDir()
	}
	k, said := machinecost.For(ctx, dir, mode)
	return k, said, nil
}
