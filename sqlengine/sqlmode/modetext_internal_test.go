package sqlmode

import (
	"testing"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// String literals read as MySQL reads them, through vitess.
func TestModeText(t *testing.T) {
	for _, tc := range []struct {
		q         string
		nbe, ansi bool
		want      string // the last literal's value; "error" for a syntax error
	}{
		{`SELECT 'x\ny'`, false, false, "x\ny"},
		{`SELECT 'x\ny'`, true, false, `x\ny`},
		{`SELECT 'a\\b'`, true, false, `a\\b`},
		{`SELECT 'a\\b'`, false, false, `a\b`},
		{`SELECT '\%'`, true, false, `\%`},
		{`SELECT 'it''s'`, true, false, `it's`},
		{`SELECT 'it\'s'`, false, false, `it's`},
		{`SELECT 'it\'s'`, true, false, "error"},
		{`SELECT "a\tb"`, true, false, `a\tb`},
		{`SELECT "a\tb"`, false, false, "a\tb"},
		{"SELECT /* '\\n */ 'x\\ny'", true, false, `x\ny`},
		{"SELECT `a\\b`, 'q\\n' FROM t", true, false, `q\n`},
	} {
		r, _ := Text(tc.q, tc.nbe, tc.ansi)
		stmt, err := ast.Parse(r)
		if tc.want == "error" {
			if err == nil {
				t.Errorf("%q (nbe %v): parsed, want a syntax error", tc.q, tc.nbe)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q (nbe %v): %v", tc.q, tc.nbe, err)
			continue
		}
		sel := stmt.(*ast.Select)
		e := sel.SelectExprs[len(sel.SelectExprs)-1].(*ast.AliasedExpr).Expr.(*ast.SQLVal)
		if string(e.Val) != tc.want {
			t.Errorf("%q (nbe %v): %q, want %q", tc.q, tc.nbe, e.Val, tc.want)
		}
	}
	// Offsets map back: the remainder of a multi-statement text is the
	// client's own text.
	q := `SELECT 'a\b'; SELECT '\%'`
	r, added := Text(q, true, false)
	_, rem := RewrittenRemainder(q, r, r[len(`SELECT 'a\\b';`):], ';', added)
	if rem != ` SELECT '\%'` {
		t.Errorf("remainder %q", rem)
	}
}
