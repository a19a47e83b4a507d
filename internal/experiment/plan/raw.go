package plan

// The raw* types mirror the YAML document; Parse turns them into a Plan.
// Every key is listed in docs/experiments.md.

type rawPlan struct {
	Name        Str                   `yaml:"name"`
	Description Str                   `yaml:"description"`
	Target      Str                   `yaml:"target"`
	Components  Ordered[rawComponent] `yaml:"components"`
	Vars        Ordered[Str]          `yaml:"vars"`
	Matrix      Ordered[Strs]         `yaml:"matrix"`
	StepName    Str                   `yaml:"step_name"`
	Steps       []rawStep             `yaml:"steps"`
	Scenarios   []rawScenario         `yaml:"scenarios"`
	Warmup      Dur                   `yaml:"warmup"`
	Cooldown    Dur                   `yaml:"cooldown"`
	Retries     Str                   `yaml:"retries"`
	Repeat      Str                   `yaml:"repeat"`
	Stop        rawStop               `yaml:"stop"`
	Samplers    rawSamplers           `yaml:"samplers"`
	Thresholds  Strs                  `yaml:"thresholds"`
	Search      *rawSearch            `yaml:"search"`
}

type rawComponent struct {
	Kind          Str                 `yaml:"kind"`
	Recipe        Str                 `yaml:"recipe"`
	Config        Str                 `yaml:"config"`
	Command       Strs                `yaml:"command"`
	Args          Strs                `yaml:"args"`
	Env           Ordered[Str]        `yaml:"env"`
	ListenPattern Str                 `yaml:"listen_pattern"`
	Health        Str                 `yaml:"health"`
	Metrics       Str                 `yaml:"metrics"`
	StartTimeout  Dur                 `yaml:"start_timeout"`
	Restart       Str                 `yaml:"restart"`
	Label         Str                 `yaml:"label"`
	Variants      Ordered[rawVariant] `yaml:"variants"`
}

type rawVariant struct {
	Label   Str             `yaml:"label"`
	Recipe  Str             `yaml:"recipe"`
	Config  Str             `yaml:"config"`
	Command Strs            `yaml:"command"`
	Args    Strs            `yaml:"args"`
	Env     Ordered[Str]    `yaml:"env"`
	Set     Ordered[Scalar] `yaml:"set"`
}

type rawStep struct {
	Name      Str           `yaml:"name"`
	Vars      Ordered[Str]  `yaml:"vars"`
	Variants  Ordered[Str]  `yaml:"variants"`
	Scenarios []rawScenario `yaml:"scenarios"`
}

type rawScenario struct {
	Name        Str          `yaml:"name"`
	Target      Str          `yaml:"target"`
	Targets     Str          `yaml:"targets"`
	TargetsFile Str          `yaml:"targets_file"`
	Flow        Str          `yaml:"flow"`
	Rate        Str          `yaml:"rate"`
	Steps       Strs         `yaml:"steps"`
	StepDur     Str          `yaml:"step_duration"`
	Duration    Str          `yaml:"duration"`
	Headers     Ordered[Str] `yaml:"headers"`
	Timeout     Str          `yaml:"timeout"`
	MaxWorkers  Str          `yaml:"max_workers"`
	Workers     Str          `yaml:"workers"`
	StartAfter  Str          `yaml:"start_after"`
	HTTP2       Str          `yaml:"http2"`
	KeepAlive   Str          `yaml:"keepalive"`
	Calibrate   Str          `yaml:"calibrate"`
	Duet        Str          `yaml:"duet"`
}

type rawStop struct {
	ErrorRatio  Str `yaml:"error_ratio"`
	Window      Dur `yaml:"window"`
	MinRequests Str `yaml:"min_requests"`
	OnFailure   Str `yaml:"on_component_failure"`
}

type rawSamplers struct {
	Interval Dur               `yaml:"interval"`
	Metrics  []rawMetricSource `yaml:"metrics"`
	PIDs     Strs              `yaml:"pids"`
}

type rawMetricSource struct {
	From   Str  `yaml:"from"`
	Path   Str  `yaml:"path"`
	Series Strs `yaml:"series"`
}
