package node_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// The fast paths' one decision point (sqlengine/fastgate.go): a prepared
// statement's cached fast plan never outlives the catalog or session state
// it was made under. Each case fails on a build whose plans are checked by
// table id and column count alone.
func TestFastPlansFollowCatalogAndSession(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	one := func(q string, args ...any) int64 {
		t.Helper()
		var v int64
		if err := conn.QueryRowContext(ctx, q, args...).Scan(&v); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return v
	}
	exec("CREATE DATABASE fg")
	exec("USE fg")
	exec("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	exec("CREATE TABLE log (n INT)")
	exec("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)")

	// A trigger created after the plan fires on the plan's next execution.
	upd, err := conn.PrepareContext(ctx, "UPDATE t SET v = ? WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer upd.Close()
	writes := statusInt(t, db, "Petrel_fast_path_writes")
	if _, err := upd.ExecContext(ctx, 10, 1); err != nil {
		t.Fatal(err)
	}
	if statusInt(t, db, "Petrel_fast_path_writes") == writes {
		t.Fatal("the prepared UPDATE did not take the fast path: the test proves nothing")
	}
	exec("CREATE TRIGGER tr AFTER UPDATE ON t FOR EACH ROW INSERT INTO log VALUES (NEW.v)")
	if _, err := upd.ExecContext(ctx, 11, 1); err != nil {
		t.Fatal(err)
	}
	if n := one("SELECT COUNT(*) FROM log WHERE n = 11"); n != 1 {
		t.Fatalf("trigger created after the plan fired %d times, want 1", n)
	}
	exec("DROP TRIGGER tr")

	// A CHECK added after the plan holds for the old statement and for the
	// same text prepared again.
	exec("ALTER TABLE t ADD CONSTRAINT small CHECK (v < 100)")
	var me *mysql.MySQLError
	if _, err := upd.ExecContext(ctx, 500, 2); err == nil || !asMySQL(err, &me) || me.Number != 3819 {
		t.Fatalf("UPDATE breaking a CHECK added after the plan: %v, want 3819", err)
	}
	again, err := conn.PrepareContext(ctx, "UPDATE t SET v = ? WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if _, err := again.ExecContext(ctx, 500, 2); err == nil || !asMySQL(err, &me) || me.Number != 3819 {
		t.Fatalf("newly prepared UPDATE breaking the CHECK: %v, want 3819", err)
	}
	if v := one("SELECT v FROM t WHERE id = 2"); v != 2 {
		t.Fatalf("row 2 holds %d after refused UPDATEs, want 2", v)
	}

	// sql_select_limit applies to the prepared point, range and index reads.
	exec("CREATE TABLE r (id INT PRIMARY KEY, k INT, KEY (k))")
	exec("INSERT INTO r VALUES (1, 1), (2, 1), (3, 1), (4, 2)")
	count := func(q string, args ...any) int {
		t.Helper()
		rows, err := conn.QueryContext(ctx, q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			n++
		}
		return n
	}
	reads := []struct {
		q    string
		args []any
		all  int
	}{
		{"SELECT id FROM r WHERE id = ?", []any{2}, 1},
		{"SELECT k FROM r WHERE id BETWEEN ? AND ?", []any{1, 4}, 4},
		{"SELECT id FROM r WHERE k BETWEEN ? AND ?", []any{1, 1}, 3},
	}
	for _, r := range reads {
		if n := count(r.q, r.args...); n != r.all {
			t.Fatalf("%s: %d rows, want %d", r.q, n, r.all)
		}
	}
	exec("SET sql_select_limit = 1")
	for _, r := range reads {
		if n := count(r.q, r.args...); n != 1 {
			t.Fatalf("%s under sql_select_limit = 1: %d rows, want 1", r.q, n)
		}
	}
	exec("SET sql_select_limit = DEFAULT")
	for _, r := range reads {
		if n := count(r.q, r.args...); n != r.all {
			t.Fatalf("%s after sql_select_limit = DEFAULT: %d rows, want %d", r.q, n, r.all)
		}
	}

	// Without DDL or SET, executions are not planned again.
	st, err := conn.PrepareContext(ctx, "SELECT v FROM t WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	replans := statusInt(t, db, "Petrel_fast_path_replans")
	for i := 0; i < 50; i++ {
		var v sql.NullInt64
		if err := st.QueryRowContext(ctx, 1+i%3).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if _, err := again.ExecContext(ctx, i, 3); err != nil {
			t.Fatal(err)
		}
	}
	if n := statusInt(t, db, "Petrel_fast_path_replans") - replans; n != 0 {
		t.Fatalf("%d re-plans without a catalog or session change", n)
	}
}
