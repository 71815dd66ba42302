package fastpath

import (
	"context"
	"math"
	"strconv"
	"strings"
	"sync"

	"petrel/sqlengine"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// Text statements with literals on the prepared fast paths.
//
// Applications that interpolate values client-side (PHP's PDO by
// default, many ORMs, go-sql-driver with interpolateParams, the proxy's
// clients) send `SELECT c FROM t WHERE id = 42` as text: without this,
// GMS parses and plans every one. A text SELECT, UPDATE or DELETE whose
// WHERE clause (or UPDATE's SET clause) holds integer or plain string
// literals is read once into a shape (those literals replaced by
// placeholders, in order) and its values. The shape is planned by the same planners and
// gate as a prepared statement (fastgate.go) and cached per connection
// and current database, a shape no fast path takes too (so the text is
// not planned again until the catalog or the session's variables
// change). Binding an integer literal as an integer parameter and a
// string literal as a string parameter changes nothing the fast paths
// decide on: MySQL gives a string literal and a string parameter the same
// character set and coercibility, and the fast paths compare strings
// under the column's collation. Whatever a fast path refuses at
// execution runs through GMS with the original text.
//
// A read's result fields are GMS's: its first execution of a shape runs
// through GMS, whose fields complete the plan (as the text scan does,
// fastscan.go). Literals outside those clauses (the select list,
// ORDER BY, LIMIT) stay in the shape as they are, and so do decimals,
// floats, hex and bit values, strings with a backslash, an introducer or
// double quotes (ANSI_QUOTES reads those as names), negative numbers and
// anything after a comment or in a subquery: the shape then either
// still plans (a literal is what a prepared text may hold) or declines.

// maxTextShapes bounds each connection's cache of shapes; a full cache
// starts again empty.
const maxTextShapes = 256

// textShape is one text statement read as a shape and its values.
type textShape struct {
	shape string
	binds map[string]*querypb.BindVariable
}

// paramText reads q as a shape; ok=false when q is not a statement the
// fast paths could take (not SELECT, UPDATE or DELETE; no WHERE; no
// literal replaced; or something the reader does not follow).
func paramText(q string) (textShape, bool) {
	if len(q) < len("delete from t where a=1") || len(q) > 4096 || !fastVerb(q) {
		return textShape{}, false
	}
	var b strings.Builder
	b.Grow(len(q))
	binds := map[string]*querypb.BindVariable{}
	// inWhere: in the WHERE clause; inSet: in an UPDATE's SET clause,
	// whose values are bound as a prepared UPDATE's would be.
	inWhere, inSet, i := false, false, 0
	update := strings.EqualFold(q[:6], "update")
	for i < len(q) {
		c := q[i]
		switch {
		case c == '`':
			j := strings.IndexByte(q[i+1:], '`')
			if j < 0 {
				return textShape{}, false
			}
			b.WriteString(q[i : i+j+2])
			i += j + 2
		case c == '\'':
			if i > 0 && identByte(q[i-1]) {
				return textShape{}, false // _utf8mb4'x', N'x', X'..', B'..'
			}
			v, n, ok := quoted(q[i:])
			if !ok {
				return textShape{}, false
			}
			if inWhere || inSet {
				b.WriteByte('?')
				binds["v"+strconv.Itoa(len(binds)+1)] = &querypb.BindVariable{Type: sqltypes.VarBinary, Value: []byte(v)}
			} else {
				b.WriteString(q[i : i+n])
			}
			i += n
		case c == '"', c == '?', c == '#', c == ';', c == '\\', c == '@':
			return textShape{}, false
		case c == '/' && i+1 < len(q) && q[i+1] == '*', c == '-' && i+1 < len(q) && q[i+1] == '-':
			return textShape{}, false // comments: hints and version comments change meaning
		case c >= '0' && c <= '9':
			n := 0
			for i+n < len(q) && q[i+n] >= '0' && q[i+n] <= '9' {
				n++
			}
			lit := q[i : i+n]
			if i+n < len(q) && (identByte(q[i+n]) || q[i+n] == '.') {
				// 1.5, 1e3, 0x1F, 1abc: leave the text, or (an
				// identifier that starts with digits) copy it.
				for i+n < len(q) && (identByte(q[i+n]) || q[i+n] == '.') {
					n++
				}
				b.WriteString(q[i : i+n])
				i += n
				continue
			}
			bv, ok := intLiteral(lit)
			if (inWhere || inSet) && ok && (i == 0 || q[i-1] != '-') {
				b.WriteByte('?')
				binds["v"+strconv.Itoa(len(binds)+1)] = bv
			} else {
				b.WriteString(lit)
			}
			i += n
		case identByte(c):
			n := 0
			for i+n < len(q) && identByte(q[i+n]) {
				n++
			}
			w := q[i : i+n]
			switch {
			case strings.EqualFold(w, "where"):
				if inWhere {
					return textShape{}, false
				}
				inWhere, inSet = true, false
			case update && strings.EqualFold(w, "set") && !inWhere:
				inSet = true
			case strings.EqualFold(w, "select") && inSet:
				return textShape{}, false // a subquery
			case strings.EqualFold(w, "select") && inWhere:
				return textShape{}, false // a subquery
			case inWhere && clauseAfterWhere(w):
				inWhere = false
			}
			b.WriteString(w)
			i += n
		default:
			b.WriteByte(c)
			i++
		}
	}
	if len(binds) == 0 {
		return textShape{}, false
	}
	return textShape{shape: b.String(), binds: binds}, true
}

// fastVerb reports whether q starts with SELECT, UPDATE or DELETE.
func fastVerb(q string) bool {
	for _, v := range [...]string{"select", "update", "delete"} {
		if len(q) > len(v) && strings.EqualFold(q[:len(v)], v) && !identByte(q[len(v)]) {
			return true
		}
	}
	return false
}

// clauseAfterWhere reports whether w starts a clause that follows WHERE,
// whose literals (ORDER BY 1 is a position, LIMIT n a count) stay text.
func clauseAfterWhere(w string) bool {
	for _, k := range [...]string{"order", "group", "limit", "having", "for", "lock", "window", "union", "into", "procedure"} {
		if strings.EqualFold(w, k) {
			return true
		}
	}
	return false
}

// identByte reports whether c may be part of an unquoted identifier (or
// a number's suffix: 1e3, 0x1F).
func identByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c >= 0x80
}

