package sqlengine

import (
	"context"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/sqlengine/sqlmode"
)

// GMS compiles a stored procedure's body (procedures.Parse, when a CALL
// or information_schema.ROUTINES builds the procedure from its stored
// text) with a panic on a SET of more than one variable ("unexpected
// number of set expressions"): a procedure with `SET a = 1, b = 2` could
// not run, and one in any database (mtr's own mtr.check_warnings has
// `SET SQL_LOG_BIN=0, SQL_SAFE_UPDATES=0`) failed every read of
// information_schema.ROUTINES. GMS parses that text with sql.GlobalParser,
// its documented hook for an integrator's parser; Petrel's splits each
// such SET of a procedure's body into one SET per variable, in order
// (what the statement does), and leaves every other statement as parsed.
// It also parses a trigger whose body is one IF, CASE, SIGNAL or loop
// statement without BEGIN ... END (sqlmode/triggerbody.go,
// triggerbody.go): every parse of it, the client's and the reload of the
// stored text, goes through here.
// Installed once per process, as the analyzer's rules (planrules.go).

var routineParserOnce sync.Once

func installRoutineParser() {
	routineParserOnce.Do(func() {
		sql.GlobalParser = routineParser{sql.GlobalParser}
	})
}

// routineParser is GMS's parser with routine bodies' SETs split.
type routineParser struct{ sql.Parser }

func (p routineParser) ParseSimple(q string) (ast.Statement, error) {
	q, doAdded := sqlmode.RoutineBodyDo(q, false) // sqlmode/routinedo.go
	r, added, span, wrapped := sqlmode.TriggerBody(q, false)
	st, err := p.Parser.ParseSimple(r)
	if wrapped && err == nil {
		placeTriggerBody(st, q, r, "", ';', added, span)
	}
	originalBodySpan(st, doAdded) // engine.go
	splitRoutineSets(st)
	return st, err
}

func (p routineParser) Parse(ctx *sql.Context, q string, multi bool) (ast.Statement, string, string, error) {
	orig := q
	q, doAdded := sqlmode.RoutineBodyDo(q, false) // sqlmode/routinedo.go
	r, added, span, wrapped := sqlmode.TriggerBody(q, false)
	st, a, b, err := p.Parser.Parse(ctx, r, multi)
	if wrapped && err == nil {
		a, b = placeTriggerBody(st, q, r, b, ';', added, span)
	}
	if doAdded != nil && err == nil {
		// GMS slices the body out of the parsed text with the offsets
		// originalBodySpan maps back: the text must be the original.
		a, b = sqlmode.RewrittenRemainder(orig, q, b, ';', doAdded)
	}
	originalBodySpan(st, doAdded) // engine.go
	splitRoutineSets(st)
	bodyInsertsIntoViews(ctx, st)    // viewinsert.go
	bodyUpdatesThroughViews(ctx, st) // viewupdate.go
	return st, a, b, err
}

func (p routineParser) ParseWithOptions(ctx context.Context, q string, delim rune, multi bool, o ast.ParserOptions) (ast.Statement, string, string, error) {
	orig := q
	q, doAdded := sqlmode.RoutineBodyDo(q, o.AnsiQuotes) // sqlmode/routinedo.go
	r, added, span, wrapped := sqlmode.TriggerBody(q, o.AnsiQuotes)
	st, a, b, err := p.Parser.ParseWithOptions(ctx, r, delim, multi, o)
	if wrapped && err == nil {
		a, b = placeTriggerBody(st, q, r, b, delim, added, span)
	}
	if doAdded != nil && err == nil {
		a, b = sqlmode.RewrittenRemainder(orig, q, b, delim, doAdded) // as in Parse
	}
	originalBodySpan(st, doAdded) // engine.go
	splitRoutineSets(st)
	bodyInsertsIntoViews(ctx, st)    // viewinsert.go
	bodyUpdatesThroughViews(ctx, st) // viewupdate.go
	return st, a, b, err
}

