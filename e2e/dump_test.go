package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"petrel/lab"
)

// TestSingleTransactionDump runs `mariadb-dump --single-transaction` over
// and over while eight connections move money between two tables (one
// transaction debits a row of one table and credits a row of the other).
// A dump reads the tables one after the other, inside one REPEATABLE READ
// transaction started WITH CONSISTENT SNAPSHOT: each must hold every row
// of both tables and the opening total, however many transfers committed
// while it ran (and at least one must have, for each of the dumps counted,
// or the dump proves nothing); so must one autocommit SELECT of both
// tables' sums. The same run against MariaDB is the reference.
func TestSingleTransactionDump(t *testing.T) {
	dump := requireTool(t, "mariadb-dump", "/usr/bin/mariadb-dump")
	ctx := testContext(t, 8*time.Minute)
	t.Run("petrel", func(t *testing.T) {
		p := startPetrel(t, ctx, lab.PetrelOptions{})
		mustExec(t, ctx, rootDB(t, p, ""), "CREATE DATABASE bank")
		dumpUnderTransfers(t, ctx, dump, rootDB(t, p, "bank"), p.Port(), rootPassword)
	})
	t.Run("mariadb", func(t *testing.T) {
		m, mdb := startMariaDB(t, ctx, 0)
		mustExec(t, ctx, mdb, "CREATE DATABASE bank")
		db, err := m.DB("bank")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dumpUnderTransfers(t, ctx, dump, db, m.Port(), "")
	})
}

var dumpInsert = regexp.MustCompile("(?ms)^INSERT INTO `(acct_[ab])` VALUES(.*?);$")
var dumpTuple = regexp.MustCompile(`\((-?\d+),(-?\d+)\)`)

func dumpUnderTransfers(t *testing.T, ctx context.Context, dumpBin string, db *sql.DB, port int, password string) {
	const (
		rows     = 1000 // per table
		opening  = 1000
		workers  = 8
		wantDump = 12 // dumps with transfers committed while they ran
		maxDumps = 40
	)
	for _, tb := range []string{"acct_a", "acct_b"} {
		mustExec(t, ctx, db, "CREATE TABLE "+tb+" (id INT PRIMARY KEY, bal BIGINT NOT NULL)")
		var b bytes.Buffer
		for i := 0; i < rows; i++ {
			if b.Len() == 0 {
				b.WriteString("INSERT INTO " + tb + " VALUES ")
			} else {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "(%d,%d)", i, opening)
		}
		mustExec(t, ctx, db, b.String())
	}
	const total = 2 * rows * opening

	// Transfers until stop; committed counts them.
	var committed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errc := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), uint64(w)))
			c, err := db.Conn(ctx)
			if err != nil {
				errc <- err
				return
			}
			defer c.Close()
			for {
				select {
				case <-stop:
					return
				default:
				}
				from, to := "acct_a", "acct_b"
				if rng.IntN(2) == 0 {
					from, to = to, from
				}
				amount := 1 + rng.IntN(50)
				_, err := retryDeadlocks(ctx, c, func() error {
					if _, err := c.ExecContext(ctx, "UPDATE "+from+" SET bal = bal - ? WHERE id = ?", amount, rng.IntN(rows)); err != nil {
						return err
					}
					_, err := c.ExecContext(ctx, "UPDATE "+to+" SET bal = bal + ? WHERE id = ?", amount, rng.IntN(rows))
					return err
				})
				if err != nil {
					errc <- err
					return
				}
				committed.Add(1)
			}
		}()
	}
	stopped := false
	halt := func() {
		if !stopped {
			stopped = true
			close(stop)
			wg.Wait()
		}
	}
	defer halt()

	runDump := func() (string, error) {
		dctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(dctx, dumpBin, "--no-defaults", "--protocol=TCP", "-h", "127.0.0.1", "-P", strconv.Itoa(port),
			"-u", "root", "--password="+password, "--skip-ssl", "--single-transaction", "--skip-triggers", "--skip-comments",
			"bank", "acct_a", "acct_b")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("mariadb-dump: %w: %s", err, errb.String())
		}
		return out.String(), nil
	}
	// check parses a dump and returns its row count per table and total.
	check := func(out string) (map[string]int, int64) {
		n := map[string]int{}
		var sum int64
		for _, m := range dumpInsert.FindAllStringSubmatch(out, -1) {
			for _, tup := range dumpTuple.FindAllStringSubmatch(m[2], -1) {
				bal, _ := strconv.ParseInt(tup[2], 10, 64)
				sum += bal
				n[m[1]]++
			}
		}
		return n, sum
	}

	// Let the transfers get going.
	for deadline := time.Now().Add(30 * time.Second); committed.Load() < 100; {
		if time.Now().After(deadline) {
			t.Fatalf("only %d transfers committed in 30 s", committed.Load())
		}
		select {
		case err := <-errc:
			t.Fatalf("transfer: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	overlapped, broken := 0, 0
	for i := 0; i < maxDumps && overlapped < wantDump; i++ {
		before := committed.Load()
		out, err := runDump()
		during := committed.Load() - before
		if err != nil {
			t.Fatalf("dump %d: %v", i, err)
		}
		n, sum := check(out)
		if n["acct_a"] != rows || n["acct_b"] != rows || sum != total {
			broken++
			t.Errorf("dump %d (%d transfers committed while it ran): %d + %d rows, total %d; want %d + %d rows, total %d",
				i, during, n["acct_a"], n["acct_b"], sum, rows, rows, total)
		}
		if during > 0 {
			overlapped++
		}
		// One autocommit statement reading both tables reads one snapshot.
		if got := queryInt(t, ctx, db, "SELECT CAST((SELECT SUM(bal) FROM acct_a) + (SELECT SUM(bal) FROM acct_b) AS SIGNED)"); got != total {
			t.Errorf("after dump %d: an autocommit SELECT of both tables' sums read %d, want %d", i, got, total)
		}
		select {
		case err := <-errc:
			t.Fatalf("transfer: %v", err)
		default:
		}
	}
	halt()
	t.Logf("%d dumps overlapped transfers, %d inconsistent; %d transfers committed", overlapped, broken, committed.Load())
	if overlapped < wantDump {
		t.Errorf("only %d of the dumps ran while transfers committed, want %d: the test proved nothing", overlapped, wantDump)
	}
	// At rest, the tables hold the total too, and a dump agrees.
	if got := queryInt(t, ctx, db, "SELECT CAST(SUM(bal) AS SIGNED) FROM acct_a") + queryInt(t, ctx, db, "SELECT CAST(SUM(bal) AS SIGNED) FROM acct_b"); got != total {
		t.Errorf("at rest: total %d, want %d", got, total)
	}
	out, err := runDump()
	if err != nil {
		t.Fatal(err)
	}
	if n, sum := check(out); n["acct_a"] != rows || n["acct_b"] != rows || sum != total {
		t.Errorf("dump at rest: %v rows, total %d; want %d each, %d", n, sum, rows, total)
	}
}
