package sqlengine

import (
	"testing"

	"petrel/sqlengine/rewrite"

	"github.com/dolthub/vitess/go/mysql"
)

// TestDoAsSelect checks which statements are DO statements and the SELECT
// each becomes, and that a COM_STMT_PREPARE packet is rewritten only for
// them.
func TestDoAsSelect(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"DO 1", rewrite.DoMark + "SELECT  1", true},
		{"  do\tSLEEP(0), 2", rewrite.DoMark + "SELECT \tSLEEP(0), 2", true},
		{"Do(1)", rewrite.DoMark + "SELECT (1)", true},
		{"\nDO\n@a := 1", rewrite.DoMark + "SELECT \n@a := 1", true},
		{"DOUBLE", "", false},
		{"DO", "", false},
		{"SELECT 1", "", false},
		{"/* c */ DO 1", "", false}, // parsed by GMS: a syntax error, as before
		{"", "", false},
	} {
		got, ok := rewrite.DoAsSelect(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("doAsSelect(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if ok && !rewrite.IsDoSelect(got) {
			t.Errorf("isDoSelect(%q) = false", got)
		}
	}
	if rewrite.IsDoSelect("SELECT 1") {
		t.Error(`isDoSelect("SELECT 1") = true`)
	}
	if got := string(rewrite.PrepareDo(append([]byte{mysql.ComPrepare}, "DO 1"...))); got != "\x16"+rewrite.DoMark+"SELECT  1" {
		t.Errorf("prepareDo(DO 1) = %q", got)
	}
	for _, p := range []string{"\x16SELECT 1", "\x16DO", "\x16", "\x03DO 1"} {
		if got := string(rewrite.PrepareDo([]byte(p))); got != p {
			t.Errorf("prepareDo(%q) = %q; want it unchanged", p, got)
		}
	}
}
