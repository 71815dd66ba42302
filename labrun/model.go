package labrun

import "time"

// The report's input. Everything a report shows is in a Run, so that the
// writers (WriteReport) are pure functions of it and a run can be
// re-rendered from its run.json.

// Run is one `petrel-lab run`: the experiments it ran and what it knew
// about the host.
type Run struct {
	// ID names the run's directory and files (lab-<UTC time>).
	ID      string    `json:"id"`
	Started time.Time `json:"started"`
	// Elapsed is the wall time of the whole run.
	Elapsed time.Duration `json:"elapsed_ns"`
	// Mode is "full", "quick" or "tiny".
	Mode string `json:"mode"`
	// Command is the command line that made the run.
	Command string `json:"command"`
	Host    Host   `json:"host"`
	// Versions maps a system ("petrel", "mariadb") and a tool to its
	// version string.
	Versions map[string]string `json:"versions"`
	// Notes are the run's caveats, shown at the top: a system left out,
	// a link emulation replaced by a weaker one.
	Notes []string `json:"notes,omitempty"`
	// Complete is false when the run was interrupted or an experiment
	// failed: the report then says INCOMPLETE at its top.
	Complete    bool               `json:"complete"`
	Experiments []ExperimentResult `json:"experiments"`
}

// Host is what the figures depend on besides the code.
type Host struct {
	Hostname string `json:"hostname"`
	Cores    int    `json:"cores"`
	Kernel   string `json:"kernel"`
	Go       string `json:"go"`
	// FsyncMicros is the median of 50 fsyncs of a 4 KiB write in the
	// output directory's file system.
	FsyncMicros float64 `json:"fsync_us"`
	// LoopbackRTTMicros is the median round trip of 200 one-byte
	// ping-pongs over a loopback TCP connection.
	LoopbackRTTMicros float64 `json:"loopback_rtt_us"`
	// Root says whether namespaces and TUN devices were available.
	Root bool `json:"root"`
}

// ExperimentResult is one experiment's outcome.
type ExperimentResult struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Systems are the systems that ran, in the order of round 1.
	Systems []string `json:"systems"`
	Rounds  int      `json:"rounds"`
	// Commands are the exact server flags, statements and tool command
	// lines the experiment used, per system.
	Commands []Command `json:"commands"`
	Charts   []Chart   `json:"charts"`
	// Metrics are the headline figures, one value per system and round.
	Metrics []Metric `json:"metrics"`
	// Checks are the end-state checks (row checksums on every replica).
	Checks  []Check       `json:"checks"`
	Notes   []string      `json:"notes,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Err is the experiment's failure, "" on success.
	Err string `json:"error,omitempty"`
}

// Command is one command an experiment ran.
type Command struct {
	System string `json:"system"`
	What   string `json:"what"`
	Text   string `json:"text"`
}

// ChartKind is how a chart draws its series.
type ChartKind string

const (
	// Lines draws each series as a polyline over a numeric x axis.
	Lines ChartKind = "lines"
	// Bars draws one bar per series and category (the points' X index
	// Categories).
	Bars ChartKind = "bars"
)

// Chart is one figure.
type Chart struct {
	ID     string    `json:"id"`
	Title  string    `json:"title"`
	Kind   ChartKind `json:"kind"`
	XLabel string    `json:"x_label"`
	YLabel string    `json:"y_label"`
	// LogX draws x on a log10 axis (clients 1..10000).
	LogX bool `json:"log_x,omitempty"`
	// Categories name the bars' x positions (Bars only).
	Categories []string `json:"categories,omitempty"`
	// Shade are x ranges drawn as grey bands (loss periods, cuts).
	Shade  []Span   `json:"shade,omitempty"`
	Series []Series `json:"series"`
}

// Span is a shaded x range.
type Span struct {
	From  float64 `json:"from"`
	To    float64 `json:"to"`
	Label string  `json:"label"`
}

// Series is one system's samples in one round.
type Series struct {
	System string  `json:"system"`
	Round  int     `json:"round"`
	Points []Point `json:"points"`
}

// Point is one sample.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Metric is one headline figure of one system, one value per round.
type Metric struct {
	Name   string    `json:"name"`
	Unit   string    `json:"unit"`
	System string    `json:"system"`
	Values []float64 `json:"values"`
	// LowerIsBetter orders the comparison column.
	LowerIsBetter bool `json:"lower_is_better,omitempty"`
}

// Check is one end-state check.
type Check struct {
	System string `json:"system"`
	Round  int    `json:"round"`
	What   string `json:"what"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}
