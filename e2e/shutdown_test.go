package e2e

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/lab"
)

const (
	erServerShutdown = 1053 // ER_SERVER_SHUTDOWN
	// sdWriters write during the shutdown tests: half autocommit INSERTs,
	// half transactions of sdTxnSize INSERTs.
	sdWriters = 8
	sdTxnSize = 5
	// sdCycleIDs and sdWriterIDs lay out ids: cycle*sdCycleIDs +
	// writer*sdWriterIDs + n.
	sdCycleIDs  = 1_000_000_000
	sdWriterIDs = 10_000_000
	// sdDeadline is shutdown_timeout's default; sdSlack is what a shared
	// host may add to it (process exit, the reaper noticing).
	sdDeadline = 10 * time.Second
	sdSlack    = 3 * time.Second
)

// sdKind is what a client can conclude from a statement's result.
type sdKind int

const (
	sdOK      sdKind = iota // done
	sdRefused               // ER_SERVER_SHUTDOWN: definitely not done
	sdLost                  // the connection went away: may or may not be done
	sdBad                   // any other error: a bug (a definite failure where the outcome is unknown, or a non-MySQL error number)
)

// sdClassify sorts a statement's error the way a careful client must.
func sdClassify(err error) sdKind {
	var me *mysql.MySQLError
	switch {
	case err == nil:
		return sdOK
	case errors.As(err, &me) && me.Number == erServerShutdown:
		return sdRefused
	case errors.As(err, &me):
		return sdBad
	}
	return sdLost
}

// sdTxn is one unit of work of a writer: an autocommit INSERT (one id) or
// a transaction (sdTxnSize ids), and its outcome as the client saw it.
type sdTxn struct {
	ids       []int64
	finalSent bool   // the autocommit INSERT, or the COMMIT, was sent
	kind      sdKind // of the last statement sent
	err       error
}

type sdWriter struct {
	txns  []*sdTxn
	acked atomic.Int64 // units acknowledged so far (read while it runs)
}

// sdWrite runs one writer until its first error; ids start at base.
// Prepared writers send server-side prepared statements (Petrel's fast
// write path), the others the text protocol.
func sdWrite(ctx context.Context, c *sql.Conn, w *sdWriter, base int64, writer int, txnMode, prepared bool) {
	insert := func(id int64, n int) error {
		if prepared {
			_, err := c.ExecContext(ctx, "INSERT INTO t (id, client, n, pad) VALUES (?, ?, ?, ?)", id, writer, n, crashPad(id))
			return err
		}
		_, err := c.ExecContext(ctx, fmt.Sprintf("INSERT INTO t VALUES (%d, %d, %d, '%s')", id, writer, n, crashPad(id)))
		return err
	}
	for n := 0; n+sdTxnSize <= sdWriterIDs; n += sdTxnSize {
		tx := &sdTxn{}
		w.txns = append(w.txns, tx)
		fail := func(err error) { tx.kind, tx.err = sdClassify(err), err }
		if !txnMode {
			tx.ids = []int64{base + int64(n)}
			tx.finalSent = true
			if err := insert(tx.ids[0], n); err != nil {
				fail(err)
				return
			}
			w.acked.Add(1)
			continue
		}
		for i := 0; i < sdTxnSize; i++ {
			tx.ids = append(tx.ids, base+int64(n+i))
		}
		if _, err := c.ExecContext(ctx, "BEGIN"); err != nil {
			fail(err)
			return
		}
		for i, id := range tx.ids {
			if err := insert(id, n+i); err != nil {
				fail(err)
				return
			}
		}
		tx.finalSent = true
		if _, err := c.ExecContext(ctx, "COMMIT"); err != nil {
			fail(err)
			return
		}
		w.acked.Add(1)
	}
}

