package summary

// Design is the shape of the plan a run followed, as the analysis and the
// write-up need it: the matrix, whether steps compare configurations, and
// each scenario as the method section describes it. It is recorded in the
// summary so that a run folder can be analysed and written up again
// without the plan's other files.
type Design struct {
	Axes      []Axis           `json:"axes,omitempty"`
	Compares  bool             `json:"compares_configurations,omitempty"` // a component has several variants
	Steps     int              `json:"steps"`
	Warmup    string           `json:"warmup,omitempty"`
	Cooldown  string           `json:"cooldown,omitempty"`
	Scenarios []ScenarioDesign `json:"scenarios,omitempty"` // the first step's, with the rates of all steps
}

// Axis is one dimension of the plan's matrix. A component axis selects a
// component's variant; any other sets a variable.
type Axis struct {
	Key       string   `json:"key"`
	Values    []string `json:"values"`
	Component bool     `json:"component,omitempty"`
}

// ScenarioDesign is one scenario as the plan states it.
type ScenarioDesign struct {
	Name     string   `json:"name"`
	Target   string   `json:"target"`            // first target line, as written in the plan
	Rates    []string `json:"rates"`             // every rate it runs at, in step order
	Duration string   `json:"duration"`          // as a Go duration
	Headers  []string `json:"headers,omitempty"` // "Name: value"
}
