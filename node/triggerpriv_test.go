package node_test

import (
	"database/sql"
	"reflect"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// CREATE and DROP TRIGGER need TRIGGER on the table: SUPER without it is 1142
// (GMS let SUPER stand for every privilege; mtr's trigger_notembedded),
// a table or database TRIGGER grant suffices.
func TestCreateTriggerNeedsTriggerPrivilege(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE d1", "CREATE TABLE d1.t1 (a INT)", "CREATE TABLE d1.t2 (a INT)",
		"CREATE USER 'u1'@'%' IDENTIFIED BY 'x'", "GRANT SUPER ON *.* TO 'u1'@'%'", "GRANT INSERT, DROP ON d1.t1 TO 'u1'@'%'", "GRANT INSERT ON d1.t2 TO 'u1'@'%'")
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = "u1", "x", "tcp", n.Addr(), "d1"
	u, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	const trg = "CREATE TRIGGER trg1 AFTER INSERT ON t1 FOR EACH ROW INSERT INTO t2 VALUES (new.a)"
	_, err = u.Exec(trg)
	if n := errno(t, err); n != 1142 {
		t.Fatalf("without TRIGGER: errno %d (%v), want 1142", n, err)
	}
	mustExec(t, root, "GRANT TRIGGER ON d1.t1 TO 'u1'@'%'")
	mustExec(t, u, trg, "INSERT INTO t1 VALUES (4)")
	if got := queryRows(t, root, "SELECT a FROM d1.t2"); !reflect.DeepEqual(got, [][]string{{"4"}}) {
		t.Errorf("t2 %v, want 4", got)
	}
	mustExec(t, root, "REVOKE TRIGGER ON d1.t1 FROM 'u1'@'%'")
	_, err = u.Exec("DROP TRIGGER trg1")
	if n := errno(t, err); n != 1142 {
		t.Fatalf("DROP TRIGGER without TRIGGER: errno %d (%v), want 1142", n, err)
	}
	mustExec(t, root, "GRANT TRIGGER ON d1.* TO 'u1'@'%'")
	mustExec(t, u, "DROP TRIGGER trg1")
	if got := queryRows(t, root, "SELECT COUNT(*) FROM information_schema.triggers WHERE trigger_schema = 'd1'"); !reflect.DeepEqual(got, [][]string{{"0"}}) {
		t.Errorf("triggers left: %v", got)
	}
}
