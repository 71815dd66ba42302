package sqlengine

import (
	"testing"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// The lock clause comes from the parse: words in literals and comments
// never count.
func TestLockingClause(t *testing.T) {
	for _, tc := range []struct {
		q       string
		locking bool
	}{
		{"SELECT c FROM sbtest1 WHERE id = 1 FOR UPDATE", true},
		{"SELECT * FROM t LOCK IN SHARE MODE", true},
		{"SELECT * FROM t FOR UPDATE SKIP LOCKED", true},
		{"SELECT a FROM t UNION SELECT a FROM u FOR UPDATE", true},
		{"SELECT c FROM t WHERE c = 'x for update'", false},
		{"SELECT c FROM t WHERE c = 'lock in share mode'", false},
		{"SELECT c FROM t /* for update */ WHERE id = 1", false},
		{"SELECT c FROM t WHERE id = 1 -- for update\n", false},
		{"SELECT `for update` FROM t", false},
		{"UPDATE t SET c = 'for update' WHERE id = 1", false},
		{"SELECT 1", false},
	} {
		stmt, err := ast.Parse(tc.q)
		if err != nil {
			t.Fatalf("%q: %v", tc.q, err)
		}
		if got := lockingClause(stmt); got != tc.locking {
			t.Errorf("lockingClause(%q) = %v, want %v", tc.q, got, tc.locking)
		}
	}
}
