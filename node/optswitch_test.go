package node_test

import (
	"errors"
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
