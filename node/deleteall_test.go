package node_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestDeleteWithoutWhereIsLogged: a DELETE without WHERE logs a row event
// per row, as MySQL's ROW format does (GMS would run it as a truncation
// that logs nothing, so a replica kept the rows), and answers with the
// rows deleted, also with no database selected; TRUNCATE TABLE is logged
// as its statement and answers 0 rows affected, as MySQL's.
func TestDeleteWithoutWhereIsLogged(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE d", "USE d", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))",
		"INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')", "RESET MASTER")
	res, err := db.Exec("DELETE FROM t")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 3 {
		t.Fatalf("DELETE FROM t: %d rows affected, want 3", n)
	}
	mustExec(t, db, "INSERT INTO t VALUES (4, 'd')")
	if res, err = db.Exec("TRUNCATE TABLE t"); err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 0 {
		t.Fatalf("TRUNCATE TABLE t: %d rows affected, want 0", n)
	}
	rows, err := db.Query("SHOW BINLOG EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var kinds []string
	for rows.Next() {
		var log, typ, info string
		var pos, sid, end int64
		if err := rows.Scan(&log, &pos, &typ, &sid, &end, &info); err != nil {
			t.Fatal(err)
		}
		if typ == "Query" && strings.HasPrefix(info, "use") {
			typ = "DDL"
		}
		kinds = append(kinds, typ)
	}
	want := "Format_desc Previous_gtids Gtid Query Table_map Delete_rows Xid Gtid Query Table_map Write_rows Xid Gtid DDL"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("binlog events:\n got %s\nwant %s", got, want)
	}
	// With no database selected (it was 1049: GMS's truncation looked
	// the table up in the current database).
	other := open("")
	mustExec(t, other, "INSERT INTO d.t VALUES (7, 'g')")
	if res, err = other.Exec("DELETE FROM d.t"); err != nil {
		t.Fatalf("DELETE FROM d.t with no database selected: %v", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Fatalf("DELETE FROM d.t with no database selected: %d rows affected, want 1", n)
	}
	// TRUNCATE of a view is 1146, as MySQL: GMS truncated the view's
	// table.
	mustExec(t, db, "INSERT INTO d.t VALUES (8, 'h')", "CREATE VIEW d.v AS SELECT * FROM d.t")
	var me *mysql.MySQLError
	if _, err := db.Exec("TRUNCATE TABLE d.v"); !errors.As(err, &me) || me.Number != 1146 {
		t.Fatalf("TRUNCATE of a view: %v, want 1146", err)
	}
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM d.t").Scan(&n); err != nil || n != 1 {
		t.Fatalf("the view's table after TRUNCATE of the view: %d rows (%v), want 1", n, err)
	}
}
