package node_test

import (
	"fmt"
	"testing"
)

// TestAlterTableRenameLast: ALTER TABLE renames the table after its other
// clauses, as MySQL does (mtr's alter_table_trans: `RENAME TO t2, DISABLE
// KEYS` found no t1, 1146), and a rename to the table's own name changes
// nothing (trigger-trans: 1050), while RENAME TABLE t1 TO t1 stays 1050
// and a missing table 1146.
func TestAlterTableRenameLast(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE ar", "USE ar", "CREATE TABLE t1 (a INT, INDEX(a))", "INSERT INTO t1 VALUES (1)",
		"ALTER TABLE t1 RENAME TO t1",
		"ALTER TABLE t1 RENAME TO t1, ADD COLUMN d INT DEFAULT 0",
		"ALTER TABLE t1 RENAME TO t2, ADD COLUMN e INT DEFAULT 5",
		"ALTER TABLE t2 RENAME TO t3, DISABLE KEYS")
	got := fmt.Sprint(queryRows(t, db, "SHOW TABLES FROM ar"), queryRows(t, db, "SELECT * FROM ar.t3"))
	if want := "[[t3]] [[1 0 5]]"; got != want {
		t.Errorf("tables and rows %s, want %s", got, want)
	}
	for q, want := range map[string]uint16{
		"RENAME TABLE t3 TO t3":       1050,
		"ALTER TABLE t9 RENAME TO t9": 1146,
	} {
		_, err := db.Exec(q)
		if got := errno(t, err); got != want {
			t.Errorf("%s: error %d, want %d", q, got, want)
		}
	}
}

// TestTriggerSetsUserVariable: `SET @a = ...` in a trigger's body sets
// the user variable even when the table has a column named a (GMS took
// it for OLD.a: 1105 "Updating of old row is not allowed" in a DELETE
// trigger, an ambiguous column in an UPDATE one; mtr's trigger-trans).
func TestTriggerSetsUserVariable(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE DATABASE tv", "USE tv", "CREATE TABLE t (a INT, b INT)",
		"CREATE TRIGGER bd BEFORE DELETE ON t FOR EACH ROW SET @a = OLD.a * 100",
		"CREATE TRIGGER bu BEFORE UPDATE ON t FOR EACH ROW SET @a = NEW.a, @b = OLD.a",
		"CREATE TRIGGER ai AFTER INSERT ON t FOR EACH ROW BEGIN SET @a = NEW.a * 10; SET @b = NEW.b; END")
	c, err := db.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var got []string
	for _, q := range []string{"INSERT INTO tv.t VALUES (1, 2)", "UPDATE tv.t SET a = 5", "DELETE FROM tv.t"} {
		if _, err := c.ExecContext(t.Context(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var a, b string
		if err := c.QueryRowContext(t.Context(), "SELECT @a, @b").Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		got = append(got, a+" "+b)
	}
	if want := "[10 2 5 1 500 1]"; fmt.Sprint(got) != want {
		t.Errorf("@a @b after each statement: %v, want %s", got, want)
	}
}

// TestAlterSchema: ALTER SCHEMA, MySQL's synonym of ALTER DATABASE, is
// taken (1064 before: vitess parses only ALTER DATABASE; mtr's schema).
func TestAlterSchema(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	mustExec(t, db, "CREATE SCHEMA s1", "ALTER SCHEMA s1 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
	got := fmt.Sprint(queryRows(t, db, "SELECT DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 's1'"))
	if got != "[[utf8mb4_bin]]" {
		t.Errorf("collation %s, want utf8mb4_bin", got)
	}
}

// TestDisableKeysNote: ALTER TABLE ... DISABLE KEYS changes nothing and
// notes 1031 "Table storage engine for 't' doesn't have this option", as
// MySQL's InnoDB (GMS warned 1235 "not supported yet").
func TestDisableKeysNote(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE dk", "CREATE TABLE dk.t (a INT, KEY (a))", "ALTER TABLE dk.t DISABLE KEYS")
	got := fmt.Sprint(queryRows(t, db, "SHOW WARNINGS"))
	if want := "[[Note 1031 Table storage engine for 't' doesn't have this option]]"; got != want {
		t.Errorf("warnings %s, want %s", got, want)
	}
}
