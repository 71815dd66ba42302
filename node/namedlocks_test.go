package node_test

import (
	"fmt"
	"testing"
)

// TestReleaseLockOfAFreeLock: RELEASE_LOCK of a named lock no session
// holds (never taken, or released) is NULL, as MySQL's; of one this
// session holds 1, of one another session holds 0. GMS answered 0 for a
// released lock (mtr's information_schema_columns).
func TestReleaseLockOfAFreeLock(t *testing.T) {
	_, open := startNode(t)
	a, b := open(""), open("")
	a.SetMaxOpenConns(1)
	b.SetMaxOpenConns(1)
	got := fmt.Sprint(queryRows(t, a, "SELECT RELEASE_LOCK('never')"),
		queryRows(t, a, "SELECT GET_LOCK('x', 1), GET_LOCK('x', 1)"),
		queryRows(t, b, "SELECT RELEASE_LOCK('x')"),
		queryRows(t, a, "SELECT RELEASE_LOCK('x'), RELEASE_LOCK('x'), RELEASE_LOCK('x')"),
		queryRows(t, b, "SELECT RELEASE_LOCK('x')"))
	if want := "[[NULL]] [[1 1]] [[0]] [[1 1 NULL]] [[NULL]]"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