// quoted reads the single-quoted string at the start of s: its value and
// its length in s. A doubled quote stands for one; a backslash (whose
// meaning depends on NO_BACKSLASH_ESCAPES) and adjacent strings ('a' 'b'
// is one literal) are not taken.
func quoted(s string) (v string, n int, ok bool) {
	doubled := false
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			return "", 0, false
		case '\'':
			if i+1 < len(s) && s[i+1] == '\'' {
				doubled = true
				i++
				continue
			}
			if rest := strings.TrimLeft(s[i+1:], " \t\r\n"); rest != "" && rest[0] == '\'' {
				return "", 0, false
			}
			v = s[1:i]
			if doubled {
				v = strings.ReplaceAll(v, "''", "'")
			}
			return v, i + 1, true
		}
	}
	return "", 0, false
}

// intLiteral binds a decimal integer literal as MySQL types it: BIGINT
// when it fits, BIGINT UNSIGNED up to 2^64-1; larger ones are DECIMAL
// literals and stay text.
func intLiteral(lit string) (*querypb.BindVariable, bool) {
	u, err := strconv.ParseUint(lit, 10, 64)
	if err != nil {
		return nil, false
	}
	if u <= math.MaxInt64 {
		return &querypb.BindVariable{Type: sqltypes.Int64, Value: strconv.AppendInt(nil, int64(u), 10)}, true
	}
	return &querypb.BindVariable{Type: sqltypes.Uint64, Value: strconv.AppendUint(nil, u, 10)}, true
}