// sdStartWriters starts sdWriters writers on connections of their own:
// autocommit and transactions, text protocol and prepared statements
// (no driver retries on another connection) and returns them with a wait
// function.
func sdStartWriters(t *testing.T, ctx context.Context, p *lab.Petrel, cycle int) ([]*sdWriter, func()) {
	t.Helper()
	cfg := clientConfig(t, p, "root", rootPassword, "sd")
	cfg.ReadTimeout = 30 * time.Second
	cfg.WriteTimeout = 30 * time.Second
	db := openConfig(t, cfg)
	db.SetMaxOpenConns(sdWriters)
	writers := make([]*sdWriter, sdWriters)
	conns := make([]*sql.Conn, sdWriters)
	for i := range writers {
		writers[i] = &sdWriter{}
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatalf("cycle %d: connect writer %d: %v", cycle, i, err)
		}
		conns[i] = c
	}
	var wg sync.WaitGroup
	for i, w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conns[i].Close()
			base := int64(cycle)*sdCycleIDs + int64(i)*sdWriterIDs
			sdWrite(ctx, conns[i], w, base, i, i%2 == 1, i%4 >= 2)
		}()
	}
	return writers, wg.Wait
}

// sdCheck reads the cycle's rows back and holds every unit of work to
// what its client was told: OK means present (whole), ER_SERVER_SHUTDOWN
// or a transaction whose COMMIT was never sent means absent, a lost
// connection means present whole or absent whole, and nothing else may
// have been said. It returns counts by outcome.
func sdCheck(t *testing.T, ctx context.Context, p *lab.Petrel, cycle int, writers []*sdWriter) (ok, refused, lost, lostPresent int) {
	t.Helper()
	db := openConfig(t, clientConfig(t, p, "root", rootPassword, "sd"))
	lo := int64(cycle) * sdCycleIDs
	rows, err := db.QueryContext(ctx, "SELECT id, pad FROM t WHERE id >= ? AND id < ?", lo, lo+sdCycleIDs)
	if err != nil {
		t.Fatalf("cycle %d: read back: %v", cycle, err)
	}
	present := map[int64]bool{}
	for rows.Next() {
		var id int64
		var pad string
		if err := rows.Scan(&id, &pad); err != nil {
			t.Fatal(err)
		}
		if pad != crashPad(id) {
			t.Errorf("cycle %d: row %d has pad %q", cycle, id, pad)
		}
		present[id] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	sent := map[int64]bool{}
	for wi, w := range writers {
		for _, tx := range w.txns {
			n := 0
			for _, id := range tx.ids {
				sent[id] = true
				if present[id] {
					n++
				}
			}
			all, none := n == len(tx.ids), n == 0
			what := fmt.Sprintf("cycle %d, writer %d, ids %d..%d", cycle, wi, tx.ids[0], tx.ids[len(tx.ids)-1])
			switch {
			case tx.kind == sdBad:
				t.Errorf("%s: a client got %v: neither OK, nor ER_SERVER_SHUTDOWN, nor a lost connection", what, tx.err)
			case !all && !none:
				t.Errorf("%s: not atomic: %d of %d rows present", what, n, len(tx.ids))
			case tx.kind == sdOK && !all:
				t.Errorf("%s: acknowledged, but missing after the restart", what)
			case (tx.kind == sdRefused || !tx.finalSent) && !none:
				t.Errorf("%s: present after the restart, but its client was told it failed (%v)", what, tx.err)
			}
			switch {
			case tx.kind == sdOK:
				ok++
			case tx.kind == sdRefused:
				refused++
			case tx.kind == sdLost && tx.finalSent:
				lost++
				if all {
					lostPresent++
				}
			}
		}
	}
	for id := range present {
		if !sent[id] {
			t.Errorf("cycle %d: row %d present but never sent", cycle, id)
		}
	}
	return ok, refused, lost, lostPresent
}

// sdTerm sends SIGTERM and returns the exit code and how long the process
// took to exit.
func sdTerm(t *testing.T, ctx context.Context, p *lab.Petrel) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, sdDeadline+30*time.Second)
	defer cancel()
	code, err := p.Wait(wctx)
	if err != nil {
		t.Fatalf("after SIGTERM: %v\n%s", err, tail(p.Log(), 8<<10))
	}
	return code, time.Since(start)
}

