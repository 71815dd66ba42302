package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"petrel/lab"
)

// debianPython is Debian's interpreter, the one python3-pymysql and
// python3-mysqldb install into (a python3 earlier on PATH may not see
// them).
const debianPython = "/usr/bin/python3"

// pyDrivers are the Python drivers testdata/pydrivers.py checks, by module
// name.
var pyDrivers = []string{"pymysql", "MySQLdb"}

// TestPythonDrivers runs testdata/pydrivers.py with PyMySQL and mysqlclient
// (their defaults: autocommit off) against a Petrel and a MariaDB started
// here. Every check must pass on MariaDB (the check itself is right), and
// on Petrel unless testdata/pydrivers_known_failures.txt lists it
// ("driver/check reason"); a listed check that passes fails the test.
func TestPythonDrivers(t *testing.T) {
	requireTool(t, "mariadbd", "/usr/sbin/mariadbd")
	requireTool(t, "python3", debianPython)
	for _, mod := range pyDrivers {
		if err := exec.Command(debianPython, "-c", "import "+mod).Run(); err != nil {
			if os.Getenv(strictEnv) == "1" {
				t.Fatalf("%s cannot import %s, and %s=1", debianPython, mod, strictEnv)
			}
			t.Skipf("%s cannot import %s; run scripts/deps.sh", debianPython, mod)
		}
	}
	ctx := testContext(t, 4*time.Minute)
	known := readKnownFailures(t, "testdata/pydrivers_known_failures.txt")

	var mdb *lab.MariaDB
	var mdbErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		mdb, mdbErr = lab.StartMariaDB(ctx, lab.MariaDBOptions{Datadir: t.TempDir(), ExtraArgs: []string{"--skip-log-bin"}})
	}()
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	<-done
	if mdbErr != nil {
		t.Fatalf("start mariadb: %v", mdbErr)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		mdb.Stop(sctx)
	})

	type run struct {
		server, driver string
		res            map[string]pyCheck
		err            error
	}
	var runs []*run
	for _, d := range pyDrivers {
		runs = append(runs, &run{server: "petrel", driver: d}, &run{server: "mariadb", driver: d})
	}
	var wg sync.WaitGroup
	for _, r := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r.server == "petrel" {
				r.res, r.err = runPyDriver(ctx, r.driver, p.Port(), rootPassword)
			} else {
				r.res, r.err = runPyDriver(ctx, r.driver, mdb.Port(), "")
			}
		}()
	}
	wg.Wait()

	seen := map[string]bool{}
	for i := 0; i < len(runs); i += 2 {
		pr, mr := runs[i], runs[i+1]
		if pr.err != nil || mr.err != nil {
			t.Fatalf("%s: petrel: %v; mariadb: %v", pr.driver, pr.err, mr.err)
		}
		if len(pr.res) != len(mr.res) || len(pr.res) == 0 {
			t.Errorf("%s: %d checks ran on Petrel, %d on MariaDB", pr.driver, len(pr.res), len(mr.res))
		}
		pass := 0
		names := make([]string, 0, len(mr.res))
		for name := range mr.res {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			key := pr.driver + "/" + name
			seen[key] = true
			m, pc := mr.res[name], pr.res[name]
			reason, isKnown := known[key]
			if !m.OK {
				t.Errorf("%s fails on MariaDB (the check is wrong): %s", key, m.Detail)
			}
			if pc.OK {
				pass++
			}
			switch {
			case pc.OK && isKnown:
				t.Errorf("%s: listed as a known failure (%s) but passes on Petrel: remove it from the list", key, reason)
			case pc.OK:
			case isKnown:
				t.Logf("known Petrel failure %s (%s): %s", key, reason, pc.Detail)
			default:
				t.Errorf("%s fails on Petrel: %s", key, pc.Detail)
			}
		}
		t.Logf("%s: Petrel passes %d of %d checks, MariaDB %d", pr.driver, pass, len(mr.res), countOK(mr.res))
	}
	for key := range known {
		if !seen[key] {
			t.Errorf("%s: in the known failures but no such check ran", key)
		}
	}
}

// pyCheck is one line of pydrivers.py's output.
type pyCheck struct {
	Check  string `json:"check"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

func countOK(res map[string]pyCheck) int {
	n := 0
	for _, c := range res {
		if c.OK {
			n++
		}
	}
	return n
}

// runPyDriver runs pydrivers.py for driver against 127.0.0.1:port as root.
func runPyDriver(ctx context.Context, driver string, port int, password string) (map[string]pyCheck, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, debianPython, "testdata/pydrivers.py", driver, "127.0.0.1", strconv.Itoa(port), "root", password)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("pydrivers.py %s: %v\n%s%s", driver, err, out, tail(stderr.String(), 4<<10))
	}
	res := map[string]pyCheck{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var c pyCheck
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("pydrivers.py %s: bad line %q: %v", driver, sc.Text(), err)
		}
		res[c.Check] = c
	}
	return res, nil
}
