package sqlengine

import (
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/sqlengine/sqlmode"
)

// placeTriggerBody points a CREATE TRIGGER parsed from r, the client's
// text q with its body wrapped in BEGIN ... END (sqlmode/triggerbody.go),
// at the body in q, and returns the original text of what was parsed and
// of what is left (rem, a suffix of r). GMS cuts the trigger's body out
// of the client's text (SHOW CREATE TRIGGER, information_schema.TRIGGERS
// show it as written) and, with no FOLLOWS/PRECEDES, steps back over the
// body's first word, which vitess's parser has already read.
func placeTriggerBody(st ast.Statement, q, r, rem string, delim rune, added []int, span sqlmode.BodySpan) (string, string) {
	if d, ok := st.(*ast.DDL); ok && d.TriggerSpec != nil {
		d.SubStatementPositionStart = span.Start
		if d.TriggerSpec.Order == nil {
			d.SubStatementPositionStart = span.FirstEnd
		}
		d.SubStatementPositionEnd = span.End
	}
	return sqlmode.RewrittenRemainder(q, r, rem, delim, added)
}
