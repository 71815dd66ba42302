package node_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// optimizer_switch reports MySQL 8.0's defaults and takes values that
// keep them; a flag turned away from its default is 1235 (Petrel's
// planner has no such switch), an unknown flag 1231.
func TestOptimizerSwitch(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	var v string
	if err := db.QueryRow("SELECT @@optimizer_switch").Scan(&v); err != nil || !strings.HasPrefix(v, "index_merge=on,") || !strings.Contains(v, ",hash_join=on,") || strings.Count(v, "=") != 26 {
		t.Fatalf("optimizer_switch = %q, %v", v, err)
	}
	mustExec(t, db, "SET optimizer_switch = 'default'", "SET optimizer_switch = 'batched_key_access=off,mrr=DEFAULT'", "SET GLOBAL optimizer_switch = 'hash_join=on'")
	for q, want := range map[string]uint16{
		"SET optimizer_switch = 'mrr=off'":              1235,
		"SET GLOBAL optimizer_switch = 'hash_join=off'": 1235,
		"SET optimizer_switch = 'no_such_flag=on'":      1231,
		"SET optimizer_switch = 'mrr=maybe'":            1231,
	} {
		var me *mysql.MySQLError
		if _, err := db.Exec(q); !errors.As(err, &me) || me.Number != want {
			t.Errorf("%s: %v, want %d", q, err, want)
		}
	}
}

// `@v := expr` inside a SELECT sets the variable row by row, as MySQL
// does: the row-numbering idiom, a running sum, an assignment in WHERE.
func TestAssignUserVariableInExpression(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE av", "CREATE TABLE av.t (a INT PRIMARY KEY, b INT)", "INSERT INTO av.t VALUES (1, 10), (2, 20), (3, 30)")
	mustExec(t, db, "SET @n := 0, @s := 0")
	got := queryRows(t, db, "SELECT @n := @n + 1 AS rn, a, @s := @s + b running FROM av.t ORDER BY a")
	want := [][]string{{"1", "1", "10"}, {"2", "2", "30"}, {"3", "3", "60"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("numbered rows: %v, want %v", got, want)
	}
	if got := queryRows(t, db, "SELECT @n, @s"); !reflect.DeepEqual(got, [][]string{{"3", "60"}}) {
		t.Fatalf("after: %v", got)
	}
	if got := queryRows(t, db, "SELECT a FROM av.t WHERE (@m := a) >= 2 ORDER BY a"); !reflect.DeepEqual(got, [][]string{{"2"}, {"3"}}) {
		t.Fatalf("assignment in WHERE: %v", got)
	}
	if got := queryRows(t, db, "SELECT @m, @x := 'it''s := text'"); !reflect.DeepEqual(got, [][]string{{"3", "it's := text"}}) {
		t.Fatalf("last assigned: %v", got)
	}
}
