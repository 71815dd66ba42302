package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"petrel/lab"
)

// TestParallelApplierVariables: replica_parallel_workers,
// replica_parallel_type and replica_preserve_commit_order under both
// spellings, from the option file and SET GLOBAL; the type and the
// commit order are refused (3081) while the applier runs, the worker
// count is taken at the next START REPLICA (as MySQL does); the applier
// runs with what they say, and replicates the same rows.
func TestParallelApplierVariables(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	rep := startReplicaServer(t, ctx, 2, map[string]string{"slave_parallel_workers": "8", "replica_parallel_type": "DATABASE"})
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	for name, want := range map[string]string{
		"replica_parallel_workers": "8", "slave_parallel_workers": "8",
		"replica_parallel_type": "DATABASE", "slave_parallel_type": "DATABASE",
		"replica_preserve_commit_order": "ON", "slave_preserve_commit_order": "ON",
	} {
		var n, v string
		if err := rdb.QueryRowContext(ctx, "SHOW VARIABLES LIKE '"+name+"'").Scan(&n, &v); err != nil {
			t.Fatalf("SHOW VARIABLES LIKE '%s': %v", name, err)
		}
		if !strings.EqualFold(v, want) && !(want == "ON" && v == "1") {
			t.Fatalf("%s = %q, want %q", name, v, want)
		}
	}
	createReplUser(t, ctx, sdb)
	mustExec(t, ctx, sdb, "CREATE DATABASE a", "CREATE DATABASE b", "CREATE DATABASE c")
	for _, db := range []string{"a", "b", "c"} {
		mustExec(t, ctx, sdb, "CREATE TABLE "+db+".t (id INT PRIMARY KEY, v INT NOT NULL)")
	}
	pointAt(t, ctx, rdb, src.Port(), "")
	waitCaughtUp(t, ctx, sdb, rdb, 30*time.Second)
	if w := globalStatus(t, ctx, rdb, "Petrel_replica_parallel_workers"); w != 8 {
		t.Fatalf("Petrel_replica_parallel_workers = %d, want 8", w)
	}

	// Refused while the applier runs: MySQL's 3081.
	for _, q := range []string{"SET GLOBAL replica_preserve_commit_order = OFF", "SET GLOBAL slave_parallel_type = 'LOGICAL_CLOCK'"} {
		_, err := rdb.ExecContext(ctx, q)
		wantErrNo(t, q, err, 3081)
	}
	if v := queryString(t, ctx, rdb, "SELECT @@GLOBAL.replica_parallel_type"); v != "DATABASE" {
		t.Fatalf("refused SET changed replica_parallel_type to %q", v)
	}
	mustExec(t, ctx, rdb, "SET GLOBAL replica_parallel_workers = 2")

	writeRows := func(from, to int) {
		for i := from; i < to; i++ {
			db := []string{"a", "b", "c"}[i%3]
			mustExec(t, ctx, sdb, fmt.Sprintf("INSERT INTO %s.t VALUES (%d, %d)", db, i, i*7))
		}
	}
	writeRows(0, 150)
	waitCaughtUp(t, ctx, sdb, rdb, 30*time.Second)
	if w := globalStatus(t, ctx, rdb, "Petrel_replica_parallel_workers"); w != 8 {
		t.Fatalf("Petrel_replica_parallel_workers = %d while running, want 8 (the new count waits for START)", w)
	}
	checkWorkerRows(t, ctx, sdb, rdb, 8, "ON")

	mustExec(t, ctx, rdb, "STOP REPLICA SQL_THREAD")
	checkWorkerRows(t, ctx, sdb, rdb, 8, "OFF") // kept until the next START
	mustExec(t, ctx, rdb,
		"SET GLOBAL slave_preserve_commit_order = OFF", "SET GLOBAL replica_parallel_type = 'LOGICAL_CLOCK'",
		"START REPLICA SQL_THREAD")
	if v := queryInt(t, ctx, rdb, "SELECT @@GLOBAL.replica_preserve_commit_order"); v != 0 {
		t.Fatalf("replica_preserve_commit_order = %d after SET OFF", v)
	}
	writeRows(150, 300)
	waitCaughtUp(t, ctx, sdb, rdb, 30*time.Second)
	if w := globalStatus(t, ctx, rdb, "Petrel_replica_parallel_workers"); w != 2 {
		t.Fatalf("Petrel_replica_parallel_workers = %d after restart of the applier, want 2", w)
	}
	total := 0
	for _, db := range []string{"a", "b", "c"} {
		total += sameTable(t, ctx, sdb, rdb, db+".t", "id")
	}
	if total != 300 {
		t.Fatalf("%d rows replicated, want 300", total)
	}
	checkWorkerRows(t, ctx, sdb, rdb, 2, "ON")

	// A worker's failure: its row and SHOW REPLICA STATUS carry MySQL's
	// number (a table the replica lacks, 1146; row events apply
	// idempotently, so a duplicate key is not one).
	mustExec(t, ctx, rdb, "DROP TABLE c.t")
	mustExec(t, ctx, sdb, "INSERT INTO c.t VALUES (1000, 1)")
	deadline := time.Now().Add(30 * time.Second)
	for replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")["Last_SQL_Errno"] == "0" {
		if time.Now().After(deadline) {
			t.Fatal("the replica did not stop at the missing table")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := replicaStatus(t, ctx, rdb, "SHOW REPLICA STATUS")["Last_SQL_Errno"]; n != "1146" {
		t.Fatalf("Last_SQL_Errno = %s, want 1146", n)
	}
	if n := queryInt(t, ctx, rdb, "SELECT COUNT(*) FROM performance_schema.replication_applier_status_by_worker WHERE LAST_ERROR_NUMBER = 1146 AND LAST_ERROR_MESSAGE LIKE '%c.t%'"); n != 1 {
		t.Fatalf("%d worker rows carry error 1146 naming c.t, want 1", n)
	}
	if st := queryString(t, ctx, rdb, "SELECT SERVICE_STATE FROM performance_schema.replication_applier_status"); st != "OFF" {
		t.Fatalf("replication_applier_status.SERVICE_STATE = %s after the failure, want OFF", st)
	}
}

// checkWorkerRows: performance_schema.replication_applier_status_by_worker
// has one row per worker (ids 1..n) in the given state, a thread id only
// while running, every applied GTID it names is in the replica's
// gtid_executed, and the source's last transaction is some worker's last
// applied one.
func checkWorkerRows(t *testing.T, ctx context.Context, sdb, rdb *sql.DB, n int, state string) {
	t.Helper()
	rows, err := rdb.QueryContext(ctx, "SELECT WORKER_ID, THREAD_ID, SERVICE_STATE, LAST_ERROR_NUMBER, LAST_APPLIED_TRANSACTION,"+
		" LAST_APPLIED_TRANSACTION_END_APPLY_TIMESTAMP >= LAST_APPLIED_TRANSACTION_START_APPLY_TIMESTAMP"+
		" FROM performance_schema.replication_applier_status_by_worker ORDER BY WORKER_ID")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	executed := queryString(t, ctx, rdb, "SELECT @@GLOBAL.gtid_executed")
	srcExecuted := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed")
	last := srcExecuted[:strings.Index(srcExecuted, ":")+1] + strconv.Itoa(gtidCount(t, srcExecuted))
	var ids []int
	foundLast := false
	for rows.Next() {
		var id, errno int
		var thread sql.NullInt64
		var st, applied string
		var ordered sql.NullBool
		if err := rows.Scan(&id, &thread, &st, &errno, &applied, &ordered); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if st != state || thread.Valid != (state == "ON") || errno != 0 {
			t.Errorf("worker %d: state %s, thread %v, error %d; want %s, a thread id only when ON, no error", id, st, thread, errno, state)
		}
		if applied == "" {
			continue
		}
		if !ordered.Bool {
			t.Errorf("worker %d: its last transaction ended applying before it started", id)
		}
		if queryInt(t, ctx, rdb, "SELECT GTID_SUBSET(?, ?)", applied, executed) != 1 {
			t.Errorf("worker %d: last applied %s is not in gtid_executed %s", id, applied, executed)
		}
		foundLast = foundLast || applied == last
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ids) != n || ids[0] != 1 || ids[n-1] != n {
		t.Fatalf("worker ids %v, want 1..%d", ids, n)
	}
	if !foundLast {
		t.Errorf("no worker's last applied transaction is the source's last, %s", last)
	}
	if st := queryString(t, ctx, rdb, "SELECT SERVICE_STATE FROM performance_schema.replication_applier_status"); st != state {
		t.Errorf("replication_applier_status.SERVICE_STATE = %s, want %s", st, state)
	}
}

// gtidCount parses a gtid_executed of one source ("uuid:1-N" or
// "uuid:1") and fails unless it is a gap-free prefix; it returns N.
func gtidCount(t *testing.T, set string) int {
	t.Helper()
	set = strings.ReplaceAll(strings.TrimSpace(set), "\n", "")
	if set == "" {
		return 0
	}
	parts := strings.Split(set, ":")
	if len(parts) != 2 || strings.Contains(set, ",") {
		t.Fatalf("gtid_executed %q: want one source, one interval", set)
	}
	iv := strings.Split(parts[1], "-")
	if iv[0] != "1" {
		t.Fatalf("gtid_executed %q does not start at 1", set)
	}
	n, err := strconv.Atoi(iv[len(iv)-1])
	if err != nil {
		t.Fatalf("gtid_executed %q: %v", set, err)
	}
	return n
}

// backlog runs writers committing transactions on the source for d: each
// inserts one row into k.log (so the replica's rows count its applied
// transactions), inserts into one of k.t0..k.t3 and moves a counter of
// k.hot (ten rows: conflicts that the scheduler must keep in order).
func backlog(ctx context.Context, db *sql.DB, writers int, d time.Duration, next *int64, mu *sync.Mutex) int {
	var wg sync.WaitGroup
	var done sync.Mutex
	count := 0
	stop := time.Now().Add(d)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(w) + time.Now().UnixNano()))
			for time.Now().Before(stop) && ctx.Err() == nil {
				mu.Lock()
				*next++
				id := *next
				mu.Unlock()
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					continue
				}
				_, err1 := tx.ExecContext(ctx, "INSERT INTO k.log (id, w) VALUES (?, ?)", id, w)
				_, err2 := tx.ExecContext(ctx, fmt.Sprintf("INSERT INTO k.t%d (id, v) VALUES (?, ?)", id%4), id, rng.Intn(1000))
				_, err3 := tx.ExecContext(ctx, "UPDATE k.hot SET c = c + 1, last = ? WHERE id = ?", id, rng.Intn(10))
				if err1 != nil || err2 != nil || err3 != nil {
					_ = tx.Rollback()
					continue
				}
				if tx.Commit() == nil {
					done.Lock()
					count++
					done.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
	return count
}

