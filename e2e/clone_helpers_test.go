package e2e

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/internal/base"
	"petrel/lab"
)

// CLONE INSTANCE test helpers.

// cloneDonor starts a donor holding rows rows of ~200 random bytes in
// c.t (id PK, w, n, pad) and the keyless c.k, and the accounts the
// clone tests use: repl, and cloner (CLONE_ADMIN, which includes
// BACKUP_ADMIN) and plain (no privilege).
func cloneDonor(t *testing.T, ctx context.Context, rows int) (*lab.Petrel, *sql.DB) {
	t.Helper()
	d := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, d, "")
	createReplUser(t, ctx, db)
	mustExec(t, ctx, db,
		"CREATE USER cloner@'%' IDENTIFIED BY 'cl0ne'", "GRANT CLONE_ADMIN ON *.* TO cloner@'%'",
		"CREATE USER plain@'%' IDENTIFIED BY 'pl4in'",
		"CREATE DATABASE c",
		"CREATE TABLE c.t (id BIGINT PRIMARY KEY, w INT, n INT, pad VARCHAR(255))",
		"CREATE TABLE c.k (w INT, n INT)")
	const batch = 500
	for i := 0; i < rows; i += batch {
		var b strings.Builder
		b.WriteString("INSERT INTO c.t VALUES ")
		for j := i; j < min(i+batch, rows); j++ {
			if j > i {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "(%d, -1, %d, '%s')", j, j, randomHex(100))
		}
		mustExec(t, ctx, db, b.String())
	}
	return d, db
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// writeLoad runs writers on the donor, each committing an insert into
// c.t and one into the keyless c.k per iteration, until stopped: a
// transaction applied twice on a clone shows as an extra c.k row or a
// stopped replica (1062), one missing as a missing row.
type writeLoad struct {
	wg    sync.WaitGroup
	stop  chan struct{}
	acked atomic.Int64
}

func startWriteLoad(ctx context.Context, db *sql.DB, writers int) *writeLoad {
	l := &writeLoad{stop: make(chan struct{})}
	for w := 0; w < writers; w++ {
		l.wg.Add(1)
		go func(w int) {
			defer l.wg.Done()
			for i := 0; i < 1_000_000; i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				if ctx.Err() != nil {
					return
				}
				id := int64(1_000_000_000 + w*10_000_000 + i)
				tx, err := db.BeginTx(ctx, nil)
				if err == nil {
					_, err = tx.ExecContext(ctx, "INSERT INTO c.t VALUES (?, ?, ?, 'load')", id, w, i)
					if err == nil {
						_, err = tx.ExecContext(ctx, "INSERT INTO c.k VALUES (?, ?)", w, i)
					}
					if err == nil {
						err = tx.Commit()
					} else {
						tx.Rollback()
					}
				}
				if err != nil {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				l.acked.Add(1)
			}
		}(w)
	}
	return l
}

func (l *writeLoad) finish() int64 {
	close(l.stop)
	l.wg.Wait()
	return l.acked.Load()
}

// cloneStmt is CLONE INSTANCE FROM the donor as user.
func cloneStmt(donor *lab.Petrel, user, password string) string {
	return fmt.Sprintf("CLONE INSTANCE FROM '%s'@'127.0.0.1':%d IDENTIFIED BY '%s'", user, donor.Port(), password)
}

// waitRestarted waits until the recipient, restarting itself after CLONE
// INSTANCE, answers with a non-empty gtid_executed, and returns it.
func waitRestarted(t *testing.T, ctx context.Context, p *lab.Petrel, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	var last error
	for time.Now().Before(deadline) && ctx.Err() == nil {
		db, err := p.DB("")
		if err == nil {
			var g string
			err = db.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_executed").Scan(&g)
			db.Close()
			if err == nil && g != "" {
				return g
			}
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("the recipient did not come back on the cloned data within %v: %v", within, last)
	return ""
}

// cloneProgress is performance_schema.clone_progress as stage -> state,
// and the FILE COPY stage's estimate and data.
func cloneProgress(t *testing.T, ctx context.Context, db querier) (map[string]string, int64, int64) {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SELECT STAGE, STATE, ESTIMATE, DATA FROM performance_schema.clone_progress")
	if err != nil {
		t.Fatalf("clone_progress: %v", err)
	}
	defer rows.Close()
	out := map[string]string{}
	var est, data int64
	for rows.Next() {
		var stage, state string
		var e, d int64
		if err := rows.Scan(&stage, &state, &e, &d); err != nil {
			t.Fatal(err)
		}
		out[stage] = state
		if stage == "FILE COPY" {
			est, data = e, d
		}
	}
	return out, est, data
}

// assertUntouched checks a recipient a failed clone must have left as it
// was: serving, no staging directory, not the donor's database, its own
// gtid_executed (gtids).
func assertUntouched(t *testing.T, ctx context.Context, p *lab.Petrel, db *sql.DB, gtids, what string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(p.Datadir(), "clone-staging")); !os.IsNotExist(err) {
		t.Errorf("%s: the staging directory is still there (%v)", what, err)
	}
	if n := queryInt(t, ctx, db, "SELECT COUNT(*) FROM information_schema.schemata WHERE schema_name = 'c'"); n != 0 {
		t.Errorf("%s: the recipient has the donor's database", what)
	}
	if g := queryString(t, ctx, db, "SELECT @@GLOBAL.gtid_executed"); g != gtids {
		t.Errorf("%s: the recipient's gtid_executed is %q, want %q", what, g, gtids)
	}
}

// sameGTIDs fails unless the two GTID sets are equal as sets.
func sameGTIDs(t *testing.T, what, a, b string) {
	t.Helper()
	x, err1 := base.ParseGTIDSet(a)
	y, err2 := base.ParseGTIDSet(b)
	if err1 != nil || err2 != nil || !x.Equal(y) {
		t.Fatalf("%s: GTID sets differ: %q vs %q (%v %v)", what, a, b, err1, err2)
	}
}

// subsetGTIDs fails unless a is contained in b.
func subsetGTIDs(t *testing.T, what, a, b string) {
	t.Helper()
	x, err1 := base.ParseGTIDSet(a)
	y, err2 := base.ParseGTIDSet(b)
	if err1 != nil || err2 != nil || !y.ContainsSet(x) {
		t.Fatalf("%s: %q is not within %q (%v %v)", what, a, b, err1, err2)
	}
}

// execClone runs a CLONE INSTANCE that switches the clone in. The server
// restarts on the clone as the statement ends, so the client reads its
// OK or finds its connection closed (go-sql-driver's "invalid
// connection"), as a client of MySQL's restarting clone may; the
// restarted server's clone_status and data (waitRestarted and what
// follows) tell the outcome.
func execClone(t *testing.T, ctx context.Context, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, q string) {
	t.Helper()
	if _, err := db.ExecContext(ctx, q); err != nil && !errors.Is(err, mysql.ErrInvalidConn) && !errors.Is(err, driver.ErrBadConn) {
		t.Fatalf("%s: %v", q, err)
	}
}
