package main

import (
	"flag"
	"os"

	"github.com/loadlab/loadlab/internal/badinput"
	"github.com/loadlab/loadlab/internal/flow"
)

// fleetInput is what a fleet ships to its generators: the targets file
// of -targets, or the flow of -flow made self-contained (its data rows and
// bodies inline); exactly one of the two.
type fleetInput struct {
	targets, flow *string
}

// register adds -targets and -flow; where says where the input goes.
func (in *fleetInput) register(fs *flag.FlagSet, where string) {
	in.targets = fs.String("targets", "", "targets `file`, "+where+" (this or -flow)")
	in.flow = fs.String("flow", "", "flow `file` (docs/flows.md), "+where+" with its data rows and body files inline; each generator runs its shard of the sessions (this or -targets)")
}

// read returns the input's bytes, whether it is a flow, and the attack
// flags a probe of the generators' command line needs for it.
func (in *fleetInput) read() (data []byte, isFlow bool, probe []string, err error) {
	switch {
	case *in.targets != "" && *in.flow != "":
		return nil, false, nil, badinput.Field("-flow", "give -targets or -flow, not both")
	case *in.flow != "":
		data, err := flow.SelfContained(*in.flow)
		return data, true, []string{"-flow", *in.flow}, err
	case *in.targets != "":
		data, err := os.ReadFile(*in.targets)
		if err != nil {
			return nil, false, nil, badinput.Field("-targets", "%v", err)
		}
		return data, false, nil, nil
	}
	return nil, false, nil, badinput.Field("-targets", "give the targets file or a -flow file (it is shipped to every generator)")
}
