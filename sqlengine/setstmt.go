package sqlengine

import (
	"io"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
)

// setStatement runs a SET statement (variables, user variables, SET
// NAMES) and answers with no rows, so the client's OK says 0 rows
// affected, as MySQL's does; GMS's iterator yields one row of the values
// set, which its handler counts as a row affected. Only a statement's own
// SET comes here: a trigger's SET NEW.x (built with the trigger's row)
// keeps GMS's row, which the trigger reads.
func setStatement(ctx *sql.Context, n *plan.Set) (sql.RowIter, error) {
	it, err := rowexec.DefaultBuilder.Build(ctx, n, nil)
	if err != nil {
		return nil, err
	}
	for {
		if _, err := it.Next(ctx); err == io.EOF {
			break
		} else if err != nil {
			it.Close(ctx)
			return nil, err
		}
	}
	if err := it.Close(ctx); err != nil {
		return nil, err
	}
	return sql.RowsToRowIter(), nil
}
