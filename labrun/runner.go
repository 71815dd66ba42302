package labrun

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"petrel/lab"
)

// Mode sizes every experiment: Tiny takes seconds (the test suite), Quick
// a few minutes for all of them, Full is what docs/PERFORMANCE.md quotes.
type Mode string

const (
	Tiny  Mode = "tiny"
	Quick Mode = "quick"
	Full  Mode = "full"
)

// pick returns the value for m.
func pick[T any](m Mode, tiny, quick, full T) T {
	switch m {
	case Tiny:
		return tiny
	case Quick:
		return quick
	}
	return full
}

// Env is what every trial of a run shares.
type Env struct {
	Logger *slog.Logger
	// PetrelBinary is the petrel executable every Petrel node runs.
	PetrelBinary string
	// TempDir holds every datadir of the run; removed at its end.
	TempDir string
	Mode    Mode
	// Root says whether namespaces and TUN devices can be used; without
	// it, experiments that want a WAN use a userspace Link and say so.
	Root     bool
	Progress *Progress
	// Clients, when set, are clients-scaling's points (Options.Clients).
	Clients []int

	// template is an initialised MariaDB datadir under TempDir that new
	// MariaDB nodes start from (mariadb-install-db takes 3 s, a copy
	// 0.4 s; a run starts dozens).
	template struct {
		once sync.Once
		dir  string
		err  error
	}
}

// mariadbTemplate returns the initialised datadir new MariaDB nodes copy,
// "" when the Env has no TempDir (then lab initialises each datadir).
func (e *Env) mariadbTemplate(ctx context.Context) (string, error) {
	if e.TempDir == "" {
		return "", nil
	}
	e.template.once.Do(func() {
		dir := filepath.Join(e.TempDir, "mariadb-template")
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		installDB := "mariadb-install-db"
		if _, err := exec.LookPath(installDB); err != nil {
			installDB = "/usr/bin/mariadb-install-db"
		}
		// The flags lab's StartMariaDB initialises a datadir with.
		args := []string{"--no-defaults", "--datadir=" + dir, "--auth-root-authentication-method=normal",
			"--skip-test-db", "--skip-name-resolve"}
		if os.Geteuid() == 0 {
			args = append(args, "--user=root")
		}
		out, err := exec.CommandContext(ctx, installDB, args...).CombinedOutput()
		if err != nil {
			e.template.err = fmt.Errorf("%s: %w\n%s", installDB, err, out)
			return
		}
		e.template.dir = dir
	})
	return e.template.dir, e.template.err
}

// fileLimit is the open-files limit (RLIMIT_NOFILE) a run raises itself
// to, and the servers and sysbench it starts inherit: clients-scaling's
// 10000 clients take 10000 sockets in sysbench and as many in the server,
// besides the server's own files (MariaDB sizes open_files_limit from it).
// fileLimitNeeded is the least limit the run takes without a note.
const (
	fileLimit       = 65536
	fileLimitNeeded = 12000
)

// Options configures Run.
type Options struct {
	// Experiments to run, by name, in order. Default: every registered one.
	Experiments []string
	// Mode. Default Full.
	Mode Mode
	// Rounds per system. Default: 1 in Tiny and Quick, 3 in Full.
	Rounds int
	// Systems to run. Default petrel and mariadb; mariadb is dropped with
	// a note when mariadbd is not installed.
	Systems []string
	// OutDir receives the run's directory (ID). Default: ./lab-out.
	OutDir string
	// Command is the command line, for the report.
	Command string
	// PetrelBinary, when set, is used instead of building cmd/petrel.
	PetrelBinary string
	Logger       *slog.Logger
	// Progress receives live progress. Default: a Progress on os.Stdout.
	Progress *Progress
	// NoRoot pretends the host has no root (tests the fallback).
	NoRoot bool
	// Clients, when set, are clients-scaling's points instead of the
	// mode's curve.
	Clients []int
}

// Run runs the experiments and writes the report into OutDir/ID, also on
// failure or cancellation (then marked INCOMPLETE). It returns the run and
// the report's directory; the error is the first experiment failure or
// the context's.
func RunExperiments(ctx context.Context, o Options) (Run, string, error) {
	if o.Mode == "" {
		o.Mode = Full
	}
	if o.Rounds <= 0 {
		o.Rounds = pick(o.Mode, 1, 1, 3)
	}
	exps, err := Lookup(o.Experiments)
	if err != nil {
		return Run{}, "", err
	}
	return runReported(ctx, o, o.Systems, func(ctx context.Context, env *Env, run *Run, systems []string) error {
		var firstErr error
		for _, e := range exps {
			res := runExperiment(ctx, env, e, systems, o.Rounds, run.Versions)
			if err := run.add(res); firstErr == nil {
				firstErr = err
			}
			if ctx.Err() != nil {
				run.Complete = false
				if firstErr == nil {
					firstErr = ctx.Err()
				}
				break
			}
		}
		return firstErr
	})
}

