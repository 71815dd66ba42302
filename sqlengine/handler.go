package sqlengine

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/arith"
	"petrel/sqlengine/rewrite"
	"petrel/sqlengine/storedfn"
	"petrel/sqlengine/wire"
	"petrel/storage"
)

// errHandler wraps GMS's protocol handler so every error a client sees
// passes through clientError, the one place where error codes are fixed
// up to what MySQL clients expect.
type errHandler struct {
	mysql.Handler
	e *Engine
}

func (e *Engine) wrapHandler(h mysql.Handler) (mysql.Handler, error) {
	return &errHandler{Handler: h, e: e}, nil
}

func (h *errHandler) ConnectionClosed(c *mysql.Conn) {
	h.Handler.ConnectionClosed(c)
	h.e.connectionClosed(c.ConnectionID)
	h.forget(c)
}

func (h *errHandler) ComInitDB(c *mysql.Conn, schema string) error {
	_, end, err := h.begin(context.Background(), c)
	if err != nil {
		return err
	}
	defer end()
	return h.reply(c, h.Handler.ComInitDB(c, schema))
}

func (h *errHandler) ComQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) (err error) {
	defer h.recoverStatement(c, &err) // panics.go
	if err := h.e.checkPacket(len(q)); err != nil {
		return err
	}
	ctx, end, err := h.begin(ctx, c)
	if err != nil {
		return err
	}
	defer end()
	d, err := h.codec(c).decodeText(q)
	if err != nil {
		return h.reply(c, err)
	}
	q = d.text
	if blankQuery(q) {
		return h.reply(c, errEmptyQuery())
	}
	s := h.e.session(c.ConnectionID)
	if late := h.e.countStatement(s, c.ConnectionID, q); late != nil {
		defer late()
	}
	h.noteDiagnostics(c)
	leave, err := h.admit(ctx, c, q)
	if err != nil {
		return h.reply(c, err)
	}
	defer leave()
	ctx, stop := h.execTimeout(ctx, c, q)
	defer stop()
	cb = h.statusSpool(c, cb)
	if st, m := h.e.matchAdmin(q); st != nil {
		return h.reply(c, h.e.runAdmin(ctx, c, st, m, q, cb, false))
	}
	if sel, ok := rewrite.DoAsSelect(q); ok {
		o := &rewrite.OKInsteadOfRows{Cb: cb}
		return h.reply(c, o.Finish(h.Handler.ComQuery(ctx, c, sel, o.Spool)))
	}
	cb = textFloats(cb)
	if s == nil {
		s = h.e.session(c.ConnectionID)
	}
	if s != nil {
		handled, run, err := h.e.executor.Text(ctx, c, s, q, cb)
		if handled {
			return h.reply(c, err)
		}
		cb = run
	}
	cb = h.e.fieldsFixed(q, h.e.doubleDecimalsFixed(s, cb))
	if isShowVariables(q) {
		cb = onOffVariables(cb)
	}
	if isCall(q) {
		s, err := h.e.connSession(ctx, c, q)
		if err != nil {
			return h.reply(c, err)
		}
		o := runCall(s, func(cb mysql.ResultSpoolFn) error { return h.Handler.ComQuery(ctx, c, q, cb) })
		return h.reply(c, h.answerCall(c, q, o, false, cb))
	}
	return h.reply(c, h.Handler.ComQuery(ctx, c, q, cb))
}

