package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
)

const (
	crashWriters          = 8
	crashAutocommitCycles = 20
	crashTxnCycles        = 2
	crashTxnSize          = 5
	// crashCycleIDs is the id range each cycle owns: cycle*crashCycleIDs +
	// client*crashClientIDs + n.
	crashCycleIDs  = 1_000_000_000
	crashClientIDs = 10_000_000
)

// TestKillDurability is the durability test: writers insert rows as fast
// as they can, the server is SIGKILLed at a random moment, restarted, and
// every insert whose OK reached the client must be there. Rows that were
// in flight may or may not be there; rows that were never sent must not.
// Then the same with multi-statement transactions, which must be atomic.
func TestKillDurability(t *testing.T) {
	ctx := testContext(t, 4*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	mustExec(t, ctx, rootDB(t, p, ""),
		"CREATE DATABASE crash",
		"CREATE TABLE crash.t (id BIGINT PRIMARY KEY, client INT NOT NULL, n INT NOT NULL, pad VARCHAR(100) NOT NULL)")

	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	start := time.Now()
	var total int64 // rows present after all cycles
	for cycle := 0; cycle < crashAutocommitCycles+crashTxnCycles; cycle++ {
		if ctx.Err() != nil {
			t.Fatalf("out of time after %d cycles", cycle)
		}
		killAfter := time.Duration(200+rng.IntN(601)) * time.Millisecond
		txnMode := cycle >= crashAutocommitCycles
		total += crashCycle(t, ctx, p, cycle, killAfter, txnMode)
		if t.Failed() {
			t.Fatalf("stopping after cycle %d", cycle)
		}
	}
	t.Logf("%d cycles in %v", crashAutocommitCycles+crashTxnCycles, time.Since(start).Round(time.Millisecond))
	db := rootDB(t, p, "crash")
	if n := queryInt(t, ctx, db, "SELECT COUNT(*) FROM t"); n != total {
		t.Errorf("table has %d rows, the cycles found %d", n, total)
	}
}

// crashWrite is one writer's record of what it sent and what was
// acknowledged.
type crashWrite struct {
	sent  map[int64]bool // INSERT issued (in a transaction: statement sent)
	acked map[int64]bool // INSERT returned OK in autocommit, or COMMIT returned OK
	txns  []*crashTxn
	err   error // an error before the kill
}

// crashTxn is one explicit transaction of a writer.
type crashTxn struct {
	ids        []int64 // all ids the transaction would insert
	commitSent bool
	commitOK   bool
}

// crashPad is the pad column for id, so a row's content can be checked.
func crashPad(id int64) string {
	s := fmt.Sprintf("row-%d-", id)
	return s + strings.Repeat("x", 100-len(s))
}

// crashCycle runs one write-kill-restart-check cycle and returns the
// number of the cycle's rows present after the restart.
func crashCycle(t *testing.T, ctx context.Context, p *lab.Petrel, cycle int, killAfter time.Duration, txnMode bool) int64 {
	cfg := clientConfig(t, p, "root", rootPassword, "crash")
	cfg.ReadTimeout = 20 * time.Second
	cfg.WriteTimeout = 20 * time.Second
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	db.SetMaxOpenConns(crashWriters)
	db.SetMaxIdleConns(crashWriters)

	var killed atomic.Bool
	writes := make([]*crashWrite, crashWriters)
	var wg sync.WaitGroup
	ready := make(chan struct{}, crashWriters)
	for w := range writes {
		cw := &crashWrite{sent: map[int64]bool{}, acked: map[int64]bool{}}
		writes[w] = cw
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := db.Conn(ctx)
			if err != nil {
				cw.err = err
				ready <- struct{}{}
				return
			}
			defer c.Close()
			ready <- struct{}{}
			base := int64(cycle)*crashCycleIDs + int64(w)*crashClientIDs
			if txnMode {
				crashTxnWriter(ctx, c, cw, &killed, base, w)
			} else {
				crashAutocommitWriter(ctx, c, cw, &killed, base, w)
			}
		}()
	}
	for range writes {
		<-ready
	}
	time.Sleep(killAfter)
	killed.Store(true)
	if err := p.Kill(); err != nil {
		t.Fatalf("cycle %d: kill: %v", cycle, err)
	}
	wg.Wait()
	for w, cw := range writes {
		if cw.err != nil {
			t.Errorf("cycle %d, writer %d: error before the kill: %v", cycle, w, cw.err)
		}
	}
	if err := p.Restart(ctx); err != nil {
		t.Fatalf("cycle %d: restart after kill -9: %v", cycle, err)
	}

	// Read back the cycle's rows.
	check := openConfig(t, clientConfig(t, p, "root", rootPassword, "crash"))
	lo := int64(cycle) * crashCycleIDs
	rows, err := check.QueryContext(ctx, "SELECT id, client, n, pad FROM t WHERE id >= ? AND id < ?", lo, lo+crashCycleIDs)
	if err != nil {
		t.Fatalf("cycle %d: read back: %v", cycle, err)
	}
	present := map[int64]bool{}
	for rows.Next() {
		var id int64
		var client, n int
		var pad string
		if err := rows.Scan(&id, &client, &n, &pad); err != nil {
			t.Fatal(err)
		}
		present[id] = true
		off := id - lo
		if wc, wn := int(off/crashClientIDs), int(off%crashClientIDs); client != wc || n != wn || pad != crashPad(id) {
			t.Errorf("cycle %d: row %d has client %d n %d pad %q; want %d %d %q", cycle, id, client, n, pad, wc, wn, crashPad(id))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("cycle %d: read back: %v", cycle, err)
	}
	rows.Close()

	var sent, acked, missing, phantom, inflightPresent int
	for w, cw := range writes {
		sent += len(cw.sent)
		acked += len(cw.acked)
		for id := range cw.acked {
			if !present[id] {
				missing++
				if missing <= 10 {
					t.Errorf("cycle %d: acknowledged id %d (writer %d) is missing after kill -9 and restart", cycle, id, w)
				}
			}
		}
		for id := range cw.sent {
			if present[id] && !cw.acked[id] {
				inflightPresent++
			}
		}
	}
	for id := range present {
		off := id - lo
		w := int(off / crashClientIDs)
		if w < 0 || w >= crashWriters || !writes[w].sent[id] {
			phantom++
			if phantom <= 10 {
				t.Errorf("cycle %d: row %d is present but was never sent", cycle, id)
			}
		}
	}
	if missing > 0 || phantom > 0 {
		t.Errorf("cycle %d: %d acknowledged rows missing, %d rows present that were never sent", cycle, missing, phantom)
	}

	mode := "autocommit"
	if txnMode {
		mode = "transactions"
		var whole, none, committed int
		for w, cw := range writes {
			for i, tx := range cw.txns {
				n := 0
				for _, id := range tx.ids {
					if present[id] {
						n++
					}
				}
				switch {
				case tx.commitOK && n != len(tx.ids):
					t.Errorf("cycle %d, writer %d, txn %d: COMMIT returned OK but %d of %d rows are present", cycle, w, i, n, len(tx.ids))
				case !tx.commitSent && n != 0:
					t.Errorf("cycle %d, writer %d, txn %d: COMMIT never sent but %d of %d rows are present", cycle, w, i, n, len(tx.ids))
				case n != 0 && n != len(tx.ids):
					t.Errorf("cycle %d, writer %d, txn %d: not atomic: %d of %d rows present", cycle, w, i, n, len(tx.ids))
				}
				if tx.commitOK {
					committed++
				}
				if n == len(tx.ids) {
					whole++
				} else if n == 0 {
					none++
				}
			}
		}
		t.Logf("cycle %2d (%s): %d transactions committed, %d present whole, %d absent whole", cycle, mode, committed, whole, none)
	}
	t.Logf("cycle %2d (%s): killed after %v: sent %d, acknowledged %d, present %d (in-flight present %d), missing %d, never-sent present %d",
		cycle, mode, killAfter, sent, acked, len(present), inflightPresent, missing, phantom)
	if acked == 0 {
		t.Errorf("cycle %d: no write was acknowledged in %v", cycle, killAfter)
	}
	return int64(len(present))
}

// crashAutocommitWriter inserts rows one autocommit statement at a time
// until an error (expected once the server is killed).
func crashAutocommitWriter(ctx context.Context, c *sql.Conn, cw *crashWrite, killed *atomic.Bool, base int64, client int) {
	for n := 0; n < crashClientIDs; n++ {
		id := base + int64(n)
		cw.sent[id] = true
		_, err := c.ExecContext(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d, '%s')", id, client, n, crashPad(id)))
		if err != nil {
			if !killed.Load() {
				cw.err = fmt.Errorf("INSERT id %d: %w", id, err)
			}
			return
		}
		cw.acked[id] = true
	}
}

// crashTxnWriter runs BEGIN; crashTxnSize INSERTs; COMMIT until an error.
func crashTxnWriter(ctx context.Context, c *sql.Conn, cw *crashWrite, killed *atomic.Bool, base int64, client int) {
	fail := func(what string, err error) {
		if !killed.Load() {
			cw.err = fmt.Errorf("%s: %w", what, err)
		}
	}
	for n := 0; n+crashTxnSize <= crashClientIDs; n += crashTxnSize {
		tx := &crashTxn{}
		for i := 0; i < crashTxnSize; i++ {
			tx.ids = append(tx.ids, base+int64(n+i))
		}
		cw.txns = append(cw.txns, tx)
		if _, err := c.ExecContext(ctx, "BEGIN"); err != nil {
			fail("BEGIN", err)
			return
		}
		for i, id := range tx.ids {
			cw.sent[id] = true
			if _, err := c.ExecContext(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d, '%s')", id, client, n+i, crashPad(id))); err != nil {
				fail(fmt.Sprintf("INSERT id %d", id), err)
				return
			}
		}
		tx.commitSent = true
		if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
			fail("COMMIT", err)
			return
		}
		tx.commitOK = true
		for _, id := range tx.ids {
			cw.acked[id] = true
		}
	}
}

