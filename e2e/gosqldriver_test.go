package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"petrel/lab"
)

// goSQLDriverModule is the driver whose own test suite runs against Petrel
// and MariaDB; the version is go.mod's, so the module cache has it after
// scripts/deps.sh.
const goSQLDriverModule = "github.com/go-sql-driver/mysql@v1.8.1"

// goSQLDriverModuleCompress is the newer driver testdata/gosqlcompress
// builds with: its suite runs every runTests test a third time with
// compress=true (zlib), so TestGoSQLDriverSuiteCompress runs it too.
const goSQLDriverModuleCompress = "github.com/go-sql-driver/mysql@v1.10.1"

// goSQLDriverExcluded are the suite's tests run against neither server.
var goSQLDriverExcluded = map[string]string{
	// It dials 1.1.1.1:1234 expecting a dial timeout; where that address
	// answers (a proxy, a captive network) the handshake read times out
	// and the test's nil Logger panics, killing the whole test binary.
	"TestConnectorReturnsTimeout": "environment: needs 1.1.1.1 unroutable; elsewhere it crashes the binary",
}

// goSQLDriverClientRaces are tests whose failure can come from a race in
// the client alone; one failing on Petrel but passing on MariaDB runs
// again alone, up to twice, and counts as passing only if a rerun passes
// (each failure is logged).
var goSQLDriverClientRaces = map[string]string{
	// cancel() closes the context's done channel before it cancels the
	// transaction's child context; the driver's watcher closes the
	// connection and ExecContext returns context.Canceled in that window,
	// so tx.Commit can still find tx.ctx live and try the closed
	// connection ("invalid connection" at driver_test.go:2915). The server
	// plays no part after the cancel; seen about once in seven suite runs
	// on a loaded 2-core host.
	"TestContextCancelBegin": "database/sql cancels a transaction's child context after the parent's watcher can already have run",
}

// TestGoSQLDriverSuite runs go-sql-driver/mysql's own `go test` against a
// Petrel and a MariaDB started here, and asserts that every top-level test
// passing on MariaDB passes on Petrel, except those listed with a reason
// in testdata/gosqldriver_known_failures.txt; a listed test that passes
// on Petrel fails this test too, so the list stays true.
func TestGoSQLDriverSuite(t *testing.T) {
	driverSuite(t, goSQLDriverModule, "testdata/gosqldriver_known_failures.txt")
}

// TestGoSQLDriverSuiteCompress is TestGoSQLDriverSuite with v1.10.1's
// suite, whose runTests tests also run over a compress=true connection
// (a top-level test passes only if its default, interpolateParams and
// compress subtests all pass).
func TestGoSQLDriverSuiteCompress(t *testing.T) {
	driverSuite(t, goSQLDriverModuleCompress, "testdata/gosqldriver_v1.10_known_failures.txt")
}

