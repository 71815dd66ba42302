package labrun

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Experiment is one registered experiment.
type Experiment struct {
	Name        string
	Description string
	// Needs lists what the experiment uses beyond a Petrel binary:
	// "mariadb" (the anchor; left out with a note when missing), "root"
	// (namespaces and TUN; a userspace fallback is used and noted).
	Needs []string
	// RootOnly experiments have no userspace fallback: without root they
	// are reported as not run.
	RootOnly bool
	// Charts are the experiment's figures without series; trials fill
	// them by ID.
	Charts []Chart
	// Trial runs one system's round. Clusters it starts through t.Start
	// are checked (row checksums) and stopped after it returns.
	Trial func(ctx context.Context, t *Trial) error
}

var registry []*Experiment

// register adds e; experiments register in priority order (init of
// experiments*.go).
func register(e *Experiment) {
	if slices.ContainsFunc(registry, func(x *Experiment) bool { return x.Name == e.Name }) {
		panic("labrun: experiment " + e.Name + " registered twice")
	}
	registry = append(registry, e)
}

// priority orders the experiments (each file's init registers its own;
// Go runs them in file-name order). Unlisted ones come last.
var priority = []string{"packet-loss", "catch-up", "semisync-wan", "semisync-fallback", "link-cut",
	"clients-scaling", "durability", "parallel-apply", "catch-up-slow-disk", "fan-out", "bbr-vs-cubic", "clone", "failover", "proxy"}

// Experiments returns every registered experiment, in priority order.
func Experiments() []*Experiment {
	out := slices.Clone(registry)
	rank := func(e *Experiment) int {
		if i := slices.Index(priority, e.Name); i >= 0 {
			return i
		}
		return len(priority)
	}
	slices.SortStableFunc(out, func(a, b *Experiment) int { return rank(a) - rank(b) })
	return out
}

// Lookup returns the named experiments (all of them for none), or an
// error naming the unknown ones and listing the known.
func Lookup(names []string) ([]*Experiment, error) {
	if len(names) == 0 {
		return Experiments(), nil
	}
	var out []*Experiment
	var unknown []string
	for _, n := range names {
		i := slices.IndexFunc(registry, func(e *Experiment) bool { return e.Name == n })
		if i < 0 {
			unknown = append(unknown, n)
			continue
		}
		out = append(out, registry[i])
	}
	if len(unknown) > 0 {
		var known []string
		for _, e := range Experiments() {
			known = append(known, e.Name)
		}
		return nil, fmt.Errorf("unknown experiment %s; known: %s (petrel-lab list describes them)",
			strings.Join(quoteAll(unknown), ", "), strings.Join(known, ", "))
	}
	return out, nil
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// Trial is one system's round of one experiment: what it started and
// what it recorded.
type Trial struct {
	Env    *Env
	System string
	Round  int
	exp    string

	clusters []*Cluster
	series   map[string][]Series
	shades   map[string][]Span
	cats     map[string][]string
	metrics  []Metric
	checks   []Check
	commands []Command
	notes    []string
	versions map[string]string
}

// Start starts a cluster of the trial's system; the runner checks its end
// state and stops it when the trial returns.
func (t *Trial) Start(ctx context.Context, spec ClusterSpec) (*Cluster, error) {
	spec.System = t.System
	done := t.Env.Progress.Phase(t.label("start servers"), 0)
	defer done()
	c, err := StartCluster(ctx, t.Env, spec)
	if c != nil {
		t.clusters = append(t.clusters, c)
		if c.Version != "" {
			if t.versions == nil {
				t.versions = map[string]string{}
			}
			t.versions[t.System] = c.Version
		}
	}
	return c, err
}

// Done checks a cluster's end state now and stops it, so that a trial
// running many clusters in turn does not keep them all up until it ends.
// With skip set the check is left out and skip, the reason, is noted
// instead (a run the experiment gave up on as a figure, such as a replica
// that did not catch up within the wait).
func (t *Trial) Done(ctx context.Context, c *Cluster, skip string) error {
	i := slices.Index(t.clusters, c)
	if i < 0 {
		return fmt.Errorf("labrun: Done with a cluster the trial did not start")
	}
	t.clusters = slices.Delete(t.clusters, i, i+1)
	t.commands = append(t.commands, c.Commands...)
	if skip == "" {
		done := t.Env.Progress.Phase(t.label("end-state check"), 0)
		t.checks = append(t.checks, c.EndState(ctx, t.Round, endStateTimeout(t.Env.Mode))...)
		done()
	} else {
		t.Note(skip)
	}
	return c.Close(ctx)
}

// Series records a chart's points for the trial's system and round.
func (t *Trial) Series(chart string, pts []Point) {
	if t.series == nil {
		t.series = map[string][]Series{}
	}
	t.series[chart] = append(t.series[chart], Series{System: t.System, Round: t.Round, Points: pts})
}

// Shade marks an x range of a chart (same for every trial: shades are
// merged by value).
func (t *Trial) Shade(chart string, sp Span) {
	if t.shades == nil {
		t.shades = map[string][]Span{}
	}
	t.shades[chart] = append(t.shades[chart], sp)
}

// Categories names a bar chart's categories when they depend on the mode.
func (t *Trial) Categories(chart string, cats []string) {
	if t.cats == nil {
		t.cats = map[string][]string{}
	}
	t.cats[chart] = cats
}

// Metric records a headline figure for this round.
func (t *Trial) Metric(name, unit string, v float64, lowerIsBetter bool) {
	t.metrics = append(t.metrics, Metric{Name: name, Unit: unit, System: t.System, Values: []float64{v}, LowerIsBetter: lowerIsBetter})
}

// Note records a caveat shown with the experiment.
func (t *Trial) Note(s string) { t.notes = append(t.notes, s) }

// Command records a command the trial ran.
func (t *Trial) Command(what, text string) {
	t.commands = append(t.commands, Command{System: t.System, What: what, Text: text})
}

// Phase shows a phase of the trial in the progress output.
func (t *Trial) Phase(name string, planned timeDuration) func() {
	return t.Env.Progress.Phase(t.label(name), planned)
}

func (t *Trial) label(phase string) string {
	return fmt.Sprintf("%s %s r%d: %s", t.exp, t.System, t.Round, phase)
}