// runReported is what every kind of run shares: the report's directory,
// the host's facts, the Env (temporary directory, petrel binary, root),
// the tools' versions, and the report written at the end whatever body
// returned. o's defaults are applied first.
func runReported(ctx context.Context, o Options, wantSystems []string,
	body func(ctx context.Context, env *Env, run *Run, systems []string) error) (Run, string, error) {
	start := time.Now()
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Mode == "" {
		o.Mode = Full
	}
	if o.OutDir == "" {
		o.OutDir = "lab-out"
	}
	if o.Progress == nil {
		o.Progress = NewProgress(os.Stdout)
	}
	run := Run{
		ID: "lab-" + start.UTC().Format("20060102-150405"), Started: start, Mode: string(o.Mode),
		Command: o.Command, Versions: map[string]string{},
	}
	dir := filepath.Join(o.OutDir, run.ID)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return run, "", err
	}
	// Until the body starts, a failure leaves no report directory.
	reported := false
	defer func() {
		if !reported {
			os.RemoveAll(dir)
		}
	}()
	systems, notes := chooseSystems(wantSystems)
	run.Notes = append(run.Notes, notes...)
	if n, err := lab.RaiseFileLimit(fileLimit); err != nil || n < fileLimitNeeded {
		run.Notes = append(run.Notes, fmt.Sprintf("open-files limit %d (%v): clients-scaling's 10000 clients need %d, one file per client in sysbench and in the server and the server's own", n, err, fileLimitNeeded))
	}
	env := &Env{Logger: o.Logger, Mode: o.Mode, Progress: o.Progress, Clients: o.Clients}
	var err error
	if err = lab.WANAvailable(); err == nil && !o.NoRoot {
		env.Root = true
	} else {
		reason := "--no-root"
		if err != nil {
			reason = err.Error()
		}
		run.Notes = append(run.Notes, "no WAN emulation ("+reason+"): experiments that want kernel TCP across a lossy line use lab's userspace Link instead (latency, black holes, cuts; no random packet loss)")
	}
	run.Host = hostFacts(dir, env.Root)
	if env.TempDir, err = os.MkdirTemp("", "petrel-lab-"); err != nil {
		return run, "", err
	}
	defer os.RemoveAll(env.TempDir)
	env.PetrelBinary = o.PetrelBinary
	if env.PetrelBinary == "" {
		done := o.Progress.Phase("build petrel", 0)
		env.PetrelBinary, err = lab.BuildPetrel(ctx)
		done()
		if err != nil {
			return run, "", fmt.Errorf("build petrel (run from the repository, or pass --petrel-binary): %w", err)
		}
	}
	run.Versions["petrel-lab"] = "petrel binary " + env.PetrelBinary
	toolVersions(ctx, run.Versions, systems)

	run.Complete = true
	firstErr := body(ctx, env, &run, systems)
	run.Elapsed = time.Since(start)
	reported = true
	if err := WriteReport(dir, run); err != nil {
		return run, dir, errors.Join(firstErr, err)
	}
	return run, dir, firstErr
}

// add appends an experiment's result, marking the run incomplete on its
// failure or a failed check, and returns the first of those as an error.
func (run *Run) add(res ExperimentResult) error {
	run.Experiments = append(run.Experiments, res)
	var firstErr error
	if res.Err != "" {
		run.Complete = false
		firstErr = fmt.Errorf("%s: %s", res.Name, res.Err)
	}
	for _, c := range res.Checks {
		if !c.OK {
			run.Complete = false
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: %s round %d: %s: %s", res.Name, c.System, c.Round, c.What, c.Detail)
			}
		}
	}
	return firstErr
}

// chooseSystems drops MariaDB, with a note, when it is not installed.
func chooseSystems(want []string) ([]string, []string) {
	if len(want) == 0 {
		want = []string{"petrel", "mariadb"}
	}
	var out, notes []string
	for _, s := range want {
		if s == "mariadb" && !mariadbInstalled() {
			notes = append(notes, "MariaDB not found (mariadbd, mariadb-install-db; install with scripts/deps.sh): Petrel ran alone")
			continue
		}
		out = append(out, s)
	}
	return out, notes
}

// mariadbInstalled is haveMariaDB; tests replace it to run as on a host
// without MariaDB.
var mariadbInstalled = haveMariaDB

func haveMariaDB() bool {
	for _, t := range [][2]string{{"mariadbd", "/usr/sbin/mariadbd"}, {"mariadb-install-db", "/usr/bin/mariadb-install-db"}} {
		if _, err := exec.LookPath(t[0]); err != nil {
			if _, err := os.Stat(t[1]); err != nil {
				return false
			}
		}
	}
	return true
}

// toolVersions records the versions of the tools the run uses.
func toolVersions(ctx context.Context, v map[string]string, systems []string) {
	run := func(name string, args ...string) string {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, name, args...).Output()
		if err != nil {
			return "unknown (" + err.Error() + ")"
		}
		return strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	if slices.Contains(systems, "mariadb") {
		bin := "mariadbd"
		if _, err := exec.LookPath(bin); err != nil {
			bin = "/usr/sbin/mariadbd"
		}
		v["mariadbd"] = run(bin, "--version")
	}
}

