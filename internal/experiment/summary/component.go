package summary

import "path/filepath"

// ComponentRun describes one start of a component, for the report.
type ComponentRun struct {
	Name        string   `json:"name"`
	Kind        string   `json:"kind"`
	Variant     string   `json:"variant,omitempty"`
	Label       string   `json:"label,omitempty"`
	CommandLine string   `json:"command_line"`
	URL         string   `json:"url,omitempty"`
	PID         int      `json:"pid,omitempty"`
	File        string   `json:"file,omitempty"` // recipe or config used
	Log         string   `json:"log,omitempty"`  // full output, relative to the output folder
	Died        bool     `json:"died,omitempty"`
	Exit        string   `json:"exit,omitempty"`
	LastOutput  []string `json:"last_output,omitempty"`
	StartError  string   `json:"start_error,omitempty"`
}

// KeptFile is where the run folder holds the component's File, relative
// to the folder and slash-separated: components/<name> when the run kept
// a copy in its components/ (a proxy's rendered config, an origin's
// recipe), read there wherever the folder is now and never elsewhere; ""
// for a file the run left where the plan named it (an older run's recipe).
func (c ComponentRun) KeptFile() string {
	if c.File == "" || filepath.Base(filepath.Dir(c.File)) != "components" {
		return ""
	}
	return "components/" + filepath.Base(c.File)
}

// Machine describes where the run happened, for the report's setup.
type Machine struct {
	Hostname string  `json:"hostname"`
	OS       string  `json:"os"`
	Kernel   string  `json:"kernel,omitempty"`
	CPU      string  `json:"cpu,omitempty"`
	Cores    int     `json:"cores"`
	MemoryGB float64 `json:"memory_gb,omitempty"`
	Go       string  `json:"go"`
}

// PoolLimits is what a step's proxy config says about the pool its first
// scenario's route draws from: the figures the staircase is checked against.
type PoolLimits struct {
	Pool            string  `json:"pool"`
	Size            int     `json:"size"`
	Overflow        int     `json:"overflow"`
	CheckoutTimeout float64 `json:"checkout_timeout_seconds"`
	RequestTimeout  float64 `json:"request_timeout_seconds"`
	TimeoutStatus   int     `json:"timeout_status"`
}

// Staircase is the pool staircase measured in one scenario's results:
// under a saturated pool, latency by send time climbs in plateaus, one per
// batch of requests the pool's workers take in together, each a fixed
// increment above the last, up to a ceiling where requests start to fail
// with the pool's checkout timeout.
type Staircase struct {
	Steps      int     `json:"steps"`             // regular rises measured
	StepLength float64 `json:"step_seconds"`      // mean time between the starts of consecutive plateaus
	Increment  float64 `json:"increment_seconds"` // mean rise from one plateau to the next
	Base       float64 `json:"base_seconds"`      // the first plateau's latency (the service time)
	Top        float64 `json:"top_seconds"`       // the highest plateau's latency
	MaxOK      float64 `json:"max_ok_seconds"`    // highest latency of the successful requests (running median of 5)
	Failures   int     `json:"failures,omitempty"`
	FailAt     float64 `json:"fail_seconds,omitempty"` // median latency of the failed requests
	FailStatus string  `json:"fail_status,omitempty"`  // their most common status ("error" when none)
}
