package sqlengine

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"

	"petrel/internal/mysqlerr"
	"petrel/internal/sqlstr"
	"petrel/sqlengine/sqlerr"
	"petrel/sqlengine/storedfn"
)

// Stored functions (issue 31). vitess does not parse CREATE FUNCTION, so
// the statement is read here (storedfn) and each function becomes a
// hidden procedure, `__petrel_fn_<name>`, with the function's
// parameters as IN parameters and OUT parameters for the value returned
// and for whether a RETURN ran; GMS creates, keeps and drops it as any
// procedure (routines.go), the catalog record holding the CREATE
// FUNCTION text, and the binary log records the CREATE or DROP FUNCTION
// as written (Session.routineText), so a MariaDB or MySQL replica
// applies it. A call f(args) in an expression resolves, when no
// built-in function has the name, to the current database's function
// and runs its hidden procedure in the calling statement's session and
// transaction (storedCall); its row changes are the statement's.
//
// Differences from MySQL, documented in COMPATIBILITY.md: a qualified
// call db.f() resolves f in the current database (GMS drops the
// qualifier); information_schema.ROUTINES lists procedures only (its row
// source is GMS's), so SHOW FUNCTION STATUS is answered here; arguments
// reach the procedure as literals of their values.

const (
	createFunctionPattern = `CREATE (?:DEFINER ?= ?\S+ )?(?:AGGREGATE )?FUNCTION .+`
	dropFunctionPattern   = `DROP FUNCTION (?:IF EXISTS )?\S+`
	showCreateFunction    = `SHOW CREATE FUNCTION (\S+)`
	showFunctionStatus    = `SHOW FUNCTION STATUS(?: (LIKE|WHERE) (.+))?`
	// maxFunctionDepth bounds nested calls (a function calling another);
	// a function calling itself, directly or not, is 1424, as in MySQL.
	maxFunctionDepth = 64
)

func (e *Engine) registerFunctionStatements() {
	e.RegisterAdmin(createFunctionPattern, 0, func(ctx context.Context, s *Session, _ []string) (*AdminResult, error) {
		return &AdminResult{}, e.routineStatement(ctx, s, s.adminQuery)
	})
	e.RegisterAdmin(dropFunctionPattern, 0, func(ctx context.Context, s *Session, _ []string) (*AdminResult, error) {
		return &AdminResult{}, e.routineStatement(ctx, s, s.adminQuery)
	})
	e.RegisterAdmin(showCreateFunction, 0, e.showCreateFunction)
	e.RegisterAdmin(showFunctionStatus, 0, e.showFunctionStatus)
	e.registerRoutineStatements() // routinealter.go
}

// isRoutineStatement reports CREATE or DROP FUNCTION or ALTER PROCEDURE
// or FUNCTION, which routineStatement runs (the replica's applier asks).
func isRoutineStatement(q string) bool {
	return storedfn.IsCreate(q) || storedfn.IsDrop(q) || storedfn.IsAlter(q)
}

