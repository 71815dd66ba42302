package node_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// TestTransactionAdmission: with petrel_transaction_concurrency = 1 a
// transaction at work (a long SLEEP inside it) makes another
// transaction's BEGIN wait (Petrel_statements_waiting) while autocommit
// statements, a write and a read, go through without a slot; once the
// first transaction's statement ends it keeps its slot but, idle past the
// grace time, lets the waiting one in, whose read returns the right sum.
// KILL QUERY of a waiting BEGIN ends it with 1317, the session's
// innodb_lock_wait_timeout with 1205; raising the limit lets
// a waiting one in at once; COMMIT and a killed connection give the slots
// back (Petrel_transactions_admitted 0).
func TestTransactionAdmission(t *testing.T) {
	_, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE ad", "CREATE TABLE ad.t (id INT PRIMARY KEY, v INT)",
		"INSERT INTO ad.t VALUES (1, 10), (2, 20), (3, 30)", "SET GLOBAL petrel_transaction_concurrency = 1")
	t.Cleanup(func() { root.Exec("SET GLOBAL petrel_transaction_concurrency = 0") })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn := func() (*sql.Conn, int64) {
		c, err := root.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c, connInt(t, c, "SELECT CONNECTION_ID()")
	}
	waitStatus := func(name string, want int64) {
		t.Helper()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if got := statusInt(t, root, name); got == want {
				return
			} else if time.Now().After(deadline) {
				t.Fatalf("%s stays %d, want %d", name, got, want)
			}
		}
	}
	// run starts q on c; its result arrives on the channel.
	type result struct {
		v   int64
		err error
	}
	run := func(c *sql.Conn, q string) chan result {
		ch := make(chan result, 1)
		go func() {
			var r result
			r.err = c.QueryRowContext(ctx, q).Scan(&r.v)
			ch <- r
		}()
		return ch
	}
	begin := func(c *sql.Conn) chan result {
		ch := make(chan result, 1)
		go func() {
			_, err := c.ExecContext(ctx, "BEGIN")
			ch <- result{err: err}
		}()
		return ch
	}
	pending := func(ch chan result) bool {
		select {
		case r := <-ch:
			ch <- r
			return false
		default:
			return true
		}
	}
	// Every connection is opened (SELECT CONNECTION_ID() is a read too)
	// before the slot is taken.
	holder, holderID := conn()
	reader, _ := conn()
	victim, victimID := conn()
	quiet, quietID := conn()

	mustConnExec(t, holder, "BEGIN")
	slept := run(holder, "SELECT SLEEP(600)")
	waitStatus("Petrel_transactions_admitted", 1)
	read := begin(reader)
	waitStatus("Petrel_statements_waiting", 1)
	if _, err := root.ExecContext(ctx, "UPDATE ad.t SET v = v + 1 WHERE id = 1"); err != nil {
		t.Fatalf("an autocommit write while the slot is taken: %v", err)
	}
	if n := connInt(t, victim, "SELECT COUNT(*) FROM ad.t"); n != 3 {
		t.Fatalf("an autocommit read while the slot is taken: %d rows", n)
	}
	if !pending(read) || statusInt(t, root, "Petrel_statements_waiting") != 1 {
		t.Fatal("the waiting BEGIN ran while the transaction was at work")
	}
	// The sleep ends; the transaction stays open, idle, and lends its slot.
	mustExec(t, root, fmt.Sprint("KILL QUERY ", holderID))
	<-slept
	if r := <-read; r.err != nil {
		t.Fatalf("the waiting BEGIN: %v", r.err)
	}
	if sum := connInt(t, reader, "SELECT SUM(v) FROM ad.t"); sum != 11+20+30 {
		t.Fatalf("the admitted transaction's read: %d, want %d", sum, 11+20+30)
	}
	mustConnExec(t, reader, "COMMIT")

	// KILL QUERY of a waiting read.
	slept = run(holder, "SELECT SLEEP(600)")
	waitStatus("Petrel_transactions_idle", 0)
	killed := begin(victim)
	waitStatus("Petrel_statements_waiting", 1)
	mustExec(t, root, fmt.Sprint("KILL QUERY ", victimID))
	r := <-killed
	var me *mysql.MySQLError
	if !errors.As(r.err, &me) || me.Number != 1317 {
		t.Fatalf("a killed waiting BEGIN: %v, want error 1317", r.err)
	}
	waitStatus("Petrel_statements_waiting", 0)
	if !pending(slept) {
		t.Fatal("the sleep ended with the waiting BEGIN's kill")
	}

	// A waiting BEGIN gives up after the session's innodb_lock_wait_timeout.
	mustConnExec(t, victim, "SET SESSION innodb_lock_wait_timeout = 1")
	start := time.Now()
	r = <-begin(victim)
	if !errors.As(r.err, &me) || me.Number != 1205 {
		t.Fatalf("a waiting BEGIN past innodb_lock_wait_timeout: %v, want error 1205", r.err)
	}
	if waited := time.Since(start); waited < time.Second || waited > 20*time.Second {
		t.Fatalf("the timed-out BEGIN waited %s, want about 1s", waited)
	}
	waitStatus("Petrel_statements_waiting", 0)
	waitStatus("Petrel_transactions_admitted", 1)

	// A higher limit lets a waiting transaction in at once.
	read = begin(reader)
	waitStatus("Petrel_statements_waiting", 1)
	mustExec(t, root, "SET GLOBAL petrel_transaction_concurrency = 2")
	if r := <-read; r.err != nil {
		t.Fatalf("after raising the limit: %v", r.err)
	}
	mustConnExec(t, reader, "COMMIT")
	mustExec(t, root, fmt.Sprint("KILL QUERY ", holderID))
	<-slept
	mustConnExec(t, holder, "COMMIT")

	// A transaction's slot goes back when its connection is killed.
	mustConnExec(t, quiet, "BEGIN")
	waitStatus("Petrel_transactions_admitted", 1)
	mustExec(t, root, fmt.Sprint("KILL ", quietID))
	waitStatus("Petrel_transactions_admitted", 0)
	if q := statusInt(t, root, "Petrel_statements_queued"); q != 4 {
		t.Fatalf("Petrel_statements_queued %d, want 4", q)
	}
}

