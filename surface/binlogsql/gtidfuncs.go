package binlogsql

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/base"
	"petrel/internal/mysqlerr"
	"petrel/sqlengine"
)

// MySQL's GTID set functions, GTID_SUBSET(a, b) (1 when every GTID of a
// is in b) and GTID_SUBTRACT(a, b) (the GTIDs of a not in b, in MySQL's
// normalised text; it replaces go-mysql-server's, which returned
// overlapping intervals). NULL in, NULL out; a malformed set is 1772.

// RegisterGTIDFunctions adds GTID_SUBSET and GTID_SUBTRACT to e.
func RegisterGTIDFunctions(e *sqlengine.Engine) {
	e.RegisterFunction(sql.Function2{Name: "gtid_subset", Fn: func(a, b sql.Expression) sql.Expression {
		return &gtidFunc{name: "GTID_SUBSET", a: a, b: b}
	}})
	e.RegisterFunction(sql.Function2{Name: "gtid_subtract", Fn: func(a, b sql.Expression) sql.Expression {
		return &gtidFunc{name: "GTID_SUBTRACT", a: a, b: b, subtract: true}
	}})
}

type gtidFunc struct {
	name     string
	a, b     sql.Expression
	subtract bool
}

var _ sql.Expression = (*gtidFunc)(nil)

func (f *gtidFunc) Resolved() bool             { return f.a.Resolved() && f.b.Resolved() }
func (f *gtidFunc) String() string             { return fmt.Sprintf("%s(%s, %s)", f.name, f.a, f.b) }
func (f *gtidFunc) IsNullable() bool           { return true }
func (f *gtidFunc) Children() []sql.Expression { return []sql.Expression{f.a, f.b} }

func (f *gtidFunc) Type() sql.Type {
	if f.subtract {
		return types.LongText
	}
	return types.Int32
}

func (f *gtidFunc) WithChildren(c ...sql.Expression) (sql.Expression, error) {
	if len(c) != 2 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(c), 2)
	}
	g := *f
	g.a, g.b = c[0], c[1]
	return &g, nil
}

func (f *gtidFunc) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	var sets [2]*base.GTIDSet
	for i, e := range []sql.Expression{f.a, f.b} {
		v, err := e.Eval(ctx, row)
		if err != nil || v == nil {
			return nil, err
		}
		s, _, err := types.LongText.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		text, _ := s.(string)
		set, err := base.ParseGTIDSet(strings.TrimSpace(text))
		if err != nil {
			return nil, mysqlerr.New(mysqlerr.ErMalformedGTIDSet, "Malformed GTID set specification '%s'.", text)
		}
		sets[i] = set
	}
	if f.subtract {
		return sets[0].Subtract(sets[1]).String(), nil
	}
	if sets[1].ContainsSet(sets[0]) {
		return int32(1), nil
	}
	return int32(0), nil
}