// routineStatement runs CREATE FUNCTION or DROP FUNCTION q in s (or an
// ALTER PROCEDURE or FUNCTION).
func (e *Engine) routineStatement(ctx context.Context, s *Session, q string) error {
	if storedfn.IsAlter(q) {
		return e.alterRoutine(ctx, s, q) // routinealter.go
	}
	q = strings.TrimRight(strings.TrimSpace(q), "; \t\r\n")
	s.ClearWarnings()
	sctx := e.NewContext(ctx, s)
	var proc string
	if storedfn.IsDrop(q) {
		d, ok := storedfn.ParseDrop(q)
		if !ok {
			return mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s'", q)
		}
		db, err := e.routineDatabase(sctx, d.Database)
		if err != nil {
			return err
		}
		if db.storedFunction(d.Name) == "" {
			if d.IfExists {
				s.Warn(&sql.Warning{Level: "Note", Code: mysqlerr.ErSPDoesNotExist, Message: fmt.Sprintf("FUNCTION %s.%s does not exist", db.name, d.Name)})
				return nil
			}
			return mysqlerr.New(mysqlerr.ErSPDoesNotExist, "FUNCTION %s.%s does not exist", db.name, d.Name)
		}
		proc = fmt.Sprintf("DROP PROCEDURE %s.%s", quoteIdent(db.name), quoteIdent(storedfn.HiddenName(d.Name)))
	} else {
		d, err := storedfn.Parse(q)
		if err != nil {
			return functionParseError(err)
		}
		db, err := e.routineDatabase(sctx, d.Database)
		if err != nil {
			return err
		}
		if db.storedFunction(d.Name) != "" {
			if d.IfNotExists {
				s.Warn(&sql.Warning{Level: "Note", Code: mysqlerr.ErSPAlreadyExists, Message: fmt.Sprintf("FUNCTION %s already exists", d.Name)})
				return nil
			}
			return mysqlerr.New(mysqlerr.ErSPAlreadyExists, "FUNCTION %s already exists", d.Name)
		}
		if e.globals.Bool("log_bin") && !e.globals.Bool("log_bin_trust_function_creators") && !d.Deterministic &&
			d.DataAccess != "NO SQL" && d.DataAccess != "READS SQL DATA" && !s.internal {
			return mysqlerr.New(mysqlerr.ErBinlogUnsafeRoutine, "This function has none of DETERMINISTIC, NO SQL, or READS SQL DATA in its declaration and binary logging is enabled (you *might* want to use the less safe log_bin_trust_function_creators variable)")
		}
		if proc, err = d.Procedure(); err != nil {
			return functionParseError(err)
		}
		if st, err := ast.Parse(proc); err == nil {
			// The body's conditions, and no commit (1422): routinecheck.go.
			if err := checkRoutine(st); err != nil {
				return err
			}
		} else {
			// The body's own syntax error, in the body's words.
			msg := err.Error()
			if i := strings.Index(msg, " near "); i >= 0 {
				msg = msg[i+len(" near "):]
			}
			return mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near %s", msg)
		}
		// The hidden procedure goes where the function does.
		proc = strings.Replace(proc, "CREATE PROCEDURE ", "CREATE PROCEDURE "+quoteIdent(db.name)+".", 1)
	}
	s.routineText = q
	defer func() { s.routineText = "" }()
	return e.runInternal(ctx, s, proc)
}

// functionParseError is storedfn's error as MySQL's.
func functionParseError(err error) error {
	var se *storedfn.SyntaxError
	var ue *storedfn.UDFError
	switch {
	case errors.As(err, &se):
		return mysqlerr.New(mysqlerr.ErParse, "%s", se.Error())
	case errors.As(err, &ue):
		return mysqlerr.New(mysqlerr.ErCantOpenLibrary, "Can't open shared library '%s' (errno: 0, loadable functions are not supported)", ue.Name)
	}
	return err
}

// routineDatabase is the database a routine statement names (qual) or
// the current one.
func (e *Engine) routineDatabase(ctx *sql.Context, qual string) (*Database, error) {
	name := qual
	if name == "" {
		name = ctx.GetCurrentDatabase()
	}
	if name == "" {
		return nil, mysqlerr.New(mysqlerr.ErNoDB, "No database selected")
	}
	db, err := e.prov.Database(ctx, name)
	if err != nil {
		return nil, sqlerr.ToMySQL(err)
	}
	pd, ok := db.(*Database)
	if !ok {
		return nil, mysqlerr.New(mysqlerr.ErBadDB, "Unknown database '%s'", name)
	}
	return pd, nil
}

// runInternal runs query to its end in s, as a statement of its own.
func (e *Engine) runInternal(ctx context.Context, s *Session, query string) error {
	pid := sql.WithPid(internalPids + e.nextPid.Add(1))
	sctx := sql.NewContext(ctx, sql.WithSession(s), sql.WithProcessList(e.gms.ProcessList), sql.WithQuery(query), pid)
	if !s.internal {
		// A client's statement shows in the process list (KILL QUERY
		// reaches it); the replica's applier has no connection there.
		var err error
		if sctx, err = e.gms.ProcessList.BeginQuery(sctx, query); err != nil {
			return err
		}
		defer e.gms.ProcessList.EndQuery(sctx)
	}
	return e.queryToEnd(sctx, query)
}

// queryToEnd runs query in sctx through GMS and reads its rows to the
// end, errors as MySQL's.
func (e *Engine) queryToEnd(sctx *sql.Context, query string) error {
	_, iter, _, err := e.gms.Query(sctx, query)
	if err != nil {
		return sqlerr.ToMySQL(err)
	}
	if _, err := sql.RowIterToRows(sctx, iter); err != nil {
		return sqlerr.ToMySQL(err)
	}
	return nil
}

