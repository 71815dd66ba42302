// Command enginecount runs go-mysql-server's engine test suites against
// Petrel and against GMS's in-memory backend, and counts the leaf
// subtests that pass, fail and skip on each.
//
// It builds the test binary of petrel/sqlengine/enginetest once, then runs
// TestEngineSuites once per (backend, suite) in its own process (a panic or
// timeout in one suite cannot take the others down), reading the test2json
// stream. A suite that crashes is re-run with the crashing tests skipped
// (and counted as failed), up to -retries times.
//
// Run from the module root:
//
//	go run ./sqlengine/enginetest/cmd/enginecount -out /tmp/enginetest
//
// Output in -out: summary.md (the table), results.json, failures/<backend>/<suite>.txt
// (every failing leaf with its assertion output) and petrel-only/<suite>.txt (leaves
// that fail on Petrel but pass on memory: the backend's own failures).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"petrel/sqlengine/enginetest"
)

type event struct {
	Action  string
	Test    string
	Output  string
	Elapsed float64
}

// testState is what the stream said about one test.
type testState struct {
	result string // pass, fail, skip; "" if it never finished
	output []string
}

// Result is one (backend, suite) run.
type Result struct {
	Backend  string
	Suite    string
	Leaves   int
	Pass     int
	Fail     int
	Skip     int
	Crashed  []string // leaves that panicked or hung, skipped on re-run
	Attempts int
	Seconds  float64
	Note     string
	// Failed maps each failing leaf to its trimmed output.
	Failed map[string][]string `json:"-"`
	Passed map[string]bool     `json:"-"`
}