// textPlans caches shapes' plans per connection, keyed by the current
// database and the shape. A plan with nothing in it is a shape no fast
// path took under its head.
type textPlans struct {
	mu    sync.Mutex
	plans map[uint32]map[string]fastPlan
}

func (t *textPlans) get(conn uint32, k string) (fastPlan, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.plans[conn][k]
	return p, ok
}

func (t *textPlans) put(conn uint32, k string, p fastPlan) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.plans == nil {
		t.plans = map[uint32]map[string]fastPlan{}
	}
	m := t.plans[conn]
	if m == nil || len(m) >= maxTextShapes {
		m = map[string]fastPlan{}
		t.plans[conn] = m
	}
	m[k] = p
}

func (t *textPlans) drop(conn uint32) {
	t.mu.Lock()
	delete(t.plans, conn)
	t.mu.Unlock()
}

// tryParams answers a text statement with literals on the prepared fast
// paths. handled=false means "let GMS do it" with the original text;
// then GMS's callback is run (below fieldsFixed), which completes a
// read shape's plan from the fields GMS sends.
func (e *Executor) tryParams(ctx context.Context, c *mysql.Conn, s *sqlengine.Session, q string, cb mysql.ResultSpoolFn) (handled bool, run mysql.ResultSpoolFn, err error) {
	if !e.e.ExecutorOnFor(s) {
		return false, cb, nil
	}
	ts, ok := paramText(strings.TrimLeft(strings.TrimRight(q, "\x00 \t\r\n"), " \t\r\n"))
	if !ok {
		return false, cb, nil
	}
	if sqlengine.OperatorText(s, ts.shape) {
		return false, cb, nil
	}
	k := s.GetCurrentDatabase() + "\x00" + ts.shape
	plan, known := e.texts.get(c.ConnectionID, k)
	if known {
		switch e.fastGate(s, plan.head) {
		case "":
		case refuseOff:
			return false, cb, nil
		default:
			known = false
			if plan.any() {
				e.fastReplans.Add(1)
				plan = e.replan(s, ts.shape, plan)
				e.texts.put(c.ConnectionID, k, plan)
				known = true
			}
		}
	}
	if known {
		if !plan.any() {
			return false, cb, nil
		}
		one := func(r *sqltypes.Result) error { return cb(r, false) }
		if ok, err := e.execFastRead(ctx, s, plan, ts.binds, one); ok {
			return true, nil, err
		}
		if ok, err := e.execFastWrite(ctx, s, plan, ts.binds, one); ok {
			return true, nil, err
		}
		return false, cb, nil
	}
	// A new shape: a write plans now; a read once GMS sent its fields.
	head := e.headNow(s)
	if w := e.planWrite(s, ts.shape); w != nil && w.nparams == len(ts.binds) {
		plan := fastPlan{head: head, write: w}
		e.texts.put(c.ConnectionID, k, plan)
		if ok, err := e.execFastWrite(ctx, s, plan, ts.binds, func(r *sqltypes.Result) error { return cb(r, false) }); ok {
			return true, nil, err
		}
		return false, cb, nil
	}
	recorded := false
	return false, func(r *sqltypes.Result, more bool) error {
		if !recorded {
			recorded = true
			np := e.planFast(s, ts.shape, copyFields(r.Fields), len(ts.binds), false)
			np.head = head
			e.texts.put(c.ConnectionID, k, np)
		}
		return cb(r, more)
	}, nil
}

// copyFields copies a result's fields for a plan to keep (nobody mutates
// the copies).
func copyFields(fs []*querypb.Field) []*querypb.Field {
	out := make([]*querypb.Field, len(fs))
	for i, f := range fs {
		out[i] = &querypb.Field{Name: f.Name, Type: f.Type, Table: f.Table, OrgTable: f.OrgTable,
			Database: f.Database, OrgName: f.OrgName, ColumnLength: f.ColumnLength, Charset: f.Charset,
			Decimals: f.Decimals, Flags: f.Flags}
	}
	return out
}