// showCreateFunction answers SHOW CREATE FUNCTION [db.]name.
func (e *Engine) showCreateFunction(ctx context.Context, s *Session, m []string) (*AdminResult, error) {
	qual, name := splitTableName(m[1], "")
	sctx := e.NewContext(ctx, s)
	db, err := e.routineDatabase(sctx, qual)
	if err != nil {
		return nil, err
	}
	text := db.storedFunction(name)
	if text == "" {
		return nil, mysqlerr.New(mysqlerr.ErSPDoesNotExist, "FUNCTION %s does not exist", name)
	}
	d, err := storedfn.Parse(text)
	if err != nil {
		return nil, err
	}
	client, conn := sessionString(sctx, "character_set_client"), sessionString(sctx, "collation_connection")
	return &AdminResult{
		Columns: []string{"Function", "sql_mode", "Create Function", "character_set_client", "collation_connection", "Database Collation"},
		Rows:    [][]*string{{Str(d.Name), Str(e.functionSQLMode(db, name)), Str(text), Str(client), Str(conn), Str(e.collationOf(sctx, db.name))}},
	}, nil
}

// functionSQLMode is the sql_mode function name was created under.
func (e *Engine) functionSQLMode(db *Database, name string) string {
	sd := db.sdb()
	if sd == nil {
		return ""
	}
	hidden := storedfn.HiddenName(name)
	for _, p := range sd.Def().Procedures {
		if strings.EqualFold(p.Name, hidden) {
			return p.SqlMode
		}
	}
	return ""
}

func sessionString(ctx *sql.Context, name string) string {
	v, err := ctx.GetSessionVariable(ctx, name)
	if err != nil || v == nil {
		return ""
	}
	return fmt.Sprint(v)
}

// showFunctionStatus answers SHOW FUNCTION STATUS [LIKE 'p' | WHERE
// cond]: one row per function of every database (cond: comparisons of
// Db and Name with strings, joined by AND).
func (e *Engine) showFunctionStatus(ctx context.Context, s *Session, m []string) (*AdminResult, error) {
	sctx := e.NewContext(ctx, s)
	var conds []func(db, name string) bool
	switch strings.ToUpper(m[1]) {
	case "LIKE":
		pat, ok := sqlstr.Literal(m[2])
		if !ok {
			return nil, mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s'", m[2])
		}
		conds = append(conds, func(_, name string) bool { return likeMatch(name, pat) })
	case "WHERE":
		for _, part := range splitAnd(m[2]) {
			c, err := statusCondition(part)
			if err != nil {
				return nil, err
			}
			conds = append(conds, c)
		}
	}
	res := &AdminResult{Columns: []string{"Db", "Name", "Type", "Definer", "Modified", "Created", "Security_type", "Comment", "character_set_client", "collation_connection", "Database Collation"}}
	client, conn := sessionString(sctx, "character_set_client"), sessionString(sctx, "collation_connection")
	for _, sd := range e.store.Catalog().Databases() {
		dbName := sd.Def().Name
		for _, p := range sd.Def().Procedures {
			if !storedfn.IsHidden(p.Name) {
				continue
			}
			d, err := storedfn.Parse(p.CreateStmt)
			if err != nil {
				continue
			}
			keep := true
			for _, c := range conds {
				keep = keep && c(dbName, d.Name)
			}
			if !keep {
				continue
			}
			definer := d.Definer
			if definer == "" {
				definer = "root@localhost"
			}
			res.Rows = append(res.Rows, []*string{Str(dbName), Str(d.Name), Str("FUNCTION"), Str(strings.ReplaceAll(definer, "`", "")),
				Str(time.Unix(0, p.ModifiedAt).Format(time.DateTime)), Str(time.Unix(0, p.CreatedAt).Format(time.DateTime)),
				Str(d.Security), Str(d.Comment), Str(client), Str(conn), Str(e.collationOf(sctx, dbName))})
		}
	}
	sort.Slice(res.Rows, func(i, j int) bool {
		a, b := res.Rows[i], res.Rows[j]
		return *a[0] < *b[0] || *a[0] == *b[0] && strings.ToLower(*a[1]) < strings.ToLower(*b[1])
	})
	return res, nil
}

// splitAnd splits a condition at its top-level ANDs (outside quotes).
func splitAnd(cond string) []string {
	var out []string
	var quote byte
	last := 0
	for i := 0; i < len(cond); i++ {
		c := cond[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case (c == 'A' || c == 'a') && i+4 <= len(cond) && strings.EqualFold(cond[i:i+3], "AND") &&
			i > 0 && cond[i-1] == ' ' && (i+3 == len(cond) || cond[i+3] == ' '):
			out = append(out, strings.TrimSpace(cond[last:i]))
			last = i + 3
		}
	}
	return append(out, strings.TrimSpace(cond[last:]))
}

