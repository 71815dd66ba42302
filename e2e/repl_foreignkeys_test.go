package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"time"

	"petrel/lab"
)

// TestForeignKeysReplicate: a Petrel primary with cascading foreign keys,
// a trigger and a stored procedure
// (ON DELETE CASCADE, ON UPDATE CASCADE, ON DELETE SET NULL, a
// three-table chain)
// under a concurrent write load that makes every kind of cascade, and
// two replicas: a Petrel replica with the parallel applier (4 workers)
// and a MariaDB replica with the same constraints. Every row a cascade
// changed is in the binlog as a row event, flagged NO_FOREIGN_KEY_CHECKS,
// so neither replica cascades again (MariaDB would otherwise stop with
// 1032 on a child row its own cascade had already deleted); both end
// with the source's rows in every table. A temporary table shadowing a
// replicated one is written meanwhile and reaches neither replica.
func TestForeignKeysReplicate(t *testing.T) {
	requireTool(t, "mariadbd", "/usr/sbin/mariadbd")
	ctx := testContext(t, 4*time.Minute)
	src := startPetrel(t, ctx, lab.PetrelOptions{})
	sdb := rootDB(t, src, "")
	mustExec(t, ctx, sdb,
		fmt.Sprintf("CREATE USER '%s'@'%%' IDENTIFIED WITH mysql_native_password BY '%s'", replUser, replPassword),
		fmt.Sprintf("GRANT REPLICATION SLAVE ON *.* TO '%s'@'%%'", replUser),
		"CREATE DATABASE shop",
		"CREATE TABLE shop.customer (id INT PRIMARY KEY, name VARCHAR(20))",
		"CREATE TABLE shop.orders (id INT PRIMARY KEY, cust INT, total INT, CONSTRAINT fk_order_cust FOREIGN KEY (cust) REFERENCES shop.customer (id) ON DELETE CASCADE ON UPDATE CASCADE)",
		"CREATE TABLE shop.line (id INT PRIMARY KEY, ord INT, qty INT, CONSTRAINT fk_line_order FOREIGN KEY (ord) REFERENCES shop.orders (id) ON DELETE CASCADE)",
		"CREATE TABLE shop.note (id INT PRIMARY KEY, cust INT, txt VARCHAR(20), CONSTRAINT fk_note_cust FOREIGN KEY (cust) REFERENCES shop.customer (id) ON DELETE SET NULL ON UPDATE CASCADE)",
		// A trigger and a procedure: their row effects are row events too
		// (neither replica runs them again: MariaDB's triggers do not fire
		// for row events, slave_run_triggers_for_rbr=NO).
		"CREATE TABLE shop.audit (id INT AUTO_INCREMENT PRIMARY KEY, ord INT, total INT)",
		"CREATE TRIGGER shop.order_audit AFTER INSERT ON shop.orders FOR EACH ROW INSERT INTO shop.audit (ord, total) VALUES (NEW.id, NEW.total)",
		"CREATE PROCEDURE shop.bump(IN c INT) BEGIN UPDATE shop.orders SET total = total + 1 WHERE cust = c; END",
		// Stored functions: the CREATE and DROP FUNCTION statements reach
		// both replicas as written, the rows a function writes as row
		// events of the statement that called it.
		"CREATE TABLE shop.fnlog (id INT AUTO_INCREMENT PRIMARY KEY, cust INT, txt VARCHAR(20))",
		"CREATE FUNCTION shop.order_total(c INT) RETURNS INT READS SQL DATA RETURN (SELECT IFNULL(SUM(total), 0) FROM shop.orders WHERE cust = c)",
		`CREATE FUNCTION shop.note_for(c INT, t VARCHAR(20)) RETURNS INT MODIFIES SQL DATA DETERMINISTIC
		 BEGIN
		   INSERT INTO shop.fnlog (cust, txt) VALUES (c, t);
		   RETURN (SELECT COUNT(*) FROM shop.fnlog WHERE cust = c);
		 END`,
		"CREATE FUNCTION shop.gone(x INT) RETURNS INT DETERMINISTIC RETURN x",
		"DROP FUNCTION shop.gone")

	// Tables loaded as a dump loads them, the child first, with
	// foreign_key_checks=0: the DDL's QUERY events carry
	// OPTION_NO_FOREIGN_KEY_CHECKS, so both replicas create the child
	// before its parent exists, as the source did.
	lc, err := sdb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, lc, "SET foreign_key_checks = 0",
		"CREATE TABLE shop.late_child (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_late FOREIGN KEY (pid) REFERENCES shop.late_parent (id))",
		"INSERT INTO shop.late_child VALUES (1, 1), (2, 2)",
		"CREATE TABLE shop.late_parent (id INT PRIMARY KEY)",
		"INSERT INTO shop.late_parent VALUES (1), (2)",
		"SET foreign_key_checks = 1")
	lc.Close()

	rep := startReplicaServer(t, ctx, 2, map[string]string{"replica_parallel_workers": "4"})
	rdb := rootDB(t, rep, "")
	pointAt(t, ctx, rdb, src.Port(), "")
	_, mdb := startMariaDBReplica(t, ctx, src.Port())

	// The load: 4 writers for 6 s, each on its own customers (no
	// deadlocks between writers), every statement one of: a customer
	// with orders, lines and notes; a customer deleted (orders, lines
	// cascade; notes set NULL); a customer's id changed (orders follow);
	// an order deleted (its lines cascade); a child row with no parent
	// (refused, 1452: nothing logged).
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[string]int{}
	loadCtx, stop := context.WithTimeout(ctx, 6*time.Second)
	defer stop()
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(w)))
			next := 0
			live := []int{}
			id := func() int { next++; return w*1_000_000 + next }
			do := func(kind string, qs ...string) bool {
				tx, err := sdb.BeginTx(loadCtx, nil)
				if err != nil {
					return false
				}
				for _, q := range qs {
					if _, err := tx.ExecContext(loadCtx, q); err != nil {
						tx.Rollback()
						if loadCtx.Err() != nil {
							return false // cut by the load's end, not refused
						}
						mu.Lock()
						counts[kind+" refused"]++
						mu.Unlock()
						return false
					}
				}
				if tx.Commit() != nil {
					return false
				}
				mu.Lock()
				counts[kind]++
				mu.Unlock()
				return true
			}
			for i := 0; i < 400 && loadCtx.Err() == nil; i++ {
				switch k := r.Intn(10); {
				case k < 4 || len(live) < 3:
					c, o1, o2 := id(), id(), id()
					do("customer",
						fmt.Sprintf("INSERT INTO shop.customer VALUES (%d, 'c%d')", c, c),
						fmt.Sprintf("INSERT INTO shop.orders VALUES (%d, %d, 10), (%d, %d, 20)", o1, c, o2, c),
						fmt.Sprintf("INSERT INTO shop.line VALUES (%d, %d, 1), (%d, %d, 2), (%d, %d, 3)", id(), o1, id(), o1, id(), o2),
						fmt.Sprintf("INSERT INTO shop.note VALUES (%d, %d, 'n')", id(), c))
					live = append(live, c)
				case k < 6:
					j := r.Intn(len(live))
					do("delete customer", fmt.Sprintf("DELETE FROM shop.customer WHERE id = %d", live[j]))
					live = append(live[:j], live[j+1:]...)
				case k < 8:
					j := r.Intn(len(live))
					nid := id()
					if do("rekey customer", fmt.Sprintf("UPDATE shop.customer SET id = %d WHERE id = %d", nid, live[j])) {
						live[j] = nid
					}
				case k < 9 && r.Intn(2) == 0:
					do("delete orders", fmt.Sprintf("DELETE FROM shop.orders WHERE cust = %d AND total = 10", live[r.Intn(len(live))]))
				case k < 9:
					do("call bump", fmt.Sprintf("CALL shop.bump(%d)", live[r.Intn(len(live))]))
				default:
					do("orphan", fmt.Sprintf("INSERT INTO shop.orders VALUES (%d, %d, 1)", id(), -1-w))
				}
			}
		}(w)
	}
	wg.Wait()
	t.Logf("load: %v", counts)
	if counts["delete customer"] < 5 || counts["rekey customer"] < 5 || counts["call bump"] < 5 || counts["orphan refused"] < 2 || counts["orphan"] > 0 || counts["rekey customer refused"] > 0 {
		t.Fatalf("load did not make every kind of cascade: %v", counts)
	}

	// A session's temporary table shadowing a replicated table: its
	// writes (a DELETE without WHERE too) reach neither replica, whose
	// base tables stay the source's.
	tc, err := sdb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, ctx, tc, "CREATE TEMPORARY TABLE shop.customer (id INT PRIMARY KEY, name VARCHAR(20))",
		"INSERT INTO shop.customer VALUES (-1, 'temporary'), (-2, 'temporary')",
		"UPDATE shop.customer SET name = 'changed'", "DELETE FROM shop.customer",
		"INSERT INTO shop.customer VALUES (-3, 'kept')", "INSERT INTO shop.audit (ord, total) SELECT id, 0 FROM shop.customer",
		"DROP TEMPORARY TABLE shop.customer")
	tc.Close()
	// A DELETE without WHERE of a table nothing references (GMS would
	// run it as a truncation, which logged no row).
	var lines int
	if err := sdb.QueryRowContext(ctx, "SELECT COUNT(*) FROM shop.line").Scan(&lines); err != nil || lines == 0 {
		t.Fatalf("shop.line before the DELETE: %d (%v)", lines, err)
	}
	if res, err := sdb.ExecContext(ctx, "DELETE FROM shop.line"); err != nil {
		t.Fatal(err)
	} else if n, _ := res.RowsAffected(); n != int64(lines) {
		t.Fatalf("DELETE FROM shop.line: %d rows affected, want %d", n, lines)
	}
	// Functions called by statements that write: their values and their
	// own writes replicate as rows.
	fdb := rootDB(t, src, "shop")
	mustExec(t, ctx, fdb,
		"INSERT INTO audit (ord, total) SELECT id, order_total(id) FROM customer",
		"UPDATE customer SET name = CONCAT('n', note_for(id, 'upd')) WHERE id % 3 = 0")
	var fnRows int
	if err := fdb.QueryRowContext(ctx, "SELECT COUNT(*) FROM fnlog").Scan(&fnRows); err != nil || fnRows == 0 {
		t.Fatalf("fnlog after note_for: %d (%v), want rows", fnRows, err)
	}
	waitCaughtUp(t, ctx, sdb, rdb, 60*time.Second)
	waitMariaDBAt(t, ctx, sdb, mdb, 60*time.Second)
	// The functions themselves replicated (and the dropped one did not
	// stay): each replica answers as the source.
	for name, r := range map[string]*sql.DB{"petrel replica": rootDB(t, rep, "shop"), "mariadb replica": mdb} {
		var want, got string
		probe := "SELECT CONCAT_WS(',', order_total(MIN(id)), order_total(MAX(id)), COUNT(*)) FROM customer"
		if err := fdb.QueryRowContext(ctx, probe).Scan(&want); err != nil {
			t.Fatal(err)
		}
		c, err := r.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mustExec(t, ctx, c, "USE shop")
		if err := c.QueryRowContext(ctx, probe).Scan(&got); err != nil || got != want {
			t.Errorf("%s: %s = %q (%v), want %q", name, probe, got, err, want)
		}
		if _, err := c.ExecContext(ctx, "SELECT gone(1)"); errNo(err) != 1305 {
			t.Errorf("%s: the dropped function answers: %v, want 1305", name, err)
		}
		c.Close()
	}
	rows := 0
	for _, tb := range []string{"shop.customer", "shop.orders", "shop.line", "shop.note", "shop.audit", "shop.fnlog", "shop.late_child", "shop.late_parent"} {
		for _, r := range []*sql.DB{rdb, mdb} {
			rows += sameTable(t, ctx, sdb, r, tb, "id")
		}
	}
	var nulls int
	if err := sdb.QueryRowContext(ctx, "SELECT COUNT(*) FROM shop.note WHERE cust IS NULL").Scan(&nulls); err != nil || nulls == 0 {
		t.Fatalf("notes set NULL by deleted customers: %d (%v), want some", nulls, err)
	}
	// The replicas still hold the constraints: MariaDB refuses an orphan.
	if _, err := mdb.ExecContext(ctx, "INSERT INTO shop.orders VALUES (-5, -5, 1)"); errNo(err) != 1452 {
		t.Fatalf("MariaDB replica's orders without the constraint? %v", err)
	}
	t.Logf("both replicas identical: %d rows compared, %d notes set NULL", rows, nulls)
}