// driverSuite runs module's suite on both servers and compares them.
func driverSuite(t *testing.T, module, knownFile string) {
	requireTool(t, "mariadbd", "/usr/sbin/mariadbd")
	ctx := testContext(t, 6*time.Minute)
	known := readKnownFailures(t, knownFile)

	var (
		wg      sync.WaitGroup
		bin     string
		binErr  error
		mdb     *lab.MariaDB
		mdbErr  error
		petrelP *lab.Petrel
	)
	wg.Add(2)
	go func() { defer wg.Done(); bin, binErr = buildDriverSuite(ctx, t.TempDir(), module) }()
	go func() {
		defer wg.Done()
		mdb, mdbErr = lab.StartMariaDB(ctx, lab.MariaDBOptions{Datadir: t.TempDir(), ExtraArgs: []string{
			"--skip-log-bin", "--local-infile=1", "--performance-schema=ON"}})
	}()
	petrelP = startPetrel(t, ctx, lab.PetrelOptions{})
	wg.Wait()
	if mdb != nil {
		t.Cleanup(func() {
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			mdb.Stop(sctx)
		})
	}
	if binErr != nil {
		t.Fatalf("build the driver's tests: %v", binErr)
	}
	if mdbErr != nil {
		t.Fatalf("start mariadb: %v", mdbErr)
	}
	// The server settings the driver's own CI gives MySQL
	// (.github/workflows/test.yml): local_infile=1, performance_schema=on
	// (MariaDB only: Petrel has no performance_schema).
	pdb := rootDB(t, petrelP, "")
	mustExec(t, ctx, pdb, "CREATE DATABASE gotest", "SET GLOBAL local_infile = 1")
	mdbDB, err := mdb.DB("")
	if err != nil {
		t.Fatal(err)
	}
	defer mdbDB.Close()
	mustExec(t, ctx, mdbDB, "CREATE DATABASE gotest")

	all, err := listSuiteTests(ctx, bin)
	if err != nil {
		t.Fatal(err)
	}
	envFor := func(port int, pass string) []string {
		return []string{
			"MYSQL_TEST_USER=root", "MYSQL_TEST_PASS=" + pass, "MYSQL_TEST_PROT=tcp",
			fmt.Sprintf("MYSQL_TEST_ADDR=127.0.0.1:%d", port), "MYSQL_TEST_DBNAME=gotest",
		}
	}
	var pRes, mRes map[string]suiteOutcome
	var pErr, mErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		pRes, pErr = runDriverSuite(ctx, bin, all, envFor(petrelP.Port(), rootPassword))
	}()
	go func() { defer wg.Done(); mRes, mErr = runDriverSuite(ctx, bin, all, envFor(mdb.Port(), "")) }()
	wg.Wait()
	if pErr != nil || mErr != nil {
		t.Fatalf("run suite: petrel: %v; mariadb: %v", pErr, mErr)
	}

	t.Logf("%s suite, %d top-level tests (%d excluded): Petrel %d pass, %d fail, %d skip; MariaDB %d pass, %d fail, %d skip", module,
		len(all)+len(goSQLDriverExcluded), len(goSQLDriverExcluded), countPass(pRes), len(pRes)-countPass(pRes)-countAction(pRes, "skip"),
		countAction(pRes, "skip"), countPass(mRes), len(mRes)-countPass(mRes)-countAction(mRes, "skip"), countAction(mRes, "skip"))
	if pc, mc := countSubtests(pRes, "compress"), countSubtests(mRes, "compress"); pc["PASS"]+pc["FAIL"]+mc["PASS"]+mc["FAIL"] > 0 {
		t.Logf("compress=true subtests: Petrel %d pass, %d fail, %d skip; MariaDB %d pass, %d fail, %d skip",
			pc["PASS"], pc["FAIL"], pc["SKIP"], mc["PASS"], mc["FAIL"], mc["SKIP"])
	}
	for _, name := range all {
		p, m := pRes[name], mRes[name]
		if why, racy := goSQLDriverClientRaces[name]; racy && m.Action == "pass" && p.Action == "fail" {
			for try := 0; try < 2 && p.Action != "pass"; try++ {
				t.Logf("%s failed on Petrel (%s); running it again alone:\n%s", name, why, tail(p.Output, 2<<10))
				again, err := runDriverSuite(ctx, bin, []string{name}, envFor(petrelP.Port(), rootPassword))
				if err != nil {
					t.Fatalf("rerun %s: %v", name, err)
				}
				p = again[name]
			}
		}
		reason, isKnown := known[name]
		switch {
		case m.Action == "pass" && p.Action != "pass" && !isKnown:
			t.Errorf("%s: passes on MariaDB, %s on Petrel:\n%s", name, p.Action, tail(p.Output, 4<<10))
		case isKnown && p.Action == "pass":
			t.Errorf("%s: listed as a known failure (%s) but passes on Petrel: remove it from the list", name, reason)
		case isKnown && m.Action != "pass":
			t.Errorf("%s: listed as a known failure (%s) but MariaDB does not pass it either (%s): remove it from the list", name, reason, m.Action)
		case isKnown:
			t.Logf("known Petrel failure %s: %s\n%s", name, reason, tail(p.Output, 1<<10))
		}
		if m.Action == "fail" && p.Action == "fail" {
			t.Logf("fails on both servers: %s", name)
		}
	}
	for name := range known {
		if _, ok := pRes[name]; !ok {
			t.Errorf("%s: in the known failures but not in the suite", name)
		}
	}
}

// readKnownFailures reads "TestName  reason" lines; # starts a comment.
func readKnownFailures(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, " ")
		reason = strings.TrimSpace(reason)
		if reason == "" {
			t.Fatalf("%s:%d: %s has no reason", path, i+1, name)
		}
		if _, dup := out[name]; dup {
			t.Fatalf("%s:%d: %s listed twice", path, i+1, name)
		}
		out[name] = reason
	}
	return out
}