// statusCondition reads `Db|Name (=|LIKE) 'text'`.
func statusCondition(c string) (func(db, name string) bool, error) {
	f := strings.Fields(c)
	bad := mysqlerr.New(mysqlerr.ErNotSupportedYet, "This version of MySQL doesn't yet support 'SHOW FUNCTION STATUS WHERE %s'", c)
	if len(f) < 3 {
		return nil, bad
	}
	col := strings.ToLower(strings.Trim(f[0], "`"))
	op := strings.ToUpper(f[1])
	lit, ok := sqlstr.Literal(strings.Join(f[2:], " "))
	if !ok || (col != "db" && col != "name") || (op != "=" && op != "LIKE") {
		return nil, bad
	}
	return func(db, name string) bool {
		v := name
		if col == "db" {
			v = db
		}
		if op == "=" {
			return strings.EqualFold(v, lit)
		}
		return likeMatch(v, lit)
	}, nil
}

// likeMatch is LIKE's match, case-insensitive, % and _ as wildcards.
func likeMatch(s, pat string) bool {
	s, pat = strings.ToLower(s), strings.ToLower(pat)
	if pat == "" {
		return s == ""
	}
	switch pat[0] {
	case '%':
		for i := 0; i <= len(s); i++ {
			if likeMatch(s[i:], pat[1:]) {
				return true
			}
		}
		return false
	case '_':
		return s != "" && likeMatch(s[1:], pat[1:])
	case '\\':
		if len(pat) > 1 {
			return s != "" && s[0] == pat[1] && likeMatch(s[1:], pat[2:])
		}
	}
	return s != "" && s[0] == pat[0] && likeMatch(s[1:], pat[1:])
}

// builtinNames are GMS's built-in functions' names: a stored function
// of the same name is reached only through them first, as MySQL's
// built-ins take precedence over unqualified stored functions.
var builtinNames = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, f := range function.BuiltIns {
		out[strings.ToLower(f.FunctionName())] = true
	}
	return out
})

// storedFunction is the current database's function name, for a call.
func (p *Provider) storedFunction(ctx *sql.Context, name string) (sql.Function, bool) {
	if ctx == nil || p.callFunction == nil || builtinNames()[strings.ToLower(name)] {
		return nil, false
	}
	dbName := ctx.GetCurrentDatabase()
	if dbName == "" {
		return nil, false
	}
	sdb, err := p.Database(ctx, dbName)
	if err != nil {
		return nil, false
	}
	db, ok := sdb.(*Database)
	if !ok {
		return nil, false
	}
	text := db.storedFunction(name)
	if text == "" {
		return nil, false
	}
	def, err := storedfn.Parse(text)
	if err != nil {
		return nil, false
	}
	typ, err := planbuilder.ParseColumnTypeString(def.Returns)
	if err != nil {
		typ = types.LongText
	}
	call := p.callFunction
	return sql.FunctionN{Name: def.Name, Fn: func(args ...sql.Expression) (sql.Expression, error) {
		if len(args) != len(def.Params) {
			return nil, mysqlerr.New(mysqlerr.ErSPWrongNoOfArgs, "Incorrect number of arguments for FUNCTION %s.%s; expected %d, got %d", db.name, def.Name, len(def.Params), len(args))
		}
		return &storedCall{db: db.name, def: def, typ: typ, args: args, call: call}, nil
	}}, true
}

// storedCall is a call of a stored function in an expression.
type storedCall struct {
	db   string
	def  *storedfn.Def
	typ  sql.Type
	args []sql.Expression
	call func(ctx *sql.Context, db string, def *storedfn.Def, args []any) (any, error)
}

var (
	_ sql.Expression                 = (*storedCall)(nil)
	_ sql.NonDeterministicExpression = (*storedCall)(nil)
	_ sql.CollationCoercible         = (*storedCall)(nil)
)

func (c *storedCall) Resolved() bool {
	for _, a := range c.args {
		if !a.Resolved() {
			return false
		}
	}
	return true
}

func (c *storedCall) String() string {
	parts := make([]string, len(c.args))
	for i, a := range c.args {
		parts[i] = a.String()
	}
	return c.def.Name + "(" + strings.Join(parts, ",") + ")"
}

func (c *storedCall) Type() sql.Type             { return c.typ }
func (c *storedCall) IsNullable() bool           { return true }
func (c *storedCall) Children() []sql.Expression { return c.args }
func (c *storedCall) IsNonDeterministic() bool   { return true }
func (c *storedCall) CollationCoercibility(*sql.Context) (sql.CollationID, byte) {
	return c.typ.CollationCoercibility(nil)
}

