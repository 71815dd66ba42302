package sqlengine

import "testing"

// The cheap tests in front of the per-statement regexps must never say no
// where the regexp says yes.
func TestStatementPrefilters(t *testing.T) {
	for _, tc := range []struct {
		q       string
		locking bool
	}{
		{"SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?", false},
		{"SELECT c FROM sbtest1 WHERE id = 1 FOR UPDATE", true},
		{"select c from t where id=1 for\nshare", true},
		{"SELECT * FROM t LOCK IN SHARE MODE", true},
		{"SELECT * FROM t lock\tin share mode", true},
		{"SELECT formula, locker FROM t WHERE x = 'FOR' ", false}, // FOR not followed by UPDATE/SHARE
		{"SELECT forupdate FROM t", false},
		{"SELECT * FROM t FOR UPDATE SKIP LOCKED", true},
		{"SELECT 1", false},
	} {
		if got := lockingSelect(tc.q); got != tc.locking {
			t.Errorf("lockingSelect(%q) = %v, want %v", tc.q, got, tc.locking)
		}
		if lockClause.MatchString(tc.q) != tc.locking {
			t.Errorf("table wrong for %q", tc.q)
		}
	}
	for _, w := range []struct {
		q, w string
		want bool
	}{
		{"a FOR b", "for", true}, {"aFOR b", "for", false}, {"FOR", "for", true}, {"fore", "for", false},
		{"x.for", "for", true}, {"é for", "for", true}, {"éfor", "for", false}, {"", "for", false},
	} {
		if got := hasWordFold(w.q, w.w); got != w.want {
			t.Errorf("hasWordFold(%q, %q) = %v", w.q, w.w, got)
		}
	}
	for _, q := range []string{"BEGIN", " begin work", "\n\tSTART TRANSACTION READ ONLY", "start transaction", "SELECT 1", "  ", "", "(BEGIN)", "SET x=1", "ROLLBACK"} {
		if beginStatement.MatchString(q) && !mayBegin(q) {
			t.Errorf("mayBegin(%q) = false, but the statement begins a transaction", q)
		}
	}
	for _, q := range []string{"SELECT 1", "INSERT INTO t VALUES (1)", "(BEGIN)", "  ", ""} {
		if mayBegin(q) {
			t.Errorf("mayBegin(%q) = true", q)
		}
	}
}

func BenchmarkLockingSelect(b *testing.B) {
	q := "SELECT c FROM sbtest1 WHERE id BETWEEN 4711 AND 4810 ORDER BY c"
	for b.Loop() {
		if lockingSelect(q) {
			b.Fatal("locking")
		}
	}
}

func BenchmarkLockClauseRegexp(b *testing.B) {
	q := "SELECT c FROM sbtest1 WHERE id BETWEEN 4711 AND 4810 ORDER BY c"
	for b.Loop() {
		if lockClause.MatchString(q) {
			b.Fatal("locking")
		}
	}
}