func (h *errHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) (rest string, err error) {
	defer h.recoverStatement(c, &err)
	if rest, ok, err := h.nextCallResult(c, q, cb); ok {
		return rest, err
	}
	if err := h.e.checkPacket(len(q)); err != nil {
		return "", err
	}
	ctx, end, err := h.begin(ctx, c)
	if err != nil {
		return "", err
	}
	defer end()
	inner := textFloats(h.statusSpool(c, cb))
	s0 := h.e.session(c.ConnectionID)
	cb = h.e.fieldsFixed(q, h.e.doubleDecimalsFixed(s0, inner))
	// Only the first statement runs now; vitess passes the rest back, to
	// be decoded with the character set in force by then (the first may
	// be SET NAMES).
	codec := h.codec(c)
	d, err := codec.decodeText(q)
	if err != nil {
		return "", h.reply(c, err)
	}
	first, rest := splitFirst(d.text)
	if storedfn.IsCreate(d.text) {
		// A function's body holds ';'s of its own.
		n := storedfn.StatementEnd(d.text)
		first, rest = d.text[:n], strings.TrimPrefix(d.text[n:], ";")
	}
	if blankQuery(d.text) {
		return "", h.reply(c, errEmptyQuery())
	}
	s := h.e.session(c.ConnectionID)
	if late := h.e.countStatement(s, c.ConnectionID, first); late != nil {
		defer late()
	}
	h.noteDiagnostics(c)
	leave, err := h.admit(ctx, c, first)
	if err != nil {
		return "", h.reply(c, err)
	}
	defer leave()
	ctx, stop := h.execTimeout(ctx, c, first)
	defer stop()
	if st, m := h.e.matchAdmin(first); st != nil {
		if strings.TrimSpace(rest) == "" {
			rest = ""
		}
		return d.original(codec, rest), h.reply(c, h.e.runAdmin(ctx, c, st, m, first, cb, rest != ""))
	}
	if sel, ok := rewrite.DoAsSelect(first); ok {
		o := &rewrite.OKInsteadOfRows{Cb: cb}
		rest, err = h.Handler.ComMultiQuery(ctx, c, sel+";"+rest, o.Spool)
		o.More = rest != ""
		return d.original(codec, rest), h.reply(c, o.Finish(err))
	}
	if s == nil {
		s = h.e.session(c.ConnectionID)
	}
	if s != nil && strings.TrimSpace(rest) == "" {
		handled, run, err := h.e.executor.Text(ctx, c, s, first, inner)
		if handled {
			return "", h.reply(c, err)
		}
		cb = h.e.fieldsFixed(q, h.e.doubleDecimalsFixed(s, run))
	}
	if isShowVariables(first) {
		cb = onOffVariables(cb)
	}
	if isCall(first) {
		s, err := h.e.connSession(ctx, c, first)
		if err != nil {
			return "", h.reply(c, err)
		}
		o := runCall(s, func(cb mysql.ResultSpoolFn) error {
			var err error
			rest, err = h.Handler.ComMultiQuery(ctx, c, d.text, cb)
			return err
		})
		pending, err := h.queueCall(s, first, o, cb)
		rest = d.original(codec, rest)
		if pending {
			rest = pendingMarker + rest
		}
		return rest, h.reply(c, err)
	}
	rest, err = h.Handler.ComMultiQuery(ctx, c, d.text, cb)
	return d.original(codec, rest), h.reply(c, err)
}

func (h *errHandler) ComPrepare(ctx context.Context, c *mysql.Conn, q string, p *mysql.PrepareData) (_ []*querypb.Field, err error) {
	defer h.recoverStatement(c, &err)
	if err := h.e.checkPacket(len(q)); err != nil {
		return nil, err
	}
	ctx, end, err := h.begin(ctx, c)
	if err != nil {
		return nil, err
	}
	defer end()
	if len(q) > wire.MaxParams {
		// Long enough for more placeholders than vitess counts (wire.Conn
		// checks the shorter texts before vitess parses them).
		if err := h.checkPrepare(c, q); err != nil {
			return nil, err
		}
	}
	d, err := h.codec(c).decodeText(q)
	if err != nil {
		return nil, h.reply(c, err)
	}
	if d.text != q {
		// Executions re-read the statement from PrepareStmt.
		q = d.text
		if p != nil {
			p.PrepareStmt = q
		}
	}
	s := h.e.session(c.ConnectionID)
	h.e.countPrepare(s)
	if rewrite.IsDoSelect(q) {
		_, err := h.Handler.ComPrepare(ctx, c, q, p)
		return nil, h.reply(c, err) // DO has no result columns
	}
	prepare := func() ([]*querypb.Field, error) {
		f, err := h.Handler.ComPrepare(ctx, c, q, p)
		h.e.fixFields(q, f)
		return f, err
	}
	var f []*querypb.Field
	if p == nil {
		f, err = prepare()
	} else {
		f, err = h.e.executor.Prepare(c, s, q, int(p.ParamsCount), prepare)
	}
	return f, h.reply(c, err)
}

