package flow

import (
	"regexp"
	"time"

	"github.com/loadlab/loadlab/internal/results"
	"github.com/loadlab/loadlab/internal/targets"
)

// Flow is a loaded flow file: its steps compiled, its data read.
type Flow struct {
	Name      string // the flow's name (default: the file's base name)
	File      string // where it was read from
	Steps     []*Step
	Data      *Data // nil: no data file
	Pick      string
	Exhausted string // unique pick: stop | wrap
	Cookies   bool
	OnFailure string // stop | continue
	// vars are the variables' names by slot; nslots is their number.
	vars   []string
	cookie int   // the slot the session's Cookie header is rendered from
	strict []int // per slot: the strictest place a value goes (targets.InURL...)
}

// Step kinds.
const (
	KindRequest = "request"
	KindThink   = "think"
	KindGroup   = "group"
	KindLoop    = "loop"
)

// Step is one step of a flow.
type Step struct {
	Kind string
	Line int // where it starts in the flow file

	// request
	Name      string // "group/name"
	Target    *targets.Target
	WithJar   *targets.Target // Target with the session's Cookie header (cookies on)
	Captures  []*Capture
	Checks    []*Check
	OnFailure string
	Recorded  *results.FlowStep
	needBody  bool
	needHead  bool
	varUse    []varUse // the slots its templates use, and where

	// think
	Think Think

	// group, loop
	Steps []*Step
	Count int // loop count (0: over a list)
	Over  int // loop: slot of the list to go over (-1: count)
	As    int // loop: slot of the item's as: name (Item when none)
	Item  int // loop: slot of loop.item
	Index int // loop: slot of loop.index
}

// varUse is a slot a request's template uses and where it goes
// (targets.InURL, InHeader, InBody).
type varUse struct{ slot, where int }

// Think is a pause: fixed (Min), uniform in [Min, Max], or exponential
// with mean Mean.
type Think struct {
	Kind     string // fixed | uniform | exponential
	Min, Max time.Duration
	Mean     time.Duration
}

// Capture takes a value from an answer into a variable.
type Capture struct {
	Var    string
	Slot   int
	Kind   string // json | regex | header | cookie | status
	Path   *Path  // json
	Regex  *regexp.Regexp
	Header string // header name (canonical), cookie name
	List   bool   // json path with [*]: a list
	Line   int
	Name   string // as a failure names it: "token"
}

// Check is one check of an answer.
type Check struct {
	Name     string
	Kind     string // status | header | body_contains | json | latency_below
	Codes    []int
	Header   string
	Contains string
	Path     *Path
	Equals   any  // json equals (nil: see Exists)
	HasEq    bool // equals given
	Exists   bool // json exists: true / false
	Below    time.Duration
}
