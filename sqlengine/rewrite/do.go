package rewrite

import (
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
)

// MySQL's DO statement (DO expr [, expr] ...) evaluates its expressions
// and answers OK, with no result set; drivers use `DO 1` as a cheap ping.
// go-mysql-server does not parse it, so the handler runs it as the SELECT
// of the same expressions and sends OK instead of the rows: evaluation
// errors (a subquery returning two rows) still reach the client, and
// nothing has been sent when they do.

// DoMark prefixes the SELECT a prepared DO became, so COM_STMT_EXECUTE,
// which reads the text back from PrepareData, knows to drop the rows.
const DoMark = "/*petrel:do*/ "

// PrepareDo rewrites a COM_STMT_PREPARE packet's DO statement into its
// marked SELECT before vitess, which parses the statement ahead of the
// handler, sees it. p is the packet's payload; it is returned unchanged
// for any other statement.
func PrepareDo(p []byte) []byte {
	if len(p) < 4 || p[0] != mysql.ComPrepare {
		return p
	}
	sel, ok := DoAsSelect(string(p[1:]))
	if !ok {
		return p
	}
	return append([]byte{mysql.ComPrepare}, sel...)
}

// DoAsSelect returns the SELECT that evaluates statement q's expressions
// when q is a DO statement.
func DoAsSelect(q string) (string, bool) {
	s := strings.TrimLeft(q, " \t\r\n\f\v")
	if len(s) < 3 || !strings.EqualFold(s[:2], "DO") {
		return "", false
	}
	switch s[2] {
	case ' ', '\t', '\r', '\n', '\f', '\v', '(':
	default:
		return "", false
	}
	return DoMark + "SELECT " + s[2:], true
}

// IsDoSelect reports whether a prepared statement's text came from DO.
func IsDoSelect(q string) bool { return strings.HasPrefix(q, DoMark) }

// OKInsteadOfRows wraps a result callback for a DO statement: it drops
// the SELECT's fields and rows and remembers whether more results follow;
// Finish then sends the OK once the statement has run without error.
type OKInsteadOfRows struct {
	Cb   mysql.ResultSpoolFn
	More bool
}

func (o *OKInsteadOfRows) Spool(_ *sqltypes.Result, more bool) error {
	o.More = more
	return nil
}

func (o *OKInsteadOfRows) Finish(err error) error {
	if err != nil {
		return err
	}
	return o.Cb(&sqltypes.Result{}, o.More)
}