func (h *errHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, p *mysql.PrepareData, cb func(*sqltypes.Result) error) (err error) {
	defer h.recoverStatement(c, &err)
	n := 0
	for _, bv := range p.BindVars {
		n += len(bv.Value)
	}
	if err := h.e.checkPacket(n); err != nil {
		return err
	}
	ctx, end, err := h.begin(ctx, c)
	if err != nil {
		return err
	}
	defer end()
	if err := h.codec(c).decodeBindVars(p); err != nil {
		return h.reply(c, err)
	}
	leave, err := h.admit(ctx, c, p.PrepareStmt)
	if err != nil {
		return h.reply(c, err)
	}
	defer leave()
	s := h.e.session(c.ConnectionID)
	h.e.countExecute(s, p.PrepareStmt)
	if s != nil {
		s.noteDiagnostics()
	}
	// The fast reads send the fields fixed when the statement was
	// prepared (a plan keeps them) and always a result set, so their
	// callback needs neither wrapper (nor their allocations); everything
	// else gets both.
	raw := cb
	var full func(*sqltypes.Result) error
	wrapped := func() func(*sqltypes.Result) error {
		if full == nil {
			inner := h.e.binaryFieldsFixed(p.PrepareStmt, h.statusRows(c, raw))
			full = func(r *sqltypes.Result) error { arith.DecimalsAtScale(r); return inner(r) }
		}
		return full
	}
	// NOWAIT and SKIP LOCKED are honoured by GMS's plans only.
	wait := lockWaitOf(p.PrepareStmt)
	if s != nil && wait == storage.LockWaitBlock {
		if ok, err := h.e.executor.Execute(ctx, c, s, p.PrepareStmt, p.BindVars, raw, wrapped); ok {
			return h.reply(c, err)
		}
	}
	cb = wrapped()
	if s != nil {
		// Executions are not parsed again: the lock clause comes from the
		// statement GMS parsed at prepare (lockparse.go); CommandEnd clears it.
		s.lockingStmt = h.e.preparedLocking(s, p.PrepareStmt, wait)
	}
	if rewrite.IsDoSelect(p.PrepareStmt) {
		o := &rewrite.OKInsteadOfRows{Cb: func(r *sqltypes.Result, _ bool) error { return cb(r) }}
		return h.reply(c, o.Finish(h.Handler.ComStmtExecute(ctx, c, p, func(r *sqltypes.Result) error { return o.Spool(r, false) })))
	}
	if s != nil && isCall(p.PrepareStmt) {
		o := runCall(s, func(cb mysql.ResultSpoolFn) error {
			return h.Handler.ComStmtExecute(ctx, c, p, func(r *sqltypes.Result) error { return cb(r, false) })
		})
		return h.reply(c, h.answerCall(c, p.PrepareStmt, o, true, func(r *sqltypes.Result, _ bool) error { return cb(r) }))
	}
	return h.reply(c, h.Handler.ComStmtExecute(ctx, c, p, cb))
}

func (h *errHandler) ComParsedQuery(ctx context.Context, c *mysql.Conn, q string, parsed ast.Statement, cb mysql.ResultSpoolFn) error {
	ctx, end, err := h.begin(ctx, c)
	if err != nil {
		return err
	}
	defer end()
	cb = h.statusSpool(c, cb)
	if x, ok := h.Handler.(mysql.ExtendedHandler); ok {
		return h.reply(c, x.ComParsedQuery(ctx, c, q, parsed, cb))
	}
	return h.reply(c, h.Handler.ComQuery(ctx, c, q, cb))
}

