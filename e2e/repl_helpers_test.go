package e2e

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"petrel/lab"
)

// Replication test helpers.

const (
	replUser     = "repl"
	replPassword = "repl-pw"
)

// configFile writes a my.cnf-style [petrel] section and returns its path.
func configFile(t *testing.T, vars map[string]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("[petrel]\n")
	for k, v := range vars {
		fmt.Fprintf(&b, "%s = %s\n", k, v)
	}
	p := filepath.Join(t.TempDir(), "petrel.cnf")
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// startReplicaServer starts a Petrel server meant to be a replica:
// server id id, a short replica_net_timeout so link faults heal quickly.
func startReplicaServer(t *testing.T, ctx context.Context, id int, vars map[string]string) *lab.Petrel {
	t.Helper()
	if vars == nil {
		vars = map[string]string{}
	}
	if _, ok := vars["replica_net_timeout"]; !ok {
		vars["replica_net_timeout"] = "2"
	}
	return startPetrel(t, ctx, lab.PetrelOptions{ServerID: id, ExtraArgs: []string{"--config", configFile(t, vars)}})
}

// createReplUser makes the replication account on a source.
func createReplUser(t *testing.T, ctx context.Context, src *sql.DB) {
	t.Helper()
	mustExec(t, ctx, src,
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED BY '%s'", replUser, replPassword),
		fmt.Sprintf("GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'", replUser))
}

// pointAt runs CHANGE REPLICATION SOURCE TO ... and START REPLICA.
func pointAt(t *testing.T, ctx context.Context, rep *sql.DB, port int, extra string) {
	t.Helper()
	q := fmt.Sprintf("CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_PORT=%d, SOURCE_USER='%s', SOURCE_PASSWORD='%s', SOURCE_AUTO_POSITION=1, SOURCE_CONNECT_RETRY=1%s", port, replUser, replPassword, extra)
	mustExec(t, ctx, rep, q, "START REPLICA")
}

// replicaStatus returns SHOW REPLICA STATUS as column -> value ("NULL" for
// NULL); nil when there is no row.
func replicaStatus(t *testing.T, ctx context.Context, db querier, stmt string) map[string]string {
	t.Helper()
	rows, err := db.QueryContext(ctx, stmt)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	if !rows.Next() {
		return nil
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for i, c := range cols {
		if vals[i].Valid {
			out[c] = vals[i].String
		} else {
			out[c] = "NULL"
		}
	}
	return out
}

// waitCaughtUp waits until the replica's gtid_executed equals the
// source's, and returns it.
func waitCaughtUp(t *testing.T, ctx context.Context, src, rep *sql.DB, within time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(within)
	var want, got string
	for time.Now().Before(deadline) && ctx.Err() == nil {
		want = queryString(t, ctx, src, "SELECT @@GLOBAL.gtid_executed")
		if err := rep.QueryRowContext(ctx, "SELECT @@GLOBAL.gtid_executed").Scan(&got); err == nil && got == want {
			return got
		}
		time.Sleep(100 * time.Millisecond)
	}
	st := replicaStatus(t, ctx, rep, "SHOW REPLICA STATUS")
	t.Fatalf("replica did not catch up within %v: source %q, replica %q; IO=%s SQL=%s io_err=%q sql_err=%q",
		within, want, got, st["Replica_IO_Running"], st["Replica_SQL_Running"], st["Last_IO_Error"], st["Last_SQL_Error"])
	return ""
}

// tableDigest hashes every row of a table in primary-key order.
func tableDigest(t *testing.T, ctx context.Context, db querier, table, orderBy string) (string, int) {
	t.Helper()
	rows, err := db.QueryContext(ctx, "SELECT * FROM "+table+" ORDER BY "+orderBy)
	if err != nil {
		t.Fatalf("digest %s: %v", table, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	h := sha256.New()
	n := 0
	vals := make([]sql.RawBytes, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if v == nil {
				h.Write([]byte{0xff})
			} else {
				fmt.Fprintf(h, "%d:%s", len(v), v)
			}
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("digest %s: %v", table, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n
}

// sameTable fails the test unless table has the same rows on both.
func sameTable(t *testing.T, ctx context.Context, src, rep querier, table, orderBy string) int {
	t.Helper()
	a, na := tableDigest(t, ctx, src, table, orderBy)
	b, nb := tableDigest(t, ctx, rep, table, orderBy)
	if a != b || na != nb {
		t.Fatalf("%s differs: source %d rows (%s), replica %d rows (%s)", table, na, a[:12], nb, b[:12])
	}
	return na
}

// insertLoad runs writers inserting into table (id BIGINT PK, w INT, n
// INT) until stop is closed; it returns the acknowledged ids.
type insertLoad struct {
	wg    sync.WaitGroup
	stop  chan struct{}
	mu    sync.Mutex
	acked map[int64]bool
	errs  atomic.Int64
}

func startInsertLoad(ctx context.Context, db *sql.DB, table string, writers int, base int64) *insertLoad {
	l := &insertLoad{stop: make(chan struct{}), acked: map[int64]bool{}}
	for w := 0; w < writers; w++ {
		l.wg.Add(1)
		go func(w int) {
			defer l.wg.Done()
			for i := int64(0); i < 1_000_000; i++ {
				select {
				case <-l.stop:
					return
				default:
				}
				if ctx.Err() != nil {
					return
				}
				id := base + int64(w)*10_000_000 + i
				if _, err := db.ExecContext(ctx, "INSERT INTO "+table+" (id, w, n) VALUES (?, ?, ?)", id, w, i); err != nil {
					l.errs.Add(1)
					time.Sleep(20 * time.Millisecond)
					continue
				}
				l.mu.Lock()
				l.acked[id] = true
				l.mu.Unlock()
			}
		}(w)
	}
	return l
}

func (l *insertLoad) finish() map[int64]bool {
	close(l.stop)
	l.wg.Wait()
	return l.acked
}

// replicatingPair starts a source and a replica (server id 2), runs setup
// on the source, points the replica at it and waits until it caught up.
func replicatingPair(t *testing.T, ctx context.Context, setup ...string) (src, rep *lab.Petrel, sdb, rdb *sql.DB) {
	t.Helper()
	src = startPetrel(t, ctx, lab.PetrelOptions{})
	rep = startReplicaServer(t, ctx, 2, nil)
	sdb, rdb = rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUser(t, ctx, sdb)
	mustExec(t, ctx, sdb, setup...)
	pointAt(t, ctx, rdb, src.Port(), "")
	waitCaughtUp(t, ctx, sdb, rdb, 20*time.Second)
	return src, rep, sdb, rdb
}

// binlogPosition is SHOW MASTER STATUS's file and position.
func binlogPosition(t *testing.T, ctx context.Context, db querier) (string, int64) {
	t.Helper()
	var file string
	var pos int64
	var doDB, ignoreDB, executed sql.NullString
	if err := db.QueryRowContext(ctx, "SHOW MASTER STATUS").Scan(&file, &pos, &doDB, &ignoreDB, &executed); err != nil {
		t.Fatal(err)
	}
	return file, pos
}
