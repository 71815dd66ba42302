package node_test

import (
	"database/sql"
	"errors"
	"reflect"
	"testing"

	"github.com/go-sql-driver/mysql"

	"petrel/node"
)

// TestTriggerSingleStatementBody: a trigger whose body is one IF, CASE
// or SIGNAL statement without BEGIN ... END (mtr trigger-33083,
// trigger_no_defaults-11698; vitess's grammar refused it with 1064)
// runs, is shown as written by SHOW CREATE TRIGGER and
// information_schema.TRIGGERS, and is kept across a restart.
func TestTriggerSingleStatementBody(t *testing.T) {
	opts := restartableOptions(t)
	n, err := node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	db := rootConn(t, n)
	mustExec(t, db, "CREATE DATABASE tb", "CREATE TABLE tb.t (a INT, b INT)",
		"CREATE TRIGGER tb.clamp BEFORE INSERT ON tb.t FOR EACH ROW IF NEW.a < 0 THEN SET NEW.a = 0; END IF",
		"CREATE TRIGGER tb.fill BEFORE INSERT ON tb.t FOR EACH ROW FOLLOWS clamp CASE NEW.b WHEN 10 THEN SET NEW.b = 11; ELSE SET NEW.b = NEW.b + 1; END CASE;",
		"CREATE TRIGGER tb.no BEFORE UPDATE ON tb.t FOR EACH ROW SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no updates'")
	check := func(db *sql.DB) {
		t.Helper()
		mustExec(t, db, "DELETE FROM tb.t", "INSERT INTO tb.t VALUES (-5, 10), (3, 1)")
		if got := queryRows(t, db, "SELECT a, b FROM tb.t ORDER BY a"); !reflect.DeepEqual(got, [][]string{{"0", "11"}, {"3", "2"}}) {
			t.Fatalf("rows: %v", got)
		}
		var me *mysql.MySQLError
		if _, err := db.Exec("UPDATE tb.t SET a = 1"); !errors.As(err, &me) || me.Number != 1644 || me.Message != "no updates" {
			t.Fatalf("UPDATE: %v, want 1644 'no updates'", err)
		}
		got := queryRows(t, db, "SELECT TRIGGER_NAME, ACTION_STATEMENT FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = 'tb' ORDER BY 1")
		want := [][]string{
			{"clamp", "IF NEW.a < 0 THEN SET NEW.a = 0; END IF"},
			{"fill", "CASE NEW.b WHEN 10 THEN SET NEW.b = 11; ELSE SET NEW.b = NEW.b + 1; END CASE"},
			{"no", "SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'no updates'"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("information_schema.TRIGGERS:\n%q\nwant\n%q", got, want)
		}
		sc := queryRows(t, db, "SHOW CREATE TRIGGER tb.clamp")
		if len(sc) != 1 || sc[0][2] != "CREATE TRIGGER tb.clamp BEFORE INSERT ON tb.t FOR EACH ROW IF NEW.a < 0 THEN SET NEW.a = 0; END IF" {
			t.Fatalf("SHOW CREATE TRIGGER: %q", sc)
		}
	}
	check(db)
	db.Close()
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	n, err = node.Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	check(rootConn(t, n))
}