func main() {
	var (
		backends = flag.String("backends", "petrel,memory", "comma-separated backends: petrel, memory")
		suites   = flag.String("suites", "", "comma-separated suite names (default: all in enginetest.Suites)")
		out      = flag.String("out", "enginetest-out", "output directory")
		pkg      = flag.String("pkg", "./sqlengine/enginetest", "package holding TestEngineSuites")
		timeout  = flag.Duration("timeout", 10*time.Minute, "per-suite test timeout")
		jobs     = flag.Int("j", 2, "suites run in parallel")
		retries  = flag.Int("retries", 3, "re-runs of a crashed suite, skipping the crashing tests")
		server   = flag.Bool("server", false, "run both harnesses over the MySQL protocol (GMS's ServerQueryEngine)")
		bin      = flag.String("bin", "", "prebuilt test binary (default: build it)")
		strict   = flag.Bool("strict-setup", false, "fail a Petrel test whose harness setup uses a feature Petrel lacks (default: drop that statement)")
		update   = flag.Bool("update-smoke", false, "regenerate the known-failure list of TestEngineSmoke instead of counting")
	)
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fatal(err)
	}
	absOut, _ := filepath.Abs(*out)
	testBin := *bin
	if testBin == "" {
		testBin = filepath.Join(absOut, "enginetest.test")
		fmt.Fprintf(os.Stderr, "building %s\n", testBin)
		cmd := exec.Command("go", "test", "-c", "-o", testBin, *pkg)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fatal(fmt.Errorf("go test -c: %w", err))
		}
	}
	testBin, _ = filepath.Abs(testBin)
	if *update {
		updateSmoke(testBin, *pkg, *timeout)
		return
	}

	var names []string
	if *suites == "" {
		for _, s := range enginetest.Suites {
			names = append(names, s.Name)
		}
	} else {
		for _, n := range strings.Split(*suites, ",") {
			n = strings.TrimSpace(n)
			if _, ok := enginetest.SuiteByName(n); !ok {
				fatal(fmt.Errorf("unknown suite %q", n))
			}
			names = append(names, n)
		}
	}
	bes := strings.Split(*backends, ",")

	type job struct{ backend, suite string }
	var todo []job
	for _, s := range names {
		for _, b := range bes {
			todo = append(todo, job{strings.TrimSpace(b), s})
		}
	}
	results := make(map[job]*Result)
	var mu sync.Mutex
	ch := make(chan job)
	var wg sync.WaitGroup
	for i := 0; i < max(*jobs, 1); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				r := runSuite(testBin, j.backend, j.suite, *timeout, *retries, *server, *strict)
				mu.Lock()
				results[j] = r
				fmt.Fprintf(os.Stderr, "%-8s %-45s leaves=%5d pass=%5d fail=%5d skip=%4d crashed=%d %.0fs %s\n",
					r.Backend, r.Suite, r.Leaves, r.Pass, r.Fail, r.Skip, len(r.Crashed), r.Seconds, r.Note)
				mu.Unlock()
			}
		}()
	}
	for _, j := range todo {
		ch <- j
	}
	close(ch)
	wg.Wait()

	// Reports.
	var all []*Result
	for _, s := range names {
		for _, b := range bes {
			all = append(all, results[job{strings.TrimSpace(b), s}])
		}
	}
	js, _ := json.MarshalIndent(all, "", "  ")
	must(os.WriteFile(filepath.Join(absOut, "results.json"), js, 0o644))
	for _, r := range all {
		dir := filepath.Join(absOut, "failures", r.Backend)
		must(os.MkdirAll(dir, 0o755))
		must(os.WriteFile(filepath.Join(dir, r.Suite+".txt"), []byte(formatFailures(r.Failed, nil)), 0o644))
	}
	var sb strings.Builder
	sb.WriteString("| Suite | Leaf tests | Petrel passed | Memory passed | Petrel-only failures |\n|---|---:|---:|---:|---:|\n")
	var tl, tp, tm, to int
	for _, s := range names {
		p, m := results[job{"petrel", s}], results[job{"memory", s}]
		if p == nil || m == nil {
			continue
		}
		only := map[string][]string{}
		for name, o := range p.Failed {
			if m.Passed[name] {
				only[name] = o
			}
		}
		dir := filepath.Join(absOut, "petrel-only")
		must(os.MkdirAll(dir, 0o755))
		must(os.WriteFile(filepath.Join(dir, s+".txt"), []byte(formatFailures(only, nil)), 0o644))
		leaves := max(p.Leaves, m.Leaves)
		crashNote := func(r *Result) string {
			if len(r.Crashed) == 0 {
				return ""
			}
			return fmt.Sprintf(" (%d crashed)", len(r.Crashed))
		}
		fmt.Fprintf(&sb, "| %s | %d | %d%s | %d%s | %d |\n", s, leaves, p.Pass, crashNote(p), m.Pass, crashNote(m), len(only))
		tl += leaves
		tp += p.Pass
		tm += m.Pass
		to += len(only)
	}
	fmt.Fprintf(&sb, "| **Total** | **%d** | **%d** | **%d** | **%d** |\n", tl, tp, tm, to)
	must(os.WriteFile(filepath.Join(absOut, "summary.md"), []byte(sb.String()), 0o644))
	fmt.Print(sb.String())
}

// runSuite runs one suite on one backend, re-running after crashes.
func runSuite(bin, backend, suite string, timeout time.Duration, retries int, server, strict bool) *Result {
	r := &Result{Backend: backend, Suite: suite}
	start := time.Now()
	var skips []string
	var states map[string]*testState
	var order []string
	for attempt := 0; ; attempt++ {
		r.Attempts = attempt + 1
		var crashed []string
		var note string
		states, order, crashed, note = runOnce(bin, backend, suite, timeout, skips, server, strict)
		if note != "" {
			r.Note = note
		}
		if len(crashed) == 0 || attempt >= retries {
			r.Crashed = append(r.Crashed, crashed...)
			break
		}
		r.Crashed = append(r.Crashed, crashed...)
		skips = append(skips, crashed...)
	}
	r.Seconds = time.Since(start).Seconds()
	r.Failed = map[string][]string{}
	r.Passed = map[string]bool{}
	top := "TestEngineSuites/" + suite
	isLeaf := leaves(order)
	for _, name := range order {
		// Passed holds every test that passed, leaves and parents: a
		// Petrel leaf that fails where memory ran (and passed) a whole
		// script is still a Petrel-only failure.
		if states[name].result == "pass" {
			r.Passed[name] = true
		}
	}
	for _, name := range order {
		if !isLeaf[name] || name == "TestEngineSuites" {
			continue
		}
		st := states[name]
		r.Leaves++
		switch st.result {
		case "pass":
			r.Pass++
		case "skip":
			r.Skip++
		default: // fail, or never finished (crash)
			r.Fail++
			r.Failed[name] = trim(st.output)
		}
	}
	for _, c := range r.Crashed {
		if _, seen := states[c]; seen && isLeaf[c] {
			continue
		}
		r.Leaves++
		r.Fail++
		r.Failed[c] = []string{"(crashed or hung; skipped on re-run)"}
	}
	if r.Leaves == 0 {
		// The suite itself failed before any subtest (setup error).
		if st := states[top]; st != nil && st.result == "fail" {
			r.Leaves, r.Fail = 1, 1
			r.Failed[top] = trim(st.output)
		}
	}
	return r
}