// sdNoErrnoLeaks fails the test if the server log shows the symptoms of a
// binlog closed under commits.
func sdNoErrnoLeaks(t *testing.T, log string) {
	t.Helper()
	for _, bad := range []string{"bad file descriptor", "log is closed", "refusing writes", "panic", "fatal error"} {
		if strings.Contains(log, bad) {
			t.Errorf("server log contains %q:\n%s", bad, tail(log, 8<<10))
		}
	}
}

// TestShutdownUnderLoad is issue 12's "shutdown drains commits": SIGTERM
// while 8 clients write (autocommit INSERTs and 5-row transactions), then
// restart and check every unit of work against what its client was told.
// A statement in flight finishes (OK, and present); a statement sent
// after the shutdown began gets ER_SERVER_SHUTDOWN (and is absent); a
// client whose connection is closed under it knows the outcome is unknown
// (either, but atomic). No client sees any other error, in particular not
// errno 3 or "binlog: log is closed"; the server exits 0 within
// shutdown_timeout. With the binlog (storage's WAL) and without it.
func TestShutdownUnderLoad(t *testing.T) {
	t.Run("binlog", func(t *testing.T) { testShutdownUnderLoad(t, 4, nil) })
	t.Run("skip-log-bin", func(t *testing.T) { testShutdownUnderLoad(t, 2, []string{"--skip-log-bin"}) })
}

func testShutdownUnderLoad(t *testing.T, cycles int, args []string) {
	ctx := testContext(t, 3*time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{ExtraArgs: args})
	mustExec(t, ctx, rootDB(t, p, ""), "CREATE DATABASE sd",
		"CREATE TABLE sd.t (id BIGINT PRIMARY KEY, client INT NOT NULL, n INT NOT NULL, pad VARCHAR(100) NOT NULL)")
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	var totalOK, totalRefused, totalLost int
	for cycle := 0; cycle < cycles; cycle++ {
		writers, wait := sdStartWriters(t, ctx, p, cycle)
		time.Sleep(time.Duration(300+rng.IntN(700)) * time.Millisecond)
		code, took := sdTerm(t, ctx, p)
		wait()
		log := p.Log()
		if code != 0 {
			t.Errorf("cycle %d: exit code %d after SIGTERM, want 0 (a complete shutdown)", cycle, code)
		}
		if took > sdDeadline+sdSlack {
			t.Errorf("cycle %d: the server took %v to exit after SIGTERM, want under %v", cycle, took, sdDeadline)
		}
		if !strings.Contains(log, "petrel: shutdown complete") {
			t.Errorf("cycle %d: no \"shutdown complete\" in the log", cycle)
		}
		if err := p.Restart(ctx); err != nil {
			t.Fatalf("cycle %d: restart: %v", cycle, err)
		}
		ok, refused, lost, lostPresent := sdCheck(t, ctx, p, cycle, writers)
		t.Logf("cycle %d: exit %d after %v; units OK %d, refused (1053) %d, connection lost %d (%d of them committed)",
			cycle, code, took.Round(time.Millisecond), ok, refused, lost, lostPresent)
		if ok == 0 {
			t.Errorf("cycle %d: nothing was acknowledged", cycle)
		}
		totalOK, totalRefused, totalLost = totalOK+ok, totalRefused+refused, totalLost+lost
		if t.Failed() {
			t.Fatalf("stopping after cycle %d", cycle)
		}
	}
	sdNoErrnoLeaks(t, p.Log())
	t.Logf("%d cycles: %d units acknowledged, %d refused with 1053, %d lost connections", cycles, totalOK, totalRefused, totalLost)
}