func mustConnExec(t *testing.T, c *sql.Conn, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := c.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// TestTransactionConcurrencyFromOptionFile: petrel_transaction_concurrency
// set in the option file reaches the engine's admission gate at start (no
// SET GLOBAL): with 1, a second transaction's first read waits while the
// first transaction runs a statement, and goes once it ends.
func TestTransactionConcurrencyFromOptionFile(t *testing.T) {
	_, open := startNodeWith(t, map[string]string{"petrel_transaction_concurrency": "1"})
	root := open("")
	t.Cleanup(func() { root.Exec("SET GLOBAL petrel_transaction_concurrency = 0") })
	mustExec(t, root, "CREATE DATABASE oc", "CREATE TABLE oc.t (id INT PRIMARY KEY, v INT)", "INSERT INTO oc.t VALUES (1, 5)")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, err := root.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := root.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := a.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	slept := make(chan error, 1)
	go func() {
		var x int64
		slept <- a.QueryRowContext(ctx, "SELECT SLEEP(2)").Scan(&x)
	}()
	if _, err := b.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	read := make(chan int64, 1)
	go func() {
		var v int64
		if err := b.QueryRowContext(ctx, "SELECT v FROM oc.t WHERE id = 1").Scan(&v); err != nil {
			v = -1
		}
		read <- v
	}()
	waited := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if statusInt(t, root, "Petrel_statements_waiting") == 1 {
			waited = true
			break
		}
		select {
		case v := <-read:
			t.Fatalf("the second transaction's read ran (%d) while the only slot was taken", v)
		default:
		}
	}
	if !waited {
		t.Fatal("no statement waited for a slot with petrel_transaction_concurrency = 1 from the option file")
	}
	if err := <-slept; err != nil {
		t.Fatal(err)
	}
	if _, err := a.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	if v := <-read; v != 5 {
		t.Fatalf("the waiting read returned %d, want 5", v)
	}
	if _, err := b.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
}