var (
	panicRe        = regexp.MustCompile(`^panic: |^fatal error: `)
	skippedSetupRe = regexp.MustCompile(`enginetest: skipped-setup=(\d+)`)
)

// runOnce runs the test binary once under test2json.
func runOnce(bin, backend, suite string, timeout time.Duration, skips []string, server, strict bool) (map[string]*testState, []string, []string, string) {
	run := "-test.run=^TestEngineSuites$/^" + regexp.QuoteMeta(suite) + "$"
	env := []string{enginetest.EnvRun + "=1", enginetest.EnvBackend + "=" + backend}
	if server {
		// Petrel's harness, and GMS's memory harness (which reads
		// SERVER_ENGINE_TEST), both query over the MySQL protocol.
		env = append(env, enginetest.EnvServer+"=1", "SERVER_ENGINE_TEST=1")
	}
	if strict {
		env = append(env, enginetest.EnvStrictSetup+"=1")
	}
	return runTests(bin, run, timeout, skips, env)
}

// runTests runs the test binary once under test2json, returning every
// test's state, the tests in order of appearance, the tests that crashed
// the binary, and a note (the panic, if any).
func runTests(bin, run string, timeout time.Duration, skips []string, env []string) (map[string]*testState, []string, []string, string) {
	dir, err := os.MkdirTemp("", "enginecount-*")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(dir)
	args := []string{"tool", "test2json", "-t", bin,
		"-test.v=test2json", "-test.count=1", "-test.timeout=" + timeout.String(), run}
	if len(skips) > 0 {
		var pats []string
		for _, s := range skips {
			pats = append(pats, namePattern(s))
		}
		args = append(args, "-test.skip="+strings.Join(pats, "|"))
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	states := map[string]*testState{}
	var order []string
	var panicked bool
	var note string
	// culprit is the first test of the latest cascade of "fail" events
	// (a leaf fails, then its parents): the test that panicked, when the
	// panic text itself is not attributed to any test.
	var culprit string
	var skippedSetup string
	prevFail := false
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev event
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev.Test == "" {
			if ev.Action == "output" && panicRe.MatchString(ev.Output) && !panicked {
				panicked = true
				note = strings.TrimSpace(ev.Output)
			}
			continue
		}
		if ev.Action == "fail" {
			if !prevFail && !panicked {
				culprit = ev.Test
			}
			prevFail = true
		} else if ev.Action != "output" {
			prevFail = false
		}
		st := states[ev.Test]
		if st == nil {
			st = &testState{}
			states[ev.Test] = st
			order = append(order, ev.Test)
		}
		switch ev.Action {
		case "pass", "fail", "skip":
			st.result = ev.Action
		case "output":
			if panicRe.MatchString(ev.Output) && !panicked {
				panicked = true
				note = strings.TrimSpace(ev.Output)
			}
			if m := skippedSetupRe.FindStringSubmatch(ev.Output); m != nil {
				skippedSetup = m[1]
			}
			if len(st.output) < 400 {
				st.output = append(st.output, strings.TrimRight(ev.Output, "\n"))
			}
		}
	}
	_ = cmd.Wait()
	if len(note) > 120 {
		note = note[:120]
	}
	var crashed []string
	if panicked {
		// The crashing tests: leaves that never finished, or the failed
		// leaf whose output holds the panic.
		isLeaf := leaves(order)
		for _, name := range order {
			if !isLeaf[name] {
				continue
			}
			st := states[name]
			if st.result == "" {
				crashed = append(crashed, name)
				continue
			}
			if st.result == "fail" {
				for _, l := range st.output {
					if panicRe.MatchString(strings.TrimSpace(l)) {
						crashed = append(crashed, name)
						break
					}
				}
			}
		}
		if len(crashed) == 0 && culprit != "" {
			crashed = append(crashed, culprit)
		}
	}
	if skippedSetup != "" && skippedSetup != "0" {
		note = strings.TrimSpace(note + " setup-dropped=" + skippedSetup)
	}
	return states, order, crashed, note
}

