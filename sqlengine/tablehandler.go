package sqlengine

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
)

// HANDLER statements, which vitess does not parse: a session opens a
// table under a name (HANDLER t OPEN [AS] h), reads it row by row in its
// natural order or an index's (HANDLER h READ [idx] FIRST | NEXT | PREV
// | LAST, HANDLER h READ idx = (v, ...) and <=, >=, <, >, each with
// [WHERE cond] [LIMIT [offset,] n]) and closes it (HANDLER h CLOSE).
// As in MySQL, reads see committed rows as they are now (no snapshot),
// an open handler keeps its place between reads, FLUSH TABLES makes it
// start again (MySQL reopens the table), and TRUNCATE or DROP of its
// table closes it (then 1109, "Unknown table 'h' in HANDLER"). Each read
// runs the table's ordered scan through the session (its privileges
// apply) and takes its place from the handler's position in that order:
// a row inserted before the position shifts it.

const tableHandlerPattern = `HANDLER (.+)`

// tableHandler is one open HANDLER of a session.
type tableHandler struct {
	db, table string
	// index is the order of the last read ("" natural), cur the
	// position in it of the last row returned: -1 before the first,
	// the row count after the last.
	index string
	cur   int
}

// handlerStmt is a HANDLER statement read from its tokens.
type handlerStmt struct {
	db, name, alias string
	verb            string // OPEN, READ, CLOSE
	index           string // READ's index, "" natural order
	how             string // FIRST, NEXT, PREV, LAST, or a comparison
	keys            []string
	where           string
	offset, limit   int
}

func (e *Engine) tableHandlerStmt(ctx context.Context, s *Session, m []string) (*AdminResult, error) {
	h, err := parseHandler(m[1])
	if err != nil {
		return nil, err
	}
	if s.handlers == nil {
		s.handlers = map[string]*tableHandler{}
	}
	switch h.verb {
	case "OPEN":
		return e.openHandler(ctx, s, h)
	case "CLOSE":
		if _, ok := s.handlers[strings.ToLower(h.name)]; !ok {
			return nil, unknownHandler(h.name)
		}
		delete(s.handlers, strings.ToLower(h.name))
		return &AdminResult{}, nil
	}
	th, ok := s.handlers[strings.ToLower(h.name)]
	if !ok || h.db != "" {
		return nil, unknownHandler(h.name)
	}
	return e.readHandler(ctx, s, th, h)
}

// isTrue reads a boolean column's text.
func isTrue(v *string) bool { return v != nil && *v != "0" && *v != "" }

func unknownHandler(name string) error {
	return mysqlerr.New(mysqlerr.ErUnknownTable, "Unknown table '%s' in HANDLER", name)
}

func (e *Engine) openHandler(ctx context.Context, s *Session, h handlerStmt) (*AdminResult, error) {
	db := h.db
	if db == "" {
		db = s.GetCurrentDatabase()
	}
	if db == "" {
		return nil, mysqlerr.New(mysqlerr.ErNoDB, "No database selected")
	}
	alias := h.alias
	if alias == "" {
		alias = h.name
	}
	if _, dup := s.handlers[strings.ToLower(alias)]; dup {
		return nil, mysqlerr.New(mysqlerr.ErNonUniqTable, "Not unique table/alias: '%s'", alias)
	}
	// The table must exist and be readable by the session.
	if _, _, err := e.internalRows(ctx, s, fmt.Sprintf("SELECT * FROM %s.%s LIMIT 0", quoteIdent(db), quoteIdent(h.name))); err != nil {
		return nil, err
	}
	s.handlers[strings.ToLower(alias)] = &tableHandler{db: db, table: h.name, cur: -1}
	return &AdminResult{}, nil
}

// closeTableHandlers closes s's handlers of db.table (TRUNCATE, DROP).
func (s *Session) closeTableHandlers(db, table string) {
	for k, h := range s.handlers {
		if strings.EqualFold(h.db, db) && strings.EqualFold(h.table, table) {
			delete(s.handlers, k)
		}
	}
}

// restartHandlers puts s's handlers back before their first row (FLUSH
// TABLES: MySQL reopens their tables).
func (s *Session) restartHandlers() {
	for _, h := range s.handlers {
		h.cur = -1
	}
}