// buildDriverSuite copies the driver's module source out of the read-only
// module cache into dir and compiles its test binary there.
func buildDriverSuite(ctx context.Context, dir, module string) (string, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", module)
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go mod download %s: %v\n%s", module, err, out.String())
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out.Bytes(), &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download %s: no Dir in %q", module, out.String())
	}
	src := filepath.Join(dir, "src")
	if err := os.CopyFS(src, os.DirFS(mod.Dir)); err != nil {
		return "", fmt.Errorf("copy %s: %w", mod.Dir, err)
	}
	// The module cache's files are read-only; go test writes nothing in
	// the tree, but make it ours anyway so t.TempDir cleanup can remove it.
	filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			mode := os.FileMode(0o644)
			if d.IsDir() {
				mode = 0o755
			}
			os.Chmod(p, mode)
		}
		return nil
	})
	bin := filepath.Join(dir, "driver.test")
	cmd = exec.CommandContext(ctx, "go", "test", "-c", "-o", bin, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go test -c: %v\n%s", err, b)
	}
	return bin, nil
}

// listSuiteTests is the suite's top-level tests, minus the excluded ones.
func listSuiteTests(ctx context.Context, bin string) ([]string, error) {
	b, err := exec.CommandContext(ctx, bin, "-test.list", "^Test").Output()
	if err != nil {
		return nil, fmt.Errorf("%s -test.list: %v", bin, err)
	}
	var out []string
	for _, l := range strings.Fields(string(b)) {
		if _, skip := goSQLDriverExcluded[l]; !skip && strings.HasPrefix(l, "Test") {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out, nil
}

// suiteOutcome is one top-level test's result: "pass", "fail", "skip", or
// "crash" when the test binary died while it ran.
type suiteOutcome struct {
	Action string
	Output string
}

func countPass(res map[string]suiteOutcome) int { return countAction(res, "pass") }

func countAction(res map[string]suiteOutcome, action string) int {
	n := 0
	for _, o := range res {
		if o.Action == action {
			n++
		}
	}
	return n
}

// countSubtests counts the outcomes ("PASS", "FAIL", "SKIP") of the
// subtests named name, from the tests' verbose output.
func countSubtests(res map[string]suiteOutcome, name string) map[string]int {
	re := regexp.MustCompile(`--- (PASS|FAIL|SKIP): \S+/` + regexp.QuoteMeta(name) + ` `)
	n := map[string]int{}
	for _, o := range res {
		for _, m := range re.FindAllStringSubmatch(o.Output, -1) {
			n[m[1]]++
		}
	}
	return n
}

// runDriverSuite runs tests with env under test2json. A test that crashes
// the binary (a Fatal in a parallel subtest's goroutine panics it) leaves
// the rest unrun, so the binary runs again on the tests not yet reported;
// a test unfinished in two such runs is recorded as "crash".
func runDriverSuite(ctx context.Context, bin string, tests, env []string) (map[string]suiteOutcome, error) {
	res := map[string]suiteOutcome{}
	todo := tests
	crashed := map[string]int{}
	for round := 0; len(todo) > 0; round++ {
		if round >= 40 {
			return res, fmt.Errorf("still %d tests unreported after %d runs", len(todo), round)
		}
		pattern := "^(" + strings.Join(todo, "|") + ")$"
		cmd := exec.CommandContext(ctx, "go", "tool", "test2json", "-t", bin, "-test.v=test2json",
			"-test.count=1", "-test.timeout=4m", "-test.run", pattern)
		cmd.Dir = filepath.Join(filepath.Dir(bin), "src")
		cmd.Env = append(os.Environ(), env...)
		cmd.WaitDelay = 10 * time.Second
		out, _ := cmd.Output() // a failing suite exits non-zero
		started := map[string]bool{}
		outputs := map[string]*strings.Builder{}
		sc := bufio.NewScanner(bytes.NewReader(out))
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var ev struct{ Action, Test, Output string }
			if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Test == "" {
				continue
			}
			top, _, _ := strings.Cut(ev.Test, "/")
			if outputs[top] == nil {
				outputs[top] = &strings.Builder{}
			}
			switch {
			case ev.Action == "output":
				outputs[top].WriteString(ev.Output)
			case ev.Action == "run" && ev.Test == top:
				started[top] = true
			case ev.Test == top && (ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip"):
				res[top] = suiteOutcome{Action: ev.Action, Output: outputs[top].String()}
			}
		}
		var next []string
		progressed := false
		for _, name := range todo {
			if _, ok := res[name]; ok {
				progressed = true
				continue
			}
			if started[name] {
				// Top-level tests run in parallel: one that was running
				// when another crashed the binary runs again; twice
				// unfinished, it is the crash.
				if crashed[name]++; crashed[name] >= 2 {
					res[name] = suiteOutcome{Action: "crash", Output: outputs[name].String()}
					progressed = true
					continue
				}
			}
			next = append(next, name)
		}
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		if !progressed && len(started) == 0 {
			return res, fmt.Errorf("test binary reported nothing for %d tests:\n%s", len(next), tail(string(out), 4<<10))
		}
		todo = next
	}
	return res, nil
}