// updateSmoke runs TestEngineSmoke, adds every failing test to the
// known-failure list, and repeats until it passes (skipping a failure can
// change what later tests of the same engine see).
func updateSmoke(bin, pkg string, timeout time.Duration) {
	path, err := filepath.Abs(filepath.Join(pkg, enginetest.KnownFailuresFile))
	if err != nil {
		fatal(err)
	}
	must(os.MkdirAll(filepath.Dir(path), 0o755))
	if _, err := os.Stat(path); os.IsNotExist(err) {
		must(enginetest.WriteKnownFailures(path, nil))
	}
	const prefix = "TestEngineSmoke/"
	for iter := 1; iter <= 10; iter++ {
		known, err := enginetest.LoadKnownFailures(path)
		must(err)
		states, order, crashed, note := runTests(bin, "-test.run=^TestEngineSmoke$", timeout, nil,
			[]string{enginetest.EnvKnownFailures + "=" + path})
		isLeaf := leaves(order)
		var failed []string
		for _, name := range order {
			if isLeaf[name] && strings.HasPrefix(name, prefix) && states[name].result != "pass" && states[name].result != "skip" {
				failed = append(failed, strings.TrimPrefix(name, prefix))
			}
		}
		for _, c := range crashed {
			failed = append(failed, strings.TrimPrefix(c, prefix))
		}
		if st := states["TestEngineSmoke"]; len(failed) == 0 && st != nil && st.result == "pass" {
			fmt.Fprintf(os.Stderr, "TestEngineSmoke passes with %d known failures (%s)\n", len(known.Names()), path)
			return
		}
		if len(failed) == 0 {
			fatal(fmt.Errorf("TestEngineSmoke failed without a failing leaf test: %s", note))
		}
		names := known.Names()
		for _, f := range failed {
			for _, n := range names {
				if n == f {
					fatal(fmt.Errorf("%s is listed but still fails (is -test.skip overridden?)", f))
				}
			}
		}
		names = append(names, failed...)
		fmt.Fprintf(os.Stderr, "iteration %d: %d new failures %s\n", iter, len(failed), note)
		must(enginetest.WriteKnownFailures(path, names))
	}
	fatal(fmt.Errorf("TestEngineSmoke still failing after 10 iterations"))
}

// namePattern is a -test.skip pattern matching exactly the test name.
func namePattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// leaves reports which names have no subtests.
func leaves(names []string) map[string]bool {
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	out := map[string]bool{}
	for i, n := range sorted {
		out[n] = !(i+1 < len(sorted) && strings.HasPrefix(sorted[i+1], n+"/"))
	}
	// A child may sort after an unrelated sibling with a longer name.
	for _, n := range names {
		for p := parent(n); p != ""; p = parent(p) {
			if _, ok := out[p]; ok {
				out[p] = false
			}
		}
	}
	return out
}

func parent(n string) string {
	i := strings.LastIndex(n, "/")
	if i < 0 {
		return ""
	}
	return n[:i]
}

var stackRe = regexp.MustCompile(`^\s*(Error Trace:|\S+\.go:\d+|github\.com/|petrel/|testing\.|runtime\.|/)`)

// trim keeps the assertion text of a failed test's output.
func trim(lines []string) []string {
	var out []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- ") || stackRe.MatchString(t) {
			continue
		}
		if strings.HasPrefix(t, "Test:") || strings.HasPrefix(t, "Error Trace:") {
			continue
		}
		out = append(out, "    "+t)
		if len(out) >= 40 {
			out = append(out, "    ...")
			break
		}
	}
	return out
}

func formatFailures(m map[string][]string, _ []string) string {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	var sb strings.Builder
	for _, n := range names {
		sb.WriteString(n + "\n")
		for _, l := range m[n] {
			sb.WriteString(l + "\n")
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

func must(err error) {
	if err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "enginecount:", err)
	os.Exit(1)
}