func (h *errHandler) ComPrepareParsed(ctx context.Context, c *mysql.Conn, q string, parsed ast.Statement, p *mysql.PrepareData) (mysql.ParsedQuery, []*querypb.Field, error) {
	ctx, end, err := h.begin(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	defer end()
	if x, ok := h.Handler.(mysql.ExtendedHandler); ok {
		pq, f, err := x.ComPrepareParsed(ctx, c, q, parsed, p)
		return pq, f, h.reply(c, err)
	}
	return nil, nil, errors.New("prepare of parsed statements is not supported")
}

func (h *errHandler) ComExecuteBound(ctx context.Context, c *mysql.Conn, q string, bound mysql.BoundQuery, cb mysql.ResultSpoolFn) error {
	ctx, end, err := h.begin(ctx, c)
	if err != nil {
		return err
	}
	defer end()
	cb = h.statusSpool(c, cb)
	if x, ok := h.Handler.(mysql.ExtendedHandler); ok {
		return h.reply(c, x.ComExecuteBound(ctx, c, q, bound, cb))
	}
	return errors.New("execute of bound statements is not supported")
}

func (h *errHandler) ComBind(ctx context.Context, c *mysql.Conn, q string, pq mysql.ParsedQuery, p *mysql.PrepareData) (mysql.BoundQuery, []*querypb.Field, error) {
	ctx, end, err := h.begin(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	defer end()
	if x, ok := h.Handler.(mysql.ExtendedHandler); ok {
		bq, f, err := x.ComBind(ctx, c, q, pq, p)
		return bq, f, h.reply(c, err)
	}
	return nil, nil, errors.New("bind is not supported")
}

// checkPacket enforces max_allowed_packet on statement text and bound
// values (the protocol layer reads any size).
func (e *Engine) checkPacket(n int) error {
	if n <= minAllowedPacket {
		return nil // within every max_allowed_packet: no lookup per statement
	}
	limit := 64 << 20
	if x := e.globals.Int("max_allowed_packet", 0); x > 0 {
		limit = int(x)
	}
	if n > limit {
		return mysqlerr.New(mysqlerr.ErNetPacketTooLarge, "Got a packet bigger than 'max_allowed_packet' bytes")
	}
	return nil
}

// minAllowedPacket is max_allowed_packet's smallest value (MySQL's).
const minAllowedPacket = 1024

// textFloats rewrites DOUBLE/FLOAT values of text-protocol results the way
// MySQL prints them (1234567, not 1.234567e+06).
// isShowVariables matches SHOW [GLOBAL|SESSION] VARIABLES ....
func isShowVariables(q string) bool {
	f := firstWords(q, 3)
	if len(f) < 2 || f[0] != "SHOW" {
		return false
	}
	if f[1] == "GLOBAL" || f[1] == "SESSION" || f[1] == "LOCAL" {
		f = f[1:]
	}
	return len(f) >= 2 && strings.HasPrefix(f[1], "VARIABLES")
}

// onOffVariables shows boolean system variables as MySQL does (ON/OFF);
// go-mysql-server shows 1/0.
func onOffVariables(cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	return func(res *sqltypes.Result, more bool) error {
		if len(res.Fields) == 2 {
			for _, row := range res.Rows {
				if len(row) != 2 || row[1].IsNull() {
					continue
				}
				sv, _, ok := sql.SystemVariables.GetGlobal(row[0].ToString())
				if !ok || !isBoolType(sv.GetType()) {
					continue
				}
				switch row[1].ToString() {
				case "1":
					row[1] = sqltypes.MakeTrusted(row[1].Type(), []byte("ON"))
				case "0":
					row[1] = sqltypes.MakeTrusted(row[1].Type(), []byte("OFF"))
				}
			}
		}
		return cb(res, more)
	}
}

// It also writes YEAR 0 as MySQL does: 0000 (GMS writes 0).
func textFloats(cb mysql.ResultSpoolFn) mysql.ResultSpoolFn {
	return func(res *sqltypes.Result, more bool) error {
		var cols []int
		for i, f := range res.Fields {
			if f.Type == sqltypes.Float64 || f.Type == sqltypes.Float32 || f.Type == sqltypes.Year {
				cols = append(cols, i)
			}
		}
		arith.DecimalsAtScale(res)
		timeAtPrecision(res)
		if len(cols) > 0 {
			for _, row := range res.Rows {
				for _, i := range cols {
					if i >= len(row) || row[i].IsNull() {
						continue
					}
					if res.Fields[i].Type == sqltypes.Year {
						if b := row[i].ToBytes(); len(b) == 1 && b[0] == '0' {
							row[i] = sqltypes.MakeTrusted(sqltypes.Year, []byte("0000"))
						}
						continue
					}
					if d := res.Fields[i].Decimals; d > 0 && d < notFixedDec {
						// FLOAT(M,D) and DOUBLE(M,D): D digits (floatdigits.go).
						// (0 is also a field nobody fixed, a CALL's: its
						// values print as GMS's; a D of 0 stores integers.)
						row[i] = sqltypes.MakeTrusted(row[i].Type(), fixedDecimals(row[i].ToBytes(), res.Fields[i].Type == sqltypes.Float32, int(d)))
						continue
					}
					row[i] = sqltypes.MakeTrusted(row[i].Type(), mysqlFloat(row[i].ToBytes(), res.Fields[i].Type == sqltypes.Float32))
				}
			}
		}
		return cb(res, more)
	}
}

// mysqlFloat formats a float as MySQL does. A DOUBLE takes my_gcvt's
// choice for the protocol's field width (34; 33 for a negative value)
// over its shortest digits: plain digits when they fit the width, the
// decimal point is at most 15 places right of the first digit (or inside
// the digits) and the first digit at most 14 places right of the point;
// exponent form otherwise (1e15, 1e-16; GMS's 1e+15). A FLOAT keeps six
// significant digits, plain while its exponent is within [-5, 15).
func mysqlFloat(b []byte, f32 bool) []byte {
	bits := 64
	if f32 {
		bits = 32
	}
	f, err := strconv.ParseFloat(string(b), bits)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return b
	}
	if f == 0 {
		return []byte("0")
	}
	var plain bool
	if f32 {
		// A FLOAT shows FLT_DIG (6) significant digits, as MySQL's
		// my_gcvt: 123456789 reads 123457000, 3.402823466e38 3.40282e+38.
		f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'e', 5, 64), 64)
		bits = 64
		exp := int(math.Floor(math.Log10(math.Abs(f))))
		plain = exp >= -5 && exp < 15
	} else {
		plain = gcvtPlain(f)
	}
	if plain {
		return strconv.AppendFloat(nil, f, 'f', -1, bits)
	}
	s := strconv.FormatFloat(f, 'e', -1, bits)
	// MySQL writes 1e20 and 1.5e-7: no '+', no leading exponent zeros.
	mant, e, _ := strings.Cut(s, "e")
	e = strings.TrimPrefix(e, "+")
	neg := strings.HasPrefix(e, "-")
	e = strings.TrimLeft(strings.TrimPrefix(e, "-"), "0")
	if neg {
		e = "-" + e
	} else if f32 {
		e = "+" + e // a FLOAT's positive exponent is signed (MariaDB's output; MySQL's my_gcvt)
	}
	return []byte(mant + "e" + e)
}