// TestShutdownDrainsStatements: a statement running at SIGTERM completes
// and its client gets the result; a statement sent on another open
// connection meanwhile gets ER_SERVER_SHUTDOWN; no new connection is
// accepted; then the server exits 0.
func TestShutdownDrainsStatements(t *testing.T) {
	ctx := testContext(t, time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE sd", "CREATE TABLE sd.t (id INT PRIMARY KEY)", "INSERT INTO sd.t VALUES (1)")
	long, idle := conn(t, ctx, db), conn(t, ctx, db)
	mustExec(t, ctx, idle, "SELECT 1")

	result := make(chan error, 1)
	go func() {
		var v int
		err := long.QueryRowContext(ctx, "SELECT SLEEP(3)").Scan(&v)
		if err == nil && v != 0 {
			err = fmt.Errorf("SLEEP returned %d", v)
		}
		result <- err
	}()
	time.Sleep(500 * time.Millisecond) // the SLEEP is running
	start := time.Now()
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLog(t, ctx, p, "no new connections or statements")
	_, err := idle.ExecContext(ctx, "INSERT INTO sd.t VALUES (2)")
	wantErrNo(t, "INSERT on an idle connection during shutdown", err, erServerShutdown)
	cfg := clientConfig(t, p, "root", rootPassword, "")
	cfg.Timeout = 2 * time.Second
	if err := openConfig(t, cfg).PingContext(ctx); err == nil {
		t.Error("a new connection was accepted during shutdown")
	}
	if err := <-result; err != nil {
		t.Errorf("the statement running at SIGTERM: %v, want its result", err)
	}
	wctx, cancel := context.WithTimeout(ctx, sdDeadline+sdSlack)
	defer cancel()
	code, err := p.Wait(wctx)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if took < 2*time.Second {
		t.Errorf("exited %v after SIGTERM: it did not wait for the running SLEEP(3)", took)
	}
	if err := p.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, ctx, rootDB(t, p, ""), "SELECT COUNT(*) FROM sd.t"); n != 1 {
		t.Errorf("%d rows after the restart, want 1 (the refused INSERT must not be there)", n)
	}
}

// TestShutdownSecondSignal: while a shutdown waits for a long statement,
// a second signal (SIGINT here) ends the process at once.
func TestShutdownSecondSignal(t *testing.T) {
	ctx := testContext(t, time.Minute)
	p := startPetrel(t, ctx, lab.PetrelOptions{})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE sd", "CREATE TABLE sd.t (id INT PRIMARY KEY)", "INSERT INTO sd.t VALUES (1), (2)")
	long := conn(t, ctx, db)
	go long.ExecContext(ctx, "SELECT SLEEP(60)") // its connection dies with the server
	time.Sleep(500 * time.Millisecond)
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitLog(t, ctx, p, "no new connections or statements")
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	if err := p.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	code, err := p.Wait(wctx)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("exited %v after the second signal, want at once", took)
	}
	if code != 1 {
		t.Errorf("exit code %d after a second signal, want 1", code)
	}
	if !strings.Contains(p.Log(), "second signal") {
		t.Errorf("the log does not say why the process exited:\n%s", tail(p.Log(), 4<<10))
	}
	if err := p.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, ctx, rootDB(t, p, ""), "SELECT COUNT(*) FROM sd.t"); n != 2 {
		t.Errorf("%d rows after the restart, want 2", n)
	}
}