func (p routineParser) ParseOneWithOptions(ctx context.Context, q string, o ast.ParserOptions) (ast.Statement, int, error) {
	q, doAdded := sqlmode.RoutineBodyDo(q, o.AnsiQuotes) // sqlmode/routinedo.go
	r, added, span, wrapped := sqlmode.TriggerBody(q, o.AnsiQuotes)
	st, n, err := p.Parser.ParseOneWithOptions(ctx, r, o)
	if wrapped && err == nil {
		placeTriggerBody(st, q, r, "", ';', added, span)
		n = sqlmode.OriginalOffset(n, added)
	}
	if doAdded != nil && err == nil {
		n = sqlmode.OriginalOffset(n, doAdded)
	}
	originalBodySpan(st, doAdded) // engine.go
	splitRoutineSets(st)
	bodyInsertsIntoViews(ctx, st)    // viewinsert.go
	bodyUpdatesThroughViews(ctx, st) // viewupdate.go
	return st, n, err
}

// splitRoutineSets splits the multi-variable SETs of st's body, when st
// is a CREATE PROCEDURE, and marks the user variables its SETs (or a
// CREATE TRIGGER's) assign (userVarSet).
func splitRoutineSets(st ast.Statement) {
	d, ok := st.(*ast.DDL)
	if !ok {
		return
	}
	if d.ProcedureSpec != nil && d.ProcedureSpec.Body != nil {
		d.ProcedureSpec.Body = splitSetsIn(d.ProcedureSpec.Body)
		walkStatements(d.ProcedureSpec.Body, userVarSet) // routinecond.go
	}
	if d.TriggerSpec != nil && d.TriggerSpec.Body != nil {
		walkStatements(d.TriggerSpec.Body, userVarSet)
	}
}

// userVarSet names each user variable n, a SET, assigns with its @.
// vitess reads `SET @a = 1` as a user-scoped `a`, and GMS looks a SET's
// name up as a column first: in a trigger of a table with a column a,
// `SET @a = 1` set OLD.a (1105 "Updating of old row is not allowed in
// trigger" for a DELETE trigger) or was ambiguous between OLD and NEW
// (UPDATE). No column is named `@a`, and GMS reads the @ as the user
// scope.
func userVarSet(n ast.SQLNode) {
	s, ok := n.(*ast.Set)
	if !ok {
		return
	}
	for _, e := range s.Exprs {
		if e != nil && e.Scope == ast.SetScope_User && e.Name != nil && !strings.HasPrefix(e.Name.Name.String(), "@") {
			e.Name = &ast.ColName{Name: ast.NewColIdent("@" + e.Name.Name.String()), Qualifier: e.Name.Qualifier}
		}
	}
}

// splitSetsIn is st with its multi-variable SETs split: a SET that is
// the whole statement (a handler's) becomes a block of SETs.
func splitSetsIn(st ast.Statement) ast.Statement {
	if s, ok := st.(*ast.Set); ok && len(s.Exprs) > 1 {
		return &ast.BeginEndBlock{Statements: splitSet(s)}
	}
	list := func(stmts ast.Statements) ast.Statements {
		var out ast.Statements
		for _, x := range stmts {
			if s, ok := x.(*ast.Set); ok && len(s.Exprs) > 1 {
				out = append(out, splitSet(s)...)
				continue
			}
			out = append(out, splitSetsIn(x))
		}
		return out
	}
	switch x := st.(type) {
	case *ast.BeginEndBlock:
		x.Statements = list(x.Statements)
	case *ast.IfStatement:
		for i := range x.Conditions {
			x.Conditions[i].Statements = list(x.Conditions[i].Statements)
		}
		x.Else = list(x.Else)
	case *ast.CaseStatement:
		for i := range x.Cases {
			x.Cases[i].Statements = list(x.Cases[i].Statements)
		}
		x.Else = list(x.Else)
	case *ast.While:
		x.Statements = list(x.Statements)
	case *ast.Repeat:
		x.Statements = list(x.Statements)
	case *ast.Loop:
		x.Statements = list(x.Statements)
	case *ast.Declare:
		if x.Handler != nil && x.Handler.Statement != nil {
			x.Handler.Statement = splitSetsIn(x.Handler.Statement)
		}
	}
	return st
}

// splitSet is one SET per variable of s.
func splitSet(s *ast.Set) []ast.Statement {
	out := make([]ast.Statement, len(s.Exprs))
	for i, e := range s.Exprs {
		out[i] = &ast.Set{Exprs: ast.SetVarExprs{e}}
	}
	return out
}
