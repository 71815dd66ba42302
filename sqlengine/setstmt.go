package sqlengine

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
)

// setStatement builds a SET statement (variables, user variables, SET
// NAMES) so that the client's OK says 0 rows affected, as MySQL's does:
// GMS's iterator yields one row of the values set, which its handler
// counts as a row affected. The row stays (GMS's own tests read it); the
// session notes the SET once its iterator is done, and the OK is
// corrected (Session.setDone, okStatus). Only a statement's own SET comes
// here: a trigger's SET NEW.x, built with the trigger's row, keeps GMS's.
func setStatement(ctx *sql.Context, n *plan.Set) (sql.RowIter, error) {
	it, err := rowexec.DefaultBuilder.Build(ctx, n, nil)
	if err != nil {
		return nil, err
	}
	s, _ := ctx.Session.(*Session)
	return &setIter{RowIter: it, s: s}, nil
}

type setIter struct {
	sql.RowIter
	s *Session
}

func (i *setIter) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := i.RowIter.Next(ctx)
	if err == io.EOF && i.s != nil && i.s.call == nil {
		// (A SET inside a procedure leaves the CALL's count alone.)
		i.s.setDone = true
	}
	return row, err
}
