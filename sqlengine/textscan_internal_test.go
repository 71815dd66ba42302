package sqlengine

import "testing"

// The cheap tests in front of the per-statement regexps must never say no
// where the regexp says yes.
func TestStatementPrefilters(t *testing.T) {
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