// TestShutdownStuckCommit: the binlog's fsync stops returning (a failpoint
// blocks every group commit from the 150th on) while 8 clients write, so
// their commits hang. SIGTERM still ends the process within
// shutdown_timeout (exit 1), the log names what was abandoned, and the
// next start recovers every acknowledged row; a client that lost its
// connection finds its work whole or absent.
func TestShutdownStuckCommit(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	opts := lab.PetrelOptions{Datadir: t.TempDir(), RootPassword: rootPassword, Env: []string{"PETREL_FAILPOINTS=binlog.afterSync=block@150"},
		ExtraArgs: []string{"--shutdown-timeout", "30"}}
	p, err := lab.StartPetrel(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("petrel log (tail):\n%s", tail(p.Log(), 16<<10))
		}
	})
	db := rootDB(t, p, "")
	if v := queryInt(t, ctx, db, "SELECT @@GLOBAL.shutdown_timeout"); v != 30 {
		t.Errorf("shutdown_timeout is %d after --shutdown-timeout 30", v)
	}
	// The flag set 30 s; SET GLOBAL, later, wins.
	const timeout = 6 * time.Second
	mustExec(t, ctx, db, "SET GLOBAL shutdown_timeout = 6", "CREATE DATABASE sd",
		"CREATE TABLE sd.t (id BIGINT PRIMARY KEY, client INT NOT NULL, n INT NOT NULL, pad VARCHAR(100) NOT NULL)")
	writers, wait := sdStartWriters(t, ctx, p, 0)
	// Stuck: no unit of work finished for a second.
	count := func() int64 {
		n := int64(0)
		for _, w := range writers {
			n += w.acked.Load()
		}
		return n
	}
	last, since := int64(-1), time.Now()
	for {
		if n := count(); n != last {
			last, since = n, time.Now()
		} else if n > 0 && time.Since(since) > time.Second {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the commits never got stuck (%d units acknowledged)", last)
		}
		time.Sleep(50 * time.Millisecond)
	}
	code, took := sdTerm(t, ctx, p)
	wait()
	log := p.Log()
	if took > timeout+sdSlack || took < timeout/2 {
		t.Errorf("the server took %v to exit after SIGTERM, want about shutdown_timeout %v (the commits never finish)", took, timeout)
	}
	if code != 1 {
		t.Errorf("exit code %d after an abandoned shutdown, want 1", code)
	}
	for _, want := range []string{"abandoned", "commits in flight", "the next start recovers from the binlog"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not say %q", want)
		}
	}
	p.SetEnv(nil)
	if err := p.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	ok, refused, lost, lostPresent := sdCheck(t, ctx, p, 0, writers)
	t.Logf("exit %d after %v; units OK %d, refused %d, connection lost %d (%d of them committed)", code, took.Round(time.Millisecond), ok, refused, lost, lostPresent)
	if ok == 0 || lost == 0 {
		t.Errorf("want acknowledged units and units stuck in the commit, got %d and %d", ok, lost)
	}
	if err := p.Stop(ctx); err != nil {
		t.Errorf("clean stop after recovery: %v", err)
	}
}

// TestShutdownDatadirRemoved is issue 13's hang: SIGTERM just after the
// datadir was deleted under a running server, before the storage watcher
// noticed (it looks once a second), so the shutdown's memtable flush is
// the first to find the directory gone. Before issue 13 that flush was
// retried without end and the shutdown waited for it until
// shutdown_timeout (or forever, for a node without the watchdog). Now the
// failed flush refuses writes until restart, the close skips the flush
// and Pebble's retry, and the process exits at once, with status 1 and a
// log that says what failed.
func TestShutdownDatadirRemoved(t *testing.T) {
	ctx := testContext(t, time.Minute)
	dir := t.TempDir()
	p, err := lab.StartPetrel(ctx, lab.PetrelOptions{Datadir: dir, RootPassword: rootPassword})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("petrel log (tail):\n%s", tail(p.Log(), 16<<10))
		}
	})
	db := rootDB(t, p, "")
	mustExec(t, ctx, db, "CREATE DATABASE sd", "CREATE TABLE sd.t (id INT PRIMARY KEY)")
	for i := range 20 {
		mustExec(t, ctx, db, fmt.Sprintf("INSERT INTO sd.t VALUES (%d)", i))
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	code, took := sdTerm(t, ctx, p)
	if took > 3*time.Second {
		t.Errorf("the server took %v to exit after SIGTERM, want well under shutdown_timeout %v (nothing to wait for once the flush failed)", took, sdDeadline)
	}
	if code != 1 {
		t.Errorf("exit code %d after a shutdown that could not flush, want 1", code)
	}
	t.Logf("exit %d %v after SIGTERM", code, took.Round(time.Millisecond))
	log := p.Log()
	for _, want := range []string{"no such file or directory", "closed without flushing"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not say %q:\n%s", want, tail(log, 4<<10))
		}
	}
	if strings.Contains(log, "stack trace") || strings.Count(log, "level=ERROR") > 6 {
		t.Errorf("the log has %d ERROR lines or a stack trace, want a few short lines:\n%s", strings.Count(log, "level=ERROR"), tail(log, 8<<10))
	}
}