func (e *Engine) readHandler(ctx context.Context, s *Session, th *tableHandler, h handlerStmt) (*AdminResult, error) {
	order, err := e.handlerOrder(ctx, s, th, h.index)
	if err != nil {
		return nil, err
	}
	if h.index != th.index {
		th.index, th.cur = h.index, -1
	}
	cols := []string{"*"}
	where := "TRUE"
	if h.where != "" {
		where = "(" + h.where + ")"
	}
	cols = append(cols, where+" IS TRUE")
	key := "TRUE"
	switch h.how {
	case "=", ">=", "<=", ">", "<":
		if len(h.keys) > len(order) {
			return nil, mysqlerr.New(mysqlerr.ErTooManyKeyParts, "Too many key parts specified; max %d parts allowed", len(order))
		}
		l, r := make([]string, len(h.keys)), make([]string, len(h.keys))
		for i, k := range h.keys {
			l[i], r[i] = quoteIdent(order[i]), k
		}
		key = "(" + strings.Join(l, ", ") + ") " + h.how + " (" + strings.Join(r, ", ") + ")"
	}
	cols = append(cols, "("+key+") IS TRUE")
	q := fmt.Sprintf("SELECT %s FROM %s.%s", strings.Join(cols, ", "), quoteIdent(th.db), quoteIdent(th.table))
	if len(order) > 0 {
		o := make([]string, len(order))
		for i, c := range order {
			o[i] = quoteIdent(c)
		}
		q += " ORDER BY " + strings.Join(o, ", ")
	}
	names, rows, err := e.internalRows(ctx, s, q)
	if err != nil {
		return nil, err
	}
	n := len(rows)
	names = names[:len(names)-2]
	start, step := 0, 1
	switch h.how {
	case "FIRST":
	case "LAST":
		start, step = n-1, -1
	case "NEXT":
		start = th.cur + 1
	case "PREV":
		start, step = th.cur-1, -1
		if th.cur > n {
			start = n - 1
		}
	case "=", ">=", ">":
		start = n
		for i, r := range rows {
			if isTrue(r[len(r)-1]) {
				start = i
				break
			}
		}
	case "<=", "<":
		start, step = -1, -1
		for i := n - 1; i >= 0; i-- {
			if isTrue(rows[i][len(rows[i])-1]) {
				start = i
				break
			}
		}
	}
	res := &AdminResult{Columns: names}
	skip := h.offset
	i := start
	for ; i >= 0 && i < n && len(res.Rows) < h.limit; i += step {
		r := rows[i]
		if h.how == "=" && !isTrue(r[len(r)-1]) {
			break
		}
		th.cur = i
		if !isTrue(r[len(r)-2]) {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		res.Rows = append(res.Rows, r[:len(r)-2])
	}
	if len(res.Rows) == 0 {
		// Nothing found: the handler stands past the end it read to.
		if step > 0 {
			th.cur = n
		} else {
			th.cur = -1
		}
	}
	return res, nil
}

// handlerOrder is the columns of the order a read follows: index's (the
// primary key's for "PRIMARY"), or for the natural order the primary
// key's (Petrel stores rows in its order), none for a table without one.
func (e *Engine) handlerOrder(ctx context.Context, s *Session, th *tableHandler, index string) ([]string, error) {
	_, rows, err := e.internalRows(ctx, s, fmt.Sprintf("SHOW INDEX FROM %s.%s", quoteIdent(th.db), quoteIdent(th.table)))
	if err != nil {
		return nil, err
	}
	want := index
	if want == "" {
		want = "PRIMARY"
	}
	var cols []string
	for _, r := range rows {
		if len(r) > 4 && r[2] != nil && r[4] != nil && strings.EqualFold(*r[2], want) {
			cols = append(cols, *r[4])
		}
	}
	if index != "" && len(cols) == 0 {
		return nil, mysqlerr.New(mysqlerr.ErKeyDoesNotExist, "Key '%s' doesn't exist in table '%s'", index, th.table)
	}
	return cols, nil
}

// internalRows runs query q in session s and returns its column names
// and rows as text (nil for NULL).
func (e *Engine) internalRows(ctx context.Context, s *Session, q string) ([]string, [][]*string, error) {
	pid := sql.WithPid(internalPids + e.nextPid.Add(1))
	sctx, err := e.gms.ProcessList.BeginQuery(sql.NewContext(ctx, sql.WithSession(s), sql.WithProcessList(e.gms.ProcessList), sql.WithQuery(q), pid), q)
	if err != nil {
		return nil, nil, err
	}
	defer e.gms.ProcessList.EndQuery(sctx)
	sch, iter, _, err := e.gms.Query(sctx, q)
	if err != nil {
		return nil, nil, err
	}
	defer iter.Close(sctx)
	names := make([]string, len(sch))
	for i, c := range sch {
		names[i] = c.Name
	}
	var out [][]*string
	for {
		row, err := iter.Next(sctx)
		if err == io.EOF {
			return names, out, nil
		}
		if err != nil {
			return nil, nil, err
		}
		r := make([]*string, len(row))
		for i, v := range row {
			if v == nil {
				continue
			}
			val, err := sch[i].Type.SQL(sctx, nil, v)
			if err != nil {
				return nil, nil, err
			}
			r[i] = Str(val.ToString())
		}
		out = append(out, r)
	}
}

// parseHandler reads what follows HANDLER.
func parseHandler(q string) (handlerStmt, error) {
	var h handlerStmt
	tkn := ast.NewStringTokenizer(q)
	type tok struct {
		typ  int
		val  string
		from int // offset of the token's first byte in q
	}
	var toks []tok
	for {
		typ, val := tkn.Scan()
		if typ == 0 {
			break
		}
		if typ == ast.LEX_ERROR {
			return h, handlerSyntax(q)
		}
		if typ == ast.COMMENT {
			continue
		}
		switch {
		case typ == ast.GE:
			val = []byte(">=")
		case typ == ast.LE:
			val = []byte("<=")
		case len(val) == 0 && typ > 0 && typ < 128:
			val = []byte{byte(typ)}
		}
		end := min(tkn.Position-1, len(q))
		from := end - len(val)
		if typ == ast.STRING || from < 0 {
			from = strings.LastIndex(q[:end], string(val))
			if from < 0 {
				from = 0
			}
			if typ == ast.STRING {
				from-- // the opening quote
			}
		}
		toks = append(toks, tok{typ, string(val), from})
	}
	word := func(i int) string {
		if i < len(toks) {
			return strings.ToUpper(toks[i].val)
		}
		return ""
	}
	i := 0
	if i >= len(toks) {
		return h, handlerSyntax(q)
	}
	h.name = toks[i].val
	i++
	if word(i) == "." && i+1 < len(toks) {
		h.db, h.name = h.name, toks[i+1].val
		i += 2
	}
	h.verb = word(i)
	i++
	switch h.verb {
	case "OPEN":
		if word(i) == "AS" {
			i++
		}
		if i < len(toks) {
			h.alias = toks[i].val
			i++
		}
		if i != len(toks) {
			return h, handlerSyntax(q)
		}
		return h, nil
	case "CLOSE":
		if i != len(toks) {
			return h, handlerSyntax(q)
		}
		return h, nil
	case "READ":
	default:
		return h, handlerSyntax(q)
	}
	switch w := word(i); w {
	case "FIRST", "NEXT":
		h.how = w
		i++
	default:
		if i >= len(toks) {
			return h, handlerSyntax(q)
		}
		h.index = toks[i].val
		if strings.EqualFold(h.index, "PRIMARY") || word(i) == "PRIMARY" {
			h.index = "PRIMARY"
		}
		i++
		switch w := word(i); w {
		case "FIRST", "NEXT", "PREV", "LAST":
			h.how = w
			i++
		case "=", ">=", "<=", ">", "<":
			h.how = w
			i++
			if word(i) != "(" {
				return h, handlerSyntax(q)
			}
			depth, start := 0, toks[i].from+1
			for ; i < len(toks); i++ {
				switch word(i) {
				case "(":
					depth++
				case ")":
					depth--
				}
				if depth == 1 && word(i) == "," || depth == 0 {
					h.keys = append(h.keys, strings.TrimSpace(q[start:toks[i].from]))
					start = toks[i].from + 1
				}
				if depth == 0 {
					break
				}
			}
			i++
		default:
			return h, handlerSyntax(q)
		}
	}
	h.limit = 1
	if word(i) == "WHERE" {
		from := i + 1
		for i < len(toks) && word(i) != "LIMIT" {
			i++
		}
		if from >= len(toks) {
			return h, handlerSyntax(q)
		}
		end := len(q)
		if i < len(toks) {
			end = toks[i].from
		}
		h.where = strings.TrimSpace(q[toks[from].from:end])
	}
	if word(i) == "LIMIT" {
		a, err := strconv.Atoi(word(i + 1))
		if err != nil {
			return h, handlerSyntax(q)
		}
		h.limit, i = a, i+2
		if word(i) == "," {
			b, err := strconv.Atoi(word(i + 1))
			if err != nil {
				return h, handlerSyntax(q)
			}
			h.offset, h.limit, i = a, b, i+2
		}
	}
	if i != len(toks) {
		return h, handlerSyntax(q)
	}
	return h, nil
}

func handlerSyntax(q string) error {
	return mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s' at line 1", q)
}

// closeHandlersOf closes the session's handlers of the tables n, a
// TRUNCATE or DROP TABLE, is about to empty or remove.
func closeHandlersOf(ctx *sql.Context, n sql.Node) {
	s := ctxSession(ctx)
	if s == nil || len(s.handlers) == 0 {
		return
	}
	var tables []sql.Node
	switch n := n.(type) {
	case *plan.Truncate:
		tables = []sql.Node{n.Child}
	case *plan.DropTable:
		tables = n.Tables
	}
	for _, t := range tables {
		transform.Inspect(t, func(c sql.Node) bool {
			if pt := tableOfNode(c); pt != nil {
				s.closeTableHandlers(pt.db.name, pt.Name())
				return false
			}
			return true
		})
	}
}