// TestKillAfterBinlogAdmin: the binlog is storage's only write-ahead log,
// so statements that delete binlog files (PURGE BINARY LOGS, RESET MASTER)
// must first make storage hold their transactions durably. A kill -9 right
// after each loses no row. (The window inside RESET MASTER, between the
// deletion and the new position's flush, is closed by a flush before the
// deletion; only binlog/logwal_test.go's PURGE test can aim at such a
// window.)
func TestKillAfterBinlogAdmin(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE adm", "CREATE TABLE adm.t (id INT PRIMARY KEY)")
	insert := func(from, n int) {
		t.Helper()
		for i := from; i < from+n; i++ {
			mustExec(t, ctx, db, fmt.Sprintf("INSERT INTO adm.t VALUES (%d)", i))
		}
	}
	restart := func(what string) {
		t.Helper()
		if err := p.Kill(); err != nil {
			t.Fatal(err)
		}
		if err := p.Restart(ctx); err != nil {
			t.Fatalf("restart after %s: %v\n%s", what, err, tail(p.Log(), 4096))
		}
		db = rootDB(t, p, "")
	}
	insert(0, 50)
	mustExec(t, ctx, db, "FLUSH BINARY LOGS")
	file, _ := binlogPosition(t, ctx, db)
	mustExec(t, ctx, db, fmt.Sprintf("PURGE BINARY LOGS TO '%s'", file))
	restart("PURGE BINARY LOGS")
	if n := queryInt(t, ctx, db, "SELECT COUNT(*) FROM adm.t"); n != 50 {
		t.Fatalf("after PURGE BINARY LOGS and kill -9: %d rows, want 50", n)
	}
	insert(50, 50)
	mustExec(t, ctx, db, "RESET MASTER")
	restart("RESET MASTER")
	if n := queryInt(t, ctx, db, "SELECT COUNT(*) FROM adm.t"); n != 100 {
		t.Fatalf("after RESET MASTER and kill -9: %d rows, want 100", n)
	}
	if g := queryString(t, ctx, db, "SELECT @@GLOBAL.gtid_executed"); g != "" {
		t.Fatalf("gtid_executed %q after RESET MASTER, want empty", g)
	}
}
