package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"petrel/lab"
)

// TestMariaDBSlap runs mariadb-slap's generated workloads. mysqlslap does
// not retry, so any server error fails the run and its exit status.
func TestMariaDBSlap(t *testing.T) {
	slap := requireTool(t, "mariadb-slap", "/usr/bin/mariadb-slap")
	ctx := testContext(t, 3*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")

	runs := []struct {
		name       string
		extra      []string
		minCommits int64
	}{
		// mixed: half INSERTs, half SELECTs, each INSERT an autocommit
		// transaction.
		{"mixed", nil, 300},
		// update: every query is an autocommit UPDATE of the table's rows.
		{"update", []string{"--auto-generate-sql-load-type=update", "--auto-generate-sql-add-autoincrement"}, 300},
	}
	for _, r := range runs {
		before := globalStatus(t, ctx, db, "Petrel_commits")
		args := []string{
			"--no-defaults",
			"--protocol=TCP", "-h", "127.0.0.1", "-P", strconv.Itoa(p.Port()),
			"-u", "root", "--password=" + rootPassword, "--skip-ssl",
			"--auto-generate-sql", "--concurrency=10", "--number-of-queries=1000",
		}
		args = append(args, r.extra...)
		out, err := runTool(ctx, 2*time.Minute, slap, args...)
		if err != nil {
			t.Errorf("mariadb-slap %s: %v\n%s", r.name, err, out)
			continue
		}
		for _, want := range []string{
			"Benchmark",
			"Average number of seconds to run all queries:",
			"Number of clients running queries: 10",
			"Average number of queries per client: 100",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("mariadb-slap %s: output lacks %q:\n%s", r.name, want, out)
			}
		}
		after := globalStatus(t, ctx, db, "Petrel_commits")
		t.Logf("mariadb-slap %s: Petrel_commits %d -> %d", r.name, before, after)
		if after-before < r.minCommits {
			t.Errorf("mariadb-slap %s: Petrel_commits grew by %d, want at least %d", r.name, after-before, r.minCommits)
		}
		// mysqlslap drops its schema when done.
		if n := queryInt(t, ctx, db, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'mysqlslap'"); n != 0 {
			t.Errorf("mariadb-slap %s: schema mysqlslap still exists after the run", r.name)
		}
	}
}

// runTool runs a client tool bounded by timeout and returns its combined
// output.
func runTool(ctx context.Context, timeout time.Duration, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	return out.String(), err
}
