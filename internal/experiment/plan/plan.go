// Package plan reads and validates experiment plan files (YAML): the
// components to start, the steps (a matrix or a list) with their concurrent
// scenarios, samplers, stop conditions and thresholds. Everything is checked
// before anything starts; every problem is a *badinput.Error naming the file
// and line. The schema is documented in docs/experiments.md.
package plan

import (
	"regexp"
	"time"

	"github.com/loadlab/loadlab/internal/attack/schedule"
	"github.com/loadlab/loadlab/internal/experiment/threshold"
)

// Component kinds.
const (
	KindOrigin  = "origin"  // loadlab origin -recipe FILE
	KindProxy   = "proxy"   // loadlab proxy -config FILE
	KindCommand = "command" // any program: a build under test
)

// Plan is a validated experiment plan with its steps expanded.
type Plan struct {
	File        string // path as given
	Dir         string // directory relative paths are resolved against
	Source      []byte // the file's bytes, copied into the output folder
	Name        string
	Description string
	Target      string // external base URL when no components are started
	Components  []*Component
	Axes        []Axis // the matrix, outermost first ("" when steps are listed)
	Steps       []*Step
	Warmup      time.Duration
	Cooldown    time.Duration
	Retries     int // times a step is run again when the generator fell behind
	// Repeats is how many times every step runs (Repeat; 0 or 1: once).
	Repeats    int
	Stop       Stop
	Samplers   Samplers
	Thresholds []threshold.Threshold
	Overrides  []Override // variables set on the command line (-set)
	Search     *Search    // a capacity search instead of the steps as written, or nil
}

// Component is a process the runner starts, health-checks and stops.
type Component struct {
	Name          string
	Kind          string
	Label         string   // human description used in the report
	Recipe        string   // origin: recipe file (absolute)
	Config        string   // proxy: config file (absolute)
	Command       []string // command: argv; may contain ${addr} and ${port}
	Args          []string // extra arguments
	Env           []string // KEY=VALUE
	ListenPattern *regexp.Regexp
	Health        string // path polled until it answers
	MetricsPath   string // Prometheus path ("" when none)
	StartTimeout  time.Duration
	RestartEach   bool // restart before every step (else only when its variant changes)
	Variants      []*Variant
	Line          int
}

// Variant is a named configuration of a component (e.g. a pool setting or a
// build), chosen per step.
type Variant struct {
	Name    string
	Label   string
	Recipe  string
	Config  string
	Command []string
	Args    []string
	Env     []string
	Set     []Setting // dotted-path overrides applied to the config file
	Line    int
}

// Setting overrides one key of a YAML/JSON config file, e.g.
// pools.default.size = 16.
type Setting struct {
	Path  string
	Value any
	Line  int
}

// Axis is one dimension of a matrix. A key naming a component selects its
// variant; any other key is a variable usable as ${key}.
type Axis struct {
	Key       string
	Values    []string
	Component bool
}

// Step is one cell of the matrix or one entry of the step list.
type Step struct {
	Index     int
	Name      string
	Vars      map[string]string // variables, matrix values included
	Variants  map[string]string // component name -> variant name
	Scenarios []*Scenario
}

// Scenario is one attack run concurrently with the step's others.
type Scenario struct {
	Name        string
	Targets     string        // vegeta http-format targets; may hold ${comp.url}
	TargetsFile string        // absolute path, or ""
	Rate        schedule.Spec // the one rate grammar of the attack flags and plans
	Duration    time.Duration
	Headers     [][2]string
	Timeout     time.Duration
	MaxWorkers  int
	StartAfter  time.Duration
	HTTP2       bool
	KeepAlive   bool
	// Calibrate asks for the target to be calibrated as a black box (a
	// system the model does not know: HAProxy, nginx, a team's service)
	// once its components are up; the run then predicts the scenario from
	// the fitted queue, and a capacity search starts from its knee.
	Calibrate bool
	// Duet is side B's base URL when the scenario is a duet: every target
	// sent alternately as written and to Duet (attackrun.Attack.Duet); ""
	// for none.
	Duet string
	Line int
	// Flow is the flow file the scenario runs instead of targets (an
	// absolute path, or ""): each request the rate makes due starts a
	// session (rate: 0 with workers: N, N users looping it); its URLs may
	// hold ${comp.url} as targets do.
	Flow string
}

// Stop holds the stop conditions.
type Stop struct {
	ErrorRatio       float64       // abort the step above this (0 = never)
	Window           time.Duration // over the last Window
	MinRequests      int           // not before this many requests in the window
	ContinueOnFailed bool          // keep going when a component dies (default: abort the plan)
}

// Samplers says what is sampled during the steps.
type Samplers struct {
	Interval time.Duration
	Metrics  []MetricSource
	PIDs     []int
}

// MetricSource is a Prometheus endpoint and the series kept from it.
type MetricSource struct {
	From   string // component name, or an absolute URL
	Path   string
	Series []string // name, name{label="v"}, or prefix*
}

// Component returns the named component or nil.
func (p *Plan) Component(name string) *Component {
	for _, c := range p.Components {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Variant returns the named variant or nil.
func (c *Component) Variant(name string) *Variant {
	for _, v := range c.Variants {
		if v.Name == name {
			return v
		}
	}
	return nil
}
