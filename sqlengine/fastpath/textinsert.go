package fastpath

import (
	"context"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/sqlengine"
	"petrel/sqlengine/sqlmode"
)

// The text INSERT fast path: text-protocol statements of the shape
//
//	INSERT INTO [db.]t [(every column)] VALUES (lit, ...)[, (lit, ...)...]
//
// whose values are integer and string literals and NULL (the seed's
// mysqlslap --auto-generate-sql writes `INSERT INTO t1 VALUES
// (1804289383,'mxvtvmC9127q...')`; the MariaDB and MySQL tools, PHP and
// most ORMs without server-side prepares write literals too), into a
// table the write fast path takes (fastwriteplan.go: no triggers, CHECK
// constraints or generated columns; any primary key, or none), are
// parsed once with the session's sql_mode and written by the write fast
// path's runWrite, without GMS's binding, analysis and row pipeline.
// Each value goes through the column type's Convert, as GMS's INSERT
// converts it; a value that does not convert exactly, another literal
// (decimal, float, hex, bit), an expression, a column list leaving a
// column to its default, several rows with an AUTO_INCREMENT column, and
// anything else is left to GMS, which stays the reference and gives the
// canonical errors and warnings (TestTextInsertMatchesGMS).

// maxTextInsert bounds the statements parsed here: a longer one (a bulk
// load) gains little over GMS and is parsed by GMS.
const maxTextInsert = 64 << 10

// insertText is the cheap filter run before any parse.
func insertText(q string) bool {
	return len(q) > len("insert into t values(1)") && len(q) <= maxTextInsert && strings.EqualFold(q[:6], "insert")
}

// tryInsert answers a text INSERT of literals on the write fast path;
// handled=false means "let GMS do it" (nothing was written).
func (e *Executor) tryInsert(ctx context.Context, c *mysql.Conn, s *sqlengine.Session, q string, cb mysql.ResultSpoolFn) (handled bool, err error) {
	q = strings.TrimLeft(strings.TrimRight(q, "\x00 \t\r\n;"), " \t\r\n")
	if !insertText(q) || !e.e.ExecutorOnFor(s) {
		return false, nil
	}
	mode := sqlmode.Load(sql.NewContext(ctx, sql.WithSession(s)))
	if (sqlengine.ModeOn(mode, "PIPES_AS_CONCAT") && strings.Contains(q, "||")) || (mode.ModeEnabled("HIGH_NOT_PRECEDENCE") && sqlengine.ContainsNot(q)) {
		return false, nil // GMS's, through the parser wrapper's rewrites (pipesnot.go)
	}
	r, _ := sqlengine.ModeText(q, mode.ModeEnabled("NO_BACKSLASH_ESCAPES"), mode.AnsiQuotes())
	stmt, err := ast.ParseWithOptions(ctx, r, mode.ParserOptions())
	if err != nil {
		return false, nil
	}
	in, ok := stmt.(*ast.Insert)
	if !ok {
		return false, nil
	}
	p, rows := e.planTextInsert(s, in)
	if p == nil {
		return false, nil
	}
	handled, err = e.runWrite(ctx, s, p, rows, func(r *sqltypes.Result) error { return cb(r, false) })
	if err != nil {
		s.EndAborted()
	}
	return handled, err
}

// planTextInsert recognises an INSERT of literal rows; nil means "use
// GMS". rows give each row's values in the order of the plan's insCols.
func (e *Executor) planTextInsert(s *sqlengine.Session, in *ast.Insert) (*writePlan, []func(int) (any, bool)) {
	if in.Action != ast.InsertStr || in.Ignore != "" || len(in.OnDup) > 0 || len(in.Partitions) > 0 || in.With != nil || len(in.Returning) > 0 {
		return nil, nil
	}
	var vals ast.Values
	switch r := in.Rows.(type) {
	case ast.Values:
		vals = r
	case *ast.AliasedValues:
		if !r.As.IsEmpty() {
			return nil, nil
		}
		vals = r.Values
	}
	if len(vals) == 0 {
		return nil, nil
	}
	p := &writePlan{kind: writeInsert}
	st := e.writeTable(s, in.Table, p)
	if st == nil {
		return nil, nil
	}
	n := len(st.Schema)
	if len(in.Columns) == 0 {
		for o := range st.Schema {
			p.insCols = append(p.insCols, o)
		}
	} else {
		if len(in.Columns) != n {
			return nil, nil
		}
		seen := make([]bool, n)
		for _, c := range in.Columns {
			o := st.Schema.IndexOfColName(c.String())
			if o < 0 || seen[o] {
				return nil, nil
			}
			seen[o] = true
			p.insCols = append(p.insCols, o)
		}
	}
	if len(vals) > 1 {
		for _, c := range st.Schema {
			if c.AutoIncrement {
				return nil, nil
			}
		}
	}
	p.nparams = n
	rows := make([]func(int) (any, bool), len(vals))
	for r, tuple := range vals {
		if len(tuple) != n {
			return nil, nil
		}
		row := make([]any, n)
		for i, x := range tuple {
			v, ok := literal(x)
			if !ok {
				return nil, nil
			}
			row[i] = v
		}
		rows[r] = func(i int) (any, bool) { return row[i], true }
	}
	return p, rows
}

// literal is the Go value of an integer or string literal or NULL (nil);
// ok=false for anything else.
func literal(x ast.Expr) (any, bool) {
	neg := false
	if u, ok := x.(*ast.UnaryExpr); ok && u.Operator == ast.UMinusStr {
		neg, x = true, u.Expr
	}
	switch v := x.(type) {
	case *ast.NullVal:
		return nil, !neg
	case *ast.SQLVal:
		switch v.Type {
		case ast.StrVal:
			return string(v.Val), !neg
		case ast.IntVal:
			t := string(v.Val)
			if neg {
				t = "-" + t
			}
			if n, err := strconv.ParseInt(t, 10, 64); err == nil {
				return n, true
			}
			if n, err := strconv.ParseUint(t, 10, 64); err == nil {
				return n, true
			}
		}
	}
	return nil, false
}