// runExperiment runs e's trials, rounds interleaving the systems (the
// order reversed on even rounds, so the host's drift hits both), and
// assembles its result.
func runExperiment(ctx context.Context, env *Env, e *Experiment, systems []string, rounds int, versions map[string]string) ExperimentResult {
	start := time.Now()
	res := ExperimentResult{Name: e.Name, Description: e.Description, Systems: systems, Rounds: rounds}
	if e.RootOnly && !env.Root {
		res.Notes = append(res.Notes, "NOT RUN: this experiment needs root (network namespaces and TUN devices) and has no userspace fallback")
		res.Charts, res.Metrics = assemble(e, nil)
		return res
	}
	var trials []*Trial
	for r := 1; r <= rounds && ctx.Err() == nil; r++ {
		order := slices.Clone(systems)
		if r%2 == 0 {
			slices.Reverse(order)
		}
		for _, sys := range order {
			t := &Trial{Env: env, System: sys, Round: r, exp: e.Name}
			err := runTrial(ctx, t, e)
			trials = append(trials, t)
			for k, v := range t.versions {
				versions[k] = v
			}
			if err != nil {
				res.Err = fmt.Sprintf("%s round %d: %v", sys, r, err)
				env.Logger.Error("trial failed", "experiment", e.Name, "system", sys, "round", r, "err", err)
				break
			}
		}
		if res.Err != "" {
			break
		}
	}
	res.Charts, res.Metrics = assemble(e, trials)
	seen := map[string]bool{}
	for _, t := range trials {
		res.Checks = append(res.Checks, t.checks...)
		for _, c := range t.commands {
			if k := c.System + c.What + c.Text; !seen[k] {
				seen[k] = true
				res.Commands = append(res.Commands, c)
			}
		}
		for _, n := range t.notes {
			if !slices.Contains(res.Notes, n) {
				res.Notes = append(res.Notes, n)
			}
		}
	}
	if res.Err == "" && ctx.Err() != nil {
		res.Err = "interrupted: " + ctx.Err().Error()
	}
	res.Elapsed = time.Since(start)
	return res
}

// runTrial runs one trial, then checks and stops every cluster it
// started, whatever happened.
func runTrial(ctx context.Context, t *Trial, e *Experiment) (err error) {
	defer func() {
		for _, c := range t.clusters {
			t.commands = append(t.commands, c.Commands...)
		}
		if err == nil && ctx.Err() == nil {
			for _, c := range t.clusters {
				done := t.Env.Progress.Phase(t.label("end-state check"), 0)
				t.checks = append(t.checks, c.EndState(ctx, t.Round, endStateTimeout(t.Env.Mode))...)
				done()
			}
		}
		var cerr []error
		for i := len(t.clusters) - 1; i >= 0; i-- {
			cerr = append(cerr, t.clusters[i].Close(ctx))
		}
		if err != nil {
			for _, c := range t.clusters {
				t.Env.Logger.Debug("server logs", "logs", c.Logs())
			}
		}
		err = errors.Join(err, errors.Join(cerr...))
	}()
	return e.Trial(ctx, t)
}

func endStateTimeout(m Mode) time.Duration {
	return pick(m, time.Minute, 3*time.Minute, 10*time.Minute)
}

// assemble builds the experiment's charts from its templates and every
// trial's series, and its metrics by system with one value per round.
func assemble(e *Experiment, trials []*Trial) ([]Chart, []Metric) {
	var charts []Chart
	for _, tpl := range e.Charts {
		c := tpl
		c.Series = nil
		c.Shade = slices.Clone(tpl.Shade)
		for _, t := range trials {
			for _, s := range t.series[c.ID] {
				c.Series = append(c.Series, s)
			}
			if len(c.Categories) == 0 {
				c.Categories = t.cats[c.ID]
			}
			for _, sp := range t.shades[c.ID] {
				if !slices.Contains(c.Shade, sp) {
					c.Shade = append(c.Shade, sp)
				}
			}
		}
		charts = append(charts, c)
	}
	var metrics []Metric
	idx := map[[2]string]int{}
	for _, t := range trials {
		for _, m := range t.metrics {
			k := [2]string{m.Name, t.System}
			i, ok := idx[k]
			if !ok {
				i = len(metrics)
				idx[k] = i
				metrics = append(metrics, Metric{Name: m.Name, Unit: m.Unit, System: t.System, LowerIsBetter: m.LowerIsBetter})
			}
			metrics[i].Values = append(metrics[i].Values, m.Values...)
		}
	}
	// Group by metric name (first appearance), systems in run order.
	first := map[string]int{}
	for i, m := range metrics {
		if _, ok := first[m.Name]; !ok {
			first[m.Name] = i
		}
	}
	slices.SortStableFunc(metrics, func(a, b Metric) int { return first[a.Name] - first[b.Name] })
	return charts, metrics
}