func (c *storedCall) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != len(c.args) {
		return nil, sql.ErrInvalidChildrenNumber.New(c, len(children), len(c.args))
	}
	n := *c
	n.args = children
	return &n, nil
}

func (c *storedCall) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	vals := make([]any, len(c.args))
	for i, a := range c.args {
		v, err := a.Eval(ctx, row)
		if err != nil {
			return nil, err
		}
		vals[i] = v
	}
	v, err := c.call(ctx, c.db, c.def, vals)
	if err != nil || v == nil {
		return nil, err
	}
	out, _, err := c.typ.Convert(ctx, v)
	return out, err
}

// callStoredFunction runs def's hidden procedure with args in ctx's
// session and returns the value its RETURN gave.
func (e *Engine) callStoredFunction(ctx *sql.Context, db string, def *storedfn.Def, args []any) (any, error) {
	s, ok := ctx.Session.(*Session)
	if !ok {
		return nil, fmt.Errorf("stored function %s: not a Petrel session", def.Name)
	}
	key := strings.ToLower(db + "." + def.Name)
	if s.fnDepth >= maxFunctionDepth || slices.Contains(s.fnRunning, key) {
		// MySQL allows no recursion in stored functions.
		return nil, mysqlerr.New(mysqlerr.ErSPNoRecursion, "Recursive stored functions and triggers are not allowed.")
	}
	s.fnRunning = append(s.fnRunning, key)
	defer func() { s.fnRunning = s.fnRunning[:len(s.fnRunning)-1] }()
	s.fnDepth++
	// Nothing a function runs commits: its statements are the calling
	// statement's, in its transaction (shareTransaction).
	ignore := ctx.GetIgnoreAutoCommit()
	ctx.SetIgnoreAutoCommit(true)
	defer func() {
		s.fnDepth--
		ctx.SetIgnoreAutoCommit(ignore)
	}()
	ret, done := fmt.Sprintf("__petrel_fn_ret_%d", s.fnDepth), fmt.Sprintf("__petrel_fn_done_%d", s.fnDepth)
	if err := ctx.SetUserVariable(ctx, done, int64(0), types.Int64); err != nil {
		return nil, err
	}
	// A variable keeps its type: the last call's would convert this one's
	// result.
	if err := ctx.SetUserVariable(ctx, ret, nil, types.Null); err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CALL %s.%s(", quoteIdent(db), quoteIdent(storedfn.HiddenName(def.Name)))
	for _, a := range args {
		b.WriteString(sqlLiteral(a))
		b.WriteString(", ")
	}
	fmt.Fprintf(&b, "@%s, @%s)", ret, done)
	node, _, err := planbuilder.Parse(ctx, e.gms.Analyzer.Catalog, b.String())
	if err != nil {
		return nil, err
	}
	analyzed, err := e.gms.Analyzer.Analyze(ctx, node, nil, nil)
	if err != nil {
		return nil, err
	}
	iter, err := e.exec.Build(ctx, analyzed, nil)
	if err != nil {
		return nil, err
	}
	for {
		if _, err := iter.Next(ctx); err == io.EOF {
			break
		} else if err != nil {
			_ = iter.Close(ctx)
			return nil, err
		}
	}
	if err := iter.Close(ctx); err != nil {
		return nil, err
	}
	if _, v, _ := ctx.GetUserVariable(ctx, done); fmt.Sprint(v) != "1" {
		return nil, mysqlerr.New(mysqlerr.ErSPNoReturnEnd, "FUNCTION %s ended without RETURN", def.Name)
	}
	_, v, err := ctx.GetUserVariable(ctx, ret)
	return v, err
}

// sqlLiteral writes v as a SQL literal of its value.
func sqlLiteral(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		if x {
			return "1"
		}
		return "0"
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint64, uint:
		return fmt.Sprint(x)
	case float32:
		return sqlFloat(float64(x), 32)
	case float64:
		return sqlFloat(x, 64)
	case decimal.Decimal:
		return x.String()
	case string:
		return hexString([]byte(x))
	case []byte:
		return "X'" + hex.EncodeToString(x) + "'"
	case time.Time:
		return "'" + x.Format("2006-01-02 15:04:05.999999") + "'"
	}
	return hexString([]byte(fmt.Sprint(v)))
}

// hexString is a string literal in the connection's character set
// written in hex, so no sql_mode or escape reads it otherwise.
func hexString(b []byte) string {
	if len(b) == 0 {
		return "''"
	}
	return "_utf8mb4 X'" + hex.EncodeToString(b) + "'"
}

func sqlFloat(f float64, bits int) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "NULL"
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, ".e") {
		s += "e0"
	}
	return s
}
