package sqlengine

import (
	"io"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"

	"petrel/sqlengine/sqlmode"
)

// setStatement builds a SET statement (variables, user variables, SET
// NAMES) so that the client's OK says 0 rows affected, as MySQL's does:
// GMS's iterator yields one row of the values set, which its handler
// counts as a row affected. The row stays (GMS's own tests read it); the
// session notes the SET once its iterator is done, and the OK is
// corrected (Session.setDone, okStatus). Only a statement's own SET comes
// here: a trigger's SET NEW.x, built with the trigger's row, keeps GMS's.
func setStatement(ctx *sql.Context, n *plan.Set) (sql.RowIter, error) {
	n = expandSQLModes(n)
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

// expandSQLModes gives a SET of sql_mode (session or global) MySQL's
// expansion of the combination modes (sqlmode.ExpandCombined): SET
// sql_mode = 'TRADITIONAL' turns strict mode on.
func expandSQLModes(n *plan.Set) *plan.Set {
	var exprs []sql.Expression
	for i, e := range n.Exprs {
		sf, ok := e.(*expression.SetField)
		if !ok {
			continue
		}
		sv, ok := sf.LeftChild.(*expression.SystemVar)
		if !ok || !strings.EqualFold(sv.Name, "sql_mode") {
			continue
		}
		if exprs == nil {
			exprs = append([]sql.Expression(nil), n.Exprs...)
		}
		exprs[i] = expression.NewSetField(sf.LeftChild, &modeExpansion{sf.RightChild})
	}
	if exprs == nil {
		return n
	}
	c := *n
	c.Exprs = exprs
	return &c
}

// modeExpansion is its child's sql_mode value with the combination modes
// expanded.
type modeExpansion struct{ sql.Expression }

func (m *modeExpansion) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := m.Expression.Eval(ctx, row)
	if err != nil {
		return v, err
	}
	// GMS gives the value as the set's bits, or as text.
	sv, _, ok := sql.SystemVariables.GetGlobal("sql_mode")
	if !ok {
		return v, nil
	}
	st, ok := sv.GetType().(sql.SystemVariableType)
	if !ok {
		return v, nil
	}
	text, isText := v.(string)
	if bits, isBits := v.(uint64); isBits {
		if text, err = st.EncodeValue(bits); err != nil {
			return v, nil
		}
	} else if !isText {
		return v, nil
	}
	x, changed := sqlmode.ExpandCombined(text)
	if !changed {
		return v, nil
	}
	if isText {
		return x, nil
	}
	return st.DecodeValue(x)
}

func (m *modeExpansion) Children() []sql.Expression { return []sql.Expression{m.Expression} }

func (m *modeExpansion) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(m, len(children), 1)
	}
	return &modeExpansion{children[0]}, nil
}