// gcvtPlain reports whether my_gcvt writes the DOUBLE f in plain digits
// at the text protocol's width (MY_GCVT_MAX_FIELD_WIDTH, 34): its 'f'
// form fits, and the decimal point is within MAX_DECPT_FOR_F_FORMAT (15)
// places of the first digit, or inside the digits.
func gcvtPlain(f float64) bool {
	s := strconv.FormatFloat(math.Abs(f), 'e', -1, 64) // d.ddddde±x, the shortest digits
	mant, e, _ := strings.Cut(s, "e")
	exp, err := strconv.Atoi(e)
	if err != nil {
		return false
	}
	n := len(strings.Replace(mant, ".", "", 1)) // significant digits
	decpt := exp + 1                            // digits before the point
	width := 34
	if f < 0 {
		width--
	}
	var flen int // the 'f' form's length
	switch {
	case decpt <= 0:
		flen = n - decpt + 2
	case decpt < n:
		flen = n + 1
	default:
		flen = decpt
	}
	const maxDecpt = 15 // MAX_DECPT_FOR_F_FORMAT, DBL_DIG
	return flen <= width && decpt >= -maxDecpt+1 && (decpt <= maxDecpt || n > decpt)
}

// blankQuery reports whether statement text q is empty: nothing but
// white space, which MySQL refuses with ER_EMPTY_QUERY (1065); GMS
// answered OK. A text holding a comment is not empty (MySQL answers OK).
func blankQuery(q string) bool {
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case ' ', '\t', '\r', '\n', '\f', '\v':
		default:
			return false
		}
	}
	return true
}

func errEmptyQuery() error { return mysqlerr.New(mysqlerr.ErEmptyQuery, "Query was empty") }