// TestParallelReplicaKill9 kills the replica with SIGKILL while 8 workers
// apply a backlog, a few times. After each restart the recovered state is
// checked with the applier stopped: gtid_executed is a gap-free prefix of
// the source's and the replica holds exactly one k.log row per applied
// transaction (rows and GTID committed together). At the end every table
// has the source's rows and gtid_executed equals the source's.
func TestParallelReplicaKill9(t *testing.T) {
	// scripts/parallel-kill-campaign.sh runs longer campaigns.
	cycles := 3
	if v, err := strconv.Atoi(os.Getenv("PETREL_PARALLEL_KILL_CYCLES")); err == nil && v > 0 {
		cycles = v
	}
	ctx := testContext(t, 4*time.Minute+time.Duration(cycles)*10*time.Second)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	rep := startReplicaServer(t, ctx, 2, map[string]string{"replica_parallel_workers": "8"})
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUser(t, ctx, sdb)
	setup := []string{"CREATE DATABASE k", "CREATE TABLE k.log (id BIGINT PRIMARY KEY, w INT NOT NULL)",
		"CREATE TABLE k.hot (id INT PRIMARY KEY, c BIGINT NOT NULL, last BIGINT NOT NULL)"}
	for i := 0; i < 4; i++ {
		setup = append(setup, fmt.Sprintf("CREATE TABLE k.t%d (id BIGINT PRIMARY KEY, v INT NOT NULL, KEY (v))", i))
	}
	for i := 0; i < 10; i++ {
		setup = append(setup, fmt.Sprintf("INSERT INTO k.hot VALUES (%d, 0, 0)", i))
	}
	mustExec(t, ctx, sdb, setup...)
	// Transactions without a k.log row: the account, DDL, hot rows.
	nonLog := gtidCount(t, queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed"))
	pointAt(t, ctx, rdb, src.Port(), "")
	waitCaughtUp(t, ctx, sdb, rdb, 30*time.Second)

	var next int64
	var mu sync.Mutex
	killedMidApply := 0
	for c := 0; c < cycles; c++ {
		mustExec(t, ctx, rdb, "STOP REPLICA SQL_THREAD")
		n := backlog(ctx, sdb, 16, 2500*time.Millisecond, &next, &mu)
		applied0 := globalStatus(t, ctx, rdb, "Replica_applied_transactions")
		mustExec(t, ctx, rdb, "START REPLICA SQL_THREAD")
		time.Sleep(time.Duration(20+20*(c%3)) * time.Millisecond)
		if w := globalStatus(t, ctx, rdb, "Petrel_replica_parallel_workers"); w != 8 {
			t.Fatalf("Petrel_replica_parallel_workers = %d, want 8", w)
		}
		applied := globalStatus(t, ctx, rdb, "Replica_applied_transactions") - applied0
		srcSet := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed")
		repSet := queryString(t, ctx, rdb, "SELECT @@GLOBAL.gtid_executed")
		if repSet != srcSet {
			killedMidApply++
		}
		if err := rep.Kill(); err != nil {
			t.Fatal(err)
		}
		if err := rep.Restart(ctx); err != nil {
			t.Fatalf("restart %d: %v\n%s", c, err, tail(rep.Log(), 4096))
		}
		rdb = rootDB(t, rep, "")
		// The recovered state, before the applier goes on.
		mustExec(t, ctx, rdb, "STOP REPLICA SQL_THREAD")
		got := gtidCount(t, queryString(t, ctx, rdb, "SELECT @@GLOBAL.gtid_executed"))
		rows := int(queryInt(t, ctx, rdb, "SELECT COUNT(*) FROM k.log"))
		if rows != got-nonLog {
			t.Fatalf("cycle %d: replica holds %d k.log rows but gtid_executed counts %d transactions (%d without a row)", c, rows, got, nonLog)
		}
		t.Logf("cycle %d: backlog %d transactions, %d applied before the kill, %d recovered", c, n, applied, got)
		mustExec(t, ctx, rdb, "START REPLICA SQL_THREAD")
	}
	if killedMidApply == 0 {
		t.Fatalf("the replica caught up before every kill: no kill hit the workers mid-backlog")
	}
	final := waitCaughtUp(t, ctx, sdb, rdb, 90*time.Second)
	gtidCount(t, final)
	for _, tb := range []string{"k.log", "k.hot", "k.t0", "k.t1", "k.t2", "k.t3"} {
		sameTable(t, ctx, sdb, rdb, tb, "id")
	}
	if s, r := queryString(t, ctx, sdb, "SELECT @@GLOBAL.gtid_executed"), queryString(t, ctx, rdb, "SELECT @@GLOBAL.gtid_executed"); s != r {
		t.Fatalf("gtid_executed differs: source %s, replica %s", s, r)
	}
}

// TestParallelReplicaOwnWritesets: a COMMIT_ORDER source writes serial
// intervals for a single client's transactions (last_committed =
// sequence_number - 1); the replica schedules them on the write sets it
// computes from their row images, and ends with the source's rows,
// conflicting updates of hot rows included.
func TestParallelReplicaOwnWritesets(t *testing.T) {
	ctx := testContext(t, 3*time.Minute)
	src := startReplicaServer(t, ctx, 1, map[string]string{"binlog_transaction_dependency_tracking": "COMMIT_ORDER"})
	rep := startReplicaServer(t, ctx, 2, map[string]string{"replica_parallel_workers": "4"})
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUser(t, ctx, sdb)
	mustExec(t, ctx, sdb, "CREATE DATABASE w", "CREATE TABLE w.t (id INT PRIMARY KEY, u INT, v INT NOT NULL, UNIQUE KEY (u))",
		"CREATE TABLE w.hot (id INT PRIMARY KEY, c INT NOT NULL)", "INSERT INTO w.hot VALUES (1, 0), (2, 0)")
	pointAt(t, ctx, rdb, src.Port(), "")
	waitCaughtUp(t, ctx, sdb, rdb, 30*time.Second)
	mustExec(t, ctx, rdb, "STOP REPLICA SQL_THREAD")
	const n = 300
	for i := 0; i < n; i++ {
		mustExec(t, ctx, sdb, fmt.Sprintf("INSERT INTO w.t VALUES (%d, %d, %d)", i, i+1000, i))
		if i%10 == 0 {
			mustExec(t, ctx, sdb, fmt.Sprintf("UPDATE w.hot SET c = c * 2 + %d WHERE id = %d", i, 1+i%20/10))
			mustExec(t, ctx, sdb, fmt.Sprintf("UPDATE w.t SET u = NULL, v = v + 1 WHERE id = %d", i/2))
		}
	}
	before := globalStatus(t, ctx, rdb, "Petrel_replica_writeset_scheduled")
	mustExec(t, ctx, rdb, "START REPLICA SQL_THREAD")
	waitCaughtUp(t, ctx, sdb, rdb, 60*time.Second)
	if got := globalStatus(t, ctx, rdb, "Petrel_replica_writeset_scheduled") - before; got < n {
		t.Fatalf("Petrel_replica_writeset_scheduled grew by %d, want at least %d (every transaction of the backlog)", got, n)
	}
	sameTable(t, ctx, sdb, rdb, "w.t", "id")
	sameTable(t, ctx, sdb, rdb, "w.hot", "id")
}

// TestParallelApplyMatchesSource is metamorphic: one source's binlog,
// applied by the single applier, by 8 LOGICAL_CLOCK workers and by 4
// DATABASE workers, must give the source's tables on all three. The
// workload is seeded and random: conflicting updates of hot rows, unique
// keys moving between rows, deletes, a table without a primary key,
// large transactions and DDL between them; the replicas apply it as a
// backlog (applier stopped while it runs).
func TestParallelApplyMatchesSource(t *testing.T) {
	seed := time.Now().UnixNano()
	if v, err := strconv.ParseInt(os.Getenv("PETREL_PARALLEL_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("seed %d (PETREL_PARALLEL_SEED)", seed)
	ctx := testContext(t, 4*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	sdb := rootDB(t, src, "")
	createReplUser(t, ctx, sdb)
	mustExec(t, ctx, sdb, "CREATE DATABASE m1", "CREATE DATABASE m2",
		"CREATE TABLE m1.a (id INT PRIMARY KEY, u INT, v BIGINT NOT NULL, s VARCHAR(40), UNIQUE KEY (u))",
		"CREATE TABLE m1.nopk (k INT NOT NULL, v BIGINT NOT NULL)",
		"CREATE TABLE m2.b (id INT PRIMARY KEY, v BIGINT NOT NULL)")
	configs := []map[string]string{
		{"replica_parallel_workers": "8"},
		{"replica_parallel_workers": "4", "replica_parallel_type": "DATABASE"},
		{"replica_parallel_workers": "1"},
	}
	var reps []*sql.DB
	for i, vars := range configs {
		rp := startReplicaServer(t, ctx, 2+i, vars)
		rdb := rootDB(t, rp, "")
		pointAt(t, ctx, rdb, src.Port(), "")
		waitCaughtUp(t, ctx, sdb, rdb, 30*time.Second)
		mustExec(t, ctx, rdb, "STOP REPLICA SQL_THREAD")
		reps = append(reps, rdb)
	}

	const clients, perClient = 6, 120
	var wg sync.WaitGroup
	var failed sync.Mutex
	nfail := 0
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed + int64(c)))
			for i := 0; i < perClient && ctx.Err() == nil; i++ {
				var stmts []string
				switch r := rng.Intn(20); {
				case c == 0 && r == 0:
					// DDL between the row transactions.
					n := rng.Intn(3)
					stmts = []string{fmt.Sprintf("CREATE TABLE IF NOT EXISTS m2.d%d (id INT PRIMARY KEY, v INT)", n)}
				case c == 0 && r == 1:
					stmts = []string{fmt.Sprintf("DROP TABLE IF EXISTS m2.d%d", rng.Intn(3))}
				case r < 3:
					// A large transaction.
					var b strings.Builder
					base := 100000 + c*10000 + i*50
					b.WriteString("INSERT INTO m2.b VALUES ")
					for k := 0; k < 50; k++ {
						if k > 0 {
							b.WriteString(",")
						}
						fmt.Fprintf(&b, "(%d, %d)", base+k, rng.Intn(1000))
					}
					stmts = []string{b.String(), fmt.Sprintf("INSERT INTO m1.nopk VALUES (%d, %d), (%d, %d)", c, i, c, i+1)}
				case r < 6:
					stmts = []string{fmt.Sprintf("DELETE FROM m1.nopk WHERE k = %d AND v < %d", rng.Intn(clients), rng.Intn(40)),
						fmt.Sprintf("INSERT INTO m1.nopk VALUES (%d, %d)", c, rng.Intn(100))}
				case r < 9:
					id := rng.Intn(40)
					stmts = []string{fmt.Sprintf("DELETE FROM m1.a WHERE id = %d", id)}
				default:
					// Hot rows and unique keys that move.
					id, u := rng.Intn(40), rng.Intn(60)
					stmts = []string{
						fmt.Sprintf("INSERT INTO m1.a VALUES (%d, NULL, 0, 'c%d') ON DUPLICATE KEY UPDATE v = v * 3 + %d, s = 'c%d-%d'", id, c, i, c, i),
						fmt.Sprintf("UPDATE m1.a SET u = NULL WHERE u = %d", u),
						fmt.Sprintf("UPDATE m1.a SET u = %d WHERE id = %d", u, id),
						fmt.Sprintf("INSERT INTO m2.b VALUES (%d, 1) ON DUPLICATE KEY UPDATE v = v + %d", rng.Intn(20), c+1),
					}
				}
				tx, err := sdb.BeginTx(ctx, nil)
				if err != nil {
					continue
				}
				ok := true
				for _, q := range stmts {
					if _, err := tx.ExecContext(ctx, q); err != nil {
						ok = false
						break
					}
				}
				if !ok || tx.Commit() != nil {
					_ = tx.Rollback()
					failed.Lock()
					nfail++
					failed.Unlock()
				}
			}
		}(c)
	}
	wg.Wait()
	for _, rdb := range reps {
		mustExec(t, ctx, rdb, "START REPLICA SQL_THREAD")
	}
	tables := map[string]string{"m1.a": "id", "m1.nopk": "k, v", "m2.b": "id"}
	for i, rdb := range reps {
		waitCaughtUp(t, ctx, sdb, rdb, 90*time.Second)
		for tb, order := range tables {
			a, na := tableDigest(t, ctx, sdb, tb, order)
			b, nb := tableDigest(t, ctx, rdb, tb, order)
			if a != b || na != nb {
				t.Fatalf("replica %v: %s differs: source %d rows, replica %d rows", configs[i], tb, na, nb)
			}
		}
		for n := 0; n < 3; n++ {
			tb := fmt.Sprintf("m2.d%d", n)
			if s, r := queryInt(t, ctx, sdb, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'm2' AND table_name = ?", tb[3:]),
				queryInt(t, ctx, rdb, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = 'm2' AND table_name = ?", tb[3:]); s != r {
				t.Fatalf("replica %d (%v): %s exists %d, source %d", i, configs[i], tb, r, s)
			}
		}
	}
	if ws := globalStatus(t, ctx, reps[0], "Petrel_replica_waits_dependency"); ws == 0 {
		t.Fatalf("the 8-worker replica never waited for a dependency: the workload has no conflicts")
	}
	t.Logf("%d transactions, %d refused on the source", clients*perClient-nfail, nfail)
}