// waitLog waits until the server log contains s.
func waitLog(t *testing.T, ctx context.Context, p *lab.Petrel, s string) {
	t.Helper()
	for !strings.Contains(p.Log(), s) {
		if ctx.Err() != nil {
			t.Fatalf("the log never said %q:\n%s", s, tail(p.Log(), 4<<10))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestShutdownSemiSync: the dump threads stop last, so commits in flight
// at SIGTERM on a semi-sync source are still acknowledged by the replica
// and answered OK (no applied commit without its answer, no wait for the
// drain deadline), and every acknowledged unit is on the replica.
func TestShutdownSemiSync(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	src, rep := semiNode(t, ctx, 1, nil), semiNode(t, ctx, 2, nil)
	sdb, rdb := rootDB(t, src, ""), rootDB(t, rep, "")
	createReplUserSemi(t, ctx, sdb)
	pointAt(t, ctx, rdb, src.Port(), "")
	waitSemiClients(t, ctx, sdb, 1)
	mustExec(t, ctx, sdb, "CREATE DATABASE sd",
		"CREATE TABLE sd.t (id BIGINT PRIMARY KEY, client INT NOT NULL, n INT NOT NULL, pad VARCHAR(100) NOT NULL)")
	for cycle := 0; cycle < 2; cycle++ {
		waitSemiClients(t, ctx, sdb, 1)
		writers, wait := sdStartWriters(t, ctx, src, cycle)
		time.Sleep(500 * time.Millisecond)
		code, took := sdTerm(t, ctx, src)
		wait()
		if code != 0 || took > 3*time.Second {
			t.Errorf("cycle %d: exit %d after %v, want 0 within 3s (commits in flight acknowledged)", cycle, code, took)
		}
		waitApplied(t, ctx, rdb, 30*time.Second)
		if err := src.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		sdb = rootDB(t, src, "")
		ok, refused, lost, lostPresent := sdCheck(t, ctx, src, cycle, writers)
		// A commit in flight at SIGTERM is answered. A client that sent
		// its statement just as its idle connection was closed (the
		// server had nothing running: "running=0" in the log) loses the
		// connection, and the statement, never received, did nothing: a
		// lost connection whose unit is present is the failure.
		if lostPresent != 0 {
			t.Errorf("cycle %d: %d clients lost their connection under a commit that was applied", cycle, lostPresent)
		}
		// What the source acknowledged, the replica has.
		onReplica := sdCheckReplica(t, ctx, rdb, cycle, writers)
		t.Logf("cycle %d: exit %d after %v; units OK %d (on the replica %d), refused %d, lost (not applied) %d", cycle, code, took.Round(time.Millisecond), ok, onReplica, refused, lost)
	}
}

// sdCheckReplica fails the test unless every unit acknowledged to a
// client is on the replica, and returns how many are.
func sdCheckReplica(t *testing.T, ctx context.Context, rdb *sql.DB, cycle int, writers []*sdWriter) int {
	t.Helper()
	n := 0
	for _, w := range writers {
		for _, tx := range w.txns {
			if tx.kind != sdOK {
				continue
			}
			var c int64
			if err := rdb.QueryRowContext(ctx, "SELECT COUNT(*) FROM sd.t WHERE id >= ? AND id <= ?", tx.ids[0], tx.ids[len(tx.ids)-1]).Scan(&c); err != nil {
				t.Fatal(err)
			}
			if int(c) != len(tx.ids) {
				t.Errorf("cycle %d: acknowledged ids %d..%d: %d of %d on the replica", cycle, tx.ids[0], tx.ids[len(tx.ids)-1], c, len(tx.ids))
				continue
			}
			n++
		}
	}
	return n
}
