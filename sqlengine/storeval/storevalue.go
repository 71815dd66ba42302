package storeval

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/shopspring/decimal"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/arith"
	"petrel/sqlengine/sqlerr"
	"petrel/sqlengine/sqlmode"
)

// MySQL 8's rules for storing a value into a column, applied before GMS's
// own conversion on the write path (an INSERT's or REPLACE's rows, an
// UPDATE's SET values): in strict mode (STRICT_TRANS_TABLES or
// STRICT_ALL_TABLES, without IGNORE) a value the column cannot hold
// exactly is an error with MySQL's number; otherwise it is clipped or
// truncated to what the column holds, with MySQL's warning. The value
// returned is one GMS's conversion then takes as it is.
//
// Covered: integers (signed and unsigned, every width), DECIMAL,
// FLOAT/DOUBLE, YEAR, BIT, ENUM, SET, character strings (length in
// characters), DATE/DATETIME/TIMESTAMP (NO_ZERO_DATE, NO_ZERO_IN_DATE,
// invalid days) and TIME (its range)
// from numbers and strings (storetypes.go). Other types and values (JSON,
// binary strings, geometry, time.Time values) go to GMS's conversion
// unchanged.

// Mode is how a statement stores values.
type Mode struct {
	Strict bool // errors instead of clipping (strict sql_mode, no IGNORE)
	// exact: any value not stored exactly is an error, notes included
	// (the fast write paths ask so, and leave anything else to GMS).
	Exact bool
}

func storeModeOf(ctx *sql.Context, ignore bool) Mode {
	m := sqlmode.Load(ctx)
	return Mode{Strict: !ignore && (m.ModeEnabled("STRICT_TRANS_TABLES") || m.ModeEnabled("STRICT_ALL_TABLES"))}
}

// storeError is MySQL's error for a value a column refuses.
func storeError(num int, msg string, args ...any) error {
	return mysqlerr.New(num, msg, args...)
}

// Value converts v for column col (rowNum counts from 1), under m.
func Value(ctx *sql.Context, m Mode, col *sql.Column, v any, rowNum int) (any, error) {
	if v == nil {
		return nil, nil
	}
	for _, st := range storers {
		if st.is(col.Type) {
			return st.store(ctx, m, col, v, rowNum)
		}
	}
	return v, nil
}

// storers are storeValue's rules by column type, the first that matches
// applying (YEAR before the integers it is one of).
var storers = []struct {
	is    func(sql.Type) bool
	store func(*sql.Context, Mode, *sql.Column, any, int) (any, error)
}{
	{types.IsYear, storeYear},
	{types.IsInteger, storeInteger},
	{types.IsEnum, storeEnum},
	{types.IsSet, storeSet},
	{types.IsText, storeText},
	{types.IsDecimal, storeDecimal},
	{types.IsFloat, storeFloat},
	{types.IsBit, storeBit},
	{types.IsTimespan, storeTime},
	{types.IsTime, storeDate},
}

// warnOrFail is the strict/non-strict fork: an error in strict mode,
// else a warning and the substitute value.
func warnOrFail(ctx *sql.Context, m Mode, num int, substitute any, msg string) (any, error) {
	if m.Strict {
		return nil, storeError(num, "%s", msg)
	}
	ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: num, Message: msg})
	return substitute, nil
}

// intBits is an integer column's width in bits.
func intBits(col *sql.Column) uint {
	switch col.Type.Type() {
	case sqltypes.Int8, sqltypes.Uint8:
		return 8
	case sqltypes.Int16, sqltypes.Uint16:
		return 16
	case sqltypes.Int24, sqltypes.Uint24:
		return 24
	case sqltypes.Int32, sqltypes.Uint32:
		return 32
	}
	return 64
}

// intBounds are an integer column's bounds, from intBoundTable (a
// decimal power of two per stored value was a fifth of a bulk INSERT's
// time when its values came as DECIMALs).
func intBounds(col *sql.Column) (lo, hi decimal.Decimal, unsigned bool) {
	unsigned = types.IsUnsigned(col.Type)
	b := intBoundTable[intBits(col)]
	if unsigned {
		return decimal.Zero, b.umax, true
	}
	return b.min, b.max, false
}

type intBound struct{ min, max, umax decimal.Decimal }

// intBoundTable holds the bounds of each integer width (8 to 64 bits);
// it is computed once and only read.
var intBoundTable = func() (t [65]intBound) {
	two := decimal.NewFromInt(2)
	for _, bits := range []int32{8, 16, 24, 32, 64} {
		h := two.Pow(decimal.NewFromInt32(bits - 1))
		t[bits] = intBound{min: h.Neg(), max: h.Sub(decimal.NewFromInt(1)), umax: two.Pow(decimal.NewFromInt32(bits)).Sub(decimal.NewFromInt(1))}
	}
	return t
}()

func storeInteger(ctx *sql.Context, m Mode, col *sql.Column, v any, rowNum int) (any, error) {
	var d decimal.Decimal
	switch x := v.(type) {
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint, uint64:
		if fitsInteger(col, x) {
			return v, nil // the common case: no decimal arithmetic
		}
		d, _ = decimal.NewFromString(fmt.Sprint(x))
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case float32:
		// A FLOAT or DOUBLE rounds half to even, as MySQL's rint: 2.5e0
		// is stored as 2 (a DECIMAL's 2.5 as 3).
		d = decimal.NewFromFloat(math.RoundToEven(float64(x)))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return v, nil
		}
		d = decimal.NewFromFloat(math.RoundToEven(x))
	case decimal.Decimal:
		d = x
	case string:
		var ok bool
		var truncated bool
		d, ok, truncated = parseNumberPrefix(x)
		if !ok {
			return warnOrFail(ctx, m, mysqlerr.ErTruncatedWrongValue, int64(0),
				fmt.Sprintf("Incorrect integer value: '%s' for column '%s' at row %d", x, col.Name, rowNum))
		}
		if truncated {
			if m.Strict {
				return nil, storeError(mysqlerr.ErWarnDataTruncated, "Data truncated for column '%s' at row %d", col.Name, rowNum)
			}
			ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErWarnDataTruncated,
				Message: fmt.Sprintf("Data truncated for column '%s' at row %d", col.Name, rowNum)})
		}
	case []byte:
		// A hexadecimal or bit literal stored into a numeric column is
		// a number (X'41' is 65), big-endian, as MySQL stores it.
		if len(x) > 8 {
			d = decimal.New(1, 20) // beyond every integer column
			break
		}
		var u uint64
		for _, b := range x {
			u = u<<8 | uint64(b)
		}
		d = decimal.NewFromBigInt(new(big.Int).SetUint64(u), 0)
	default:
		return v, nil
	}
	d = d.Round(0)
	lo, hi, unsigned := intBounds(col)
	msg := fmt.Sprintf("Out of range value for column '%s' at row %d", col.Name, rowNum)
	switch {
	case d.LessThan(lo):
		if _, err := warnOrFail(ctx, m, mysqlerr.ErWarnDataOutOfRange, nil, msg); err != nil {
			return nil, err
		}
		d = lo
	case d.GreaterThan(hi):
		if _, err := warnOrFail(ctx, m, mysqlerr.ErWarnDataOutOfRange, nil, msg); err != nil {
			return nil, err
		}
		d = hi
	}
	if unsigned {
		return d.BigInt().Uint64(), nil
	}
	return d.IntPart(), nil
}

// fitsInteger reports whether a Go integer fits col without conversion.
func fitsInteger(col *sql.Column, v any) bool {
	n, big, u, ok := arith.IntOperand(v)
	if !ok {
		return false
	}
	neg := false
	if n < 0 {
		neg = true
	} else if !big {
		u = uint64(n)
	}
	bits := intBits(col)
	if types.IsUnsigned(col.Type) {
		return !neg && (bits == 64 || u <= 1<<bits-1)
	}
	if neg {
		return bits == 64 || n >= -(1<<(bits-1))
	}
	return u <= 1<<(bits-1)-1
}

// parseNumberPrefix reads a number at the start of s as MySQL does when
// it converts a string to a number: leading spaces, a sign, digits, a
// fraction, an exponent. ok is false when there is no number at all;
// truncated when something other than spaces follows it.
func parseNumberPrefix(s string) (d decimal.Decimal, ok, truncated bool) {
	start, end, ok := arith.NumberSpan(s)
	if !ok {
		return decimal.Zero, false, false
	}
	d, err := decimal.NewFromString(strings.TrimPrefix(s[start:end], "+"))
	if err != nil {
		return decimal.Zero, false, false
	}
	rest := strings.TrimRight(s[end:], " \t\n\r")
	return d, true, rest != ""
}

func storeText(ctx *sql.Context, m Mode, col *sql.Column, v any, rowNum int) (any, error) {
	st, ok := col.Type.(sql.StringType)
	if !ok {
		return v, nil
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case int8, int16, int32, int64, int, uint8, uint16, uint32, uint, uint64:
		s = fmt.Sprint(x)
	case decimal.Decimal:
		s = x.String()
	case types.Timespan:
		// A TIME value as its text (GMS's string conversion has no case
		// for it: INSERT ... SELECT of a TIME column into a VARCHAR failed).
		s = x.String()
	case []byte:
		// A binary string (0xB1, X'..', a BLOB) is the column's bytes, as
		// MySQL reads it: into a single-byte set's column each byte is
		// that set's character (GMS kept the bytes as UTF-8 text, and
		// every byte >= 0x80 failed with 1366). UTF-8 columns check the
		// bytes as they are.
		cs := st.CharacterSet()
		if cs.MaxLength() != 1 || cs == sql.CharacterSet_binary || cs.Encoder() == nil {
			return v, nil
		}
		dec, ok := cs.Encoder().Decode(x)
		if !ok {
			return v, nil
		}
		s = string(dec)
	default:
		return v, nil
	}
	if col.Type.Type() == sqltypes.Char {
		// CHAR values are stored without trailing spaces (MySQL pads
		// them on disk and strips them when read, unless
		// PAD_CHAR_TO_FULL_LENGTH, which Petrel does not offer).
		s = strings.TrimRight(s, " ")
	}
	if cs := st.CharacterSet(); cs != sql.CharacterSet_utf8mb4 && cs != sql.CharacterSet_binary {
		var err error
		if s, err = representable(ctx, m, col, cs, s, rowNum); err != nil {
			return nil, err
		}
	}
	max := st.MaxCharacterLength()
	if max <= 0 || int64(len(s)) <= max || int64(utf8.RuneCountInString(s)) <= max {
		return s, nil
	}
	// Too long: trailing spaces cut off are only a note in MySQL.
	cut := s
	n := int64(0)
	for i := range s {
		if n == max {
			cut = s[:i]
			break
		}
		n++
	}
	if strings.TrimRight(s[len(cut):], " ") == "" && !m.Exact {
		ctx.Session.Warn(&sql.Warning{Level: "Note", Code: mysqlerr.ErWarnDataTruncated,
			Message: fmt.Sprintf("Data truncated for column '%s' at row %d", col.Name, rowNum)})
		return cut, nil
	}
	if m.Strict {
		return nil, storeError(mysqlerr.ErDataTooLong, "Data too long for column '%s' at row %d", col.Name, rowNum)
	}
	ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErWarnDataTruncated,
		Message: fmt.Sprintf("Data truncated for column '%s' at row %d", col.Name, rowNum)})
	return cut, nil
}

// representable is s with each character the column's character set
// cannot hold replaced by '?' and warning 1366, as MySQL stores it
// outside strict mode; in strict mode it is error 1366.
func representable(ctx *sql.Context, m Mode, col *sql.Column, cs sql.CharacterSetID, s string, rowNum int) (string, error) {
	enc := cs.Encoder()
	if enc == nil {
		return s, nil
	}
	if _, ok := enc.Encode([]byte(s)); ok {
		return s, nil
	}
	bad := s
	for i, r := range s {
		if _, ok := enc.EncodeRune([]byte(string(r))); !ok {
			bad = s[i:]
			break
		}
	}
	msg := fmt.Sprintf("Incorrect string value: '%s' for column '%s' at row %d", sqlerr.EscapeHex(bad, 6), col.Name, rowNum)
	if m.Strict {
		return "", storeError(mysqlerr.ErTruncatedWrongValue, "%s", msg)
	}
	ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErTruncatedWrongValue, Message: msg})
	var b strings.Builder
	for _, r := range s {
		if _, ok := enc.EncodeRune([]byte(string(r))); ok {
			b.WriteRune(r)
		} else {
			b.WriteByte('?')
		}
	}
	return b.String(), nil
}

// Source stands between an INSERT (or REPLACE) and its rows: each
// row's values are stored by storeValue into the destination's columns
// before GMS's insert iterator converts them.
type Source struct {
	child  sql.Node
	schema sql.Schema
	ignore bool
	// several: the statement stores more than one row (a multi-row
	// VALUES or INSERT ... SELECT), where a NULL for a NOT NULL column
	// is its implicit default outside strict mode (NullForNotNull).
	several bool
}

var _ sql.Node = (*Source)(nil)

func (s *Source) Resolved() bool       { return s.child.Resolved() }
func (s *Source) String() string       { return s.child.String() }
func (s *Source) Schema() sql.Schema   { return s.child.Schema() }
func (s *Source) Children() []sql.Node { return []sql.Node{s.child} }
func (s *Source) IsReadOnly() bool     { return s.child.IsReadOnly() }

func (s *Source) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 1 {
		return nil, fmt.Errorf("sqlengine: store source takes 1 child, got %d", len(children))
	}
	c := *s
	c.child = children[0]
	return &c, nil
}

// BuildInsert builds an INSERT into a Petrel table with its rows
// behind storeSource; (nil, nil) lets GMS build the node as it is.
// petrel reports a Petrel table (GMS's own tables keep its conversion).
func BuildInsert(ctx *sql.Context, exec sql.NodeExecBuilder, petrel func(sql.Table) bool, n *plan.InsertInto, row sql.Row) (sql.RowIter, error) {
	if _, done := n.Source.(*Source); done {
		return nil, nil
	}
	ins, err := plan.GetInsertable(n.Destination)
	if err != nil {
		return nil, nil
	}
	if !petrel(sql.GetUnderlyingTable(ins)) {
		return nil, nil
	}
	// AUTO_INCREMENT values as MySQL takes them (autoinc.go).
	src := checkedAutoIncrement(ctx, n.Source, n.Destination.Schema(), sql.GetUnderlyingTable(ins), n.Ignore)
	nn := n.WithSource(&Source{child: src, schema: n.Destination.Schema(), ignore: n.Ignore, several: severalRows(n.Source)})
	if wide, ok := widenSchema(n.Destination.Schema()); ok {
		// Lengths in characters for single-byte character sets
		// (storetarget.go).
		nn.Destination = &insertTarget{child: n.Destination, table: ins, schema: wide}
	}
	return exec.Build(ctx, nn, row)
}

type storeIter struct {
	child   sql.RowIter
	schema  sql.Schema
	mode    Mode
	n       int
	several bool
}

func BuildSource(ctx *sql.Context, exec sql.NodeExecBuilder, s *Source, row sql.Row) (sql.RowIter, error) {
	it, err := exec.Build(ctx, s.child, row)
	if err != nil {
		return nil, err
	}
	return &storeIter{child: it, schema: s.schema, mode: storeModeOf(ctx, s.ignore), several: s.several}, nil
}

// severalRows reports an INSERT source of more than one row: a VALUES
// list of several rows, or any query.
func severalRows(src sql.Node) bool {
	for {
		switch n := src.(type) {
		case *plan.Values:
			return len(n.ExpressionTuples) > 1
		case *plan.Project:
			if _, ok := n.Child.(*plan.Values); ok {
				src = n.Child
				continue
			}
			return true
		default:
			return true
		}
	}
}

// NullForNotNull is MySQL's rule for a NULL stored into a NOT NULL
// column outside strict mode (or with IGNORE): in an UPDATE, or an
// INSERT of several rows (VALUES lists, INSERT ... SELECT), the column
// takes its type's implicit default, with warning 1048; a single-row
// INSERT, and strict mode, keep the error (GMS's, 1048). AUTO_INCREMENT
// and TIMESTAMP columns keep GMS's handling (a NULL there means the next
// value or the current time). ok is false when v stays NULL.
func NullForNotNull(ctx *sql.Context, m Mode, col *sql.Column, several bool) (any, bool) {
	if m.Strict || !several || col.Nullable || col.AutoIncrement || types.IsTimestampType(col.Type) {
		return nil, false
	}
	ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErBadNull, Message: fmt.Sprintf("Column '%s' cannot be null", col.Name)})
	return col.Type.Zero(), true
}

func (it *storeIter) Next(ctx *sql.Context) (sql.Row, error) {
	row, err := it.child.Next(ctx)
	if err != nil {
		return row, err
	}
	it.n++
	if len(row) < len(it.schema) {
		return row, nil
	}
	off := len(row) - len(it.schema)
	out := row
	for i, col := range it.schema {
		v := row[off+i]
		if v == nil {
			if z, ok := NullForNotNull(ctx, it.mode, col, it.several); ok {
				if &out[0] == &row[0] {
					out = row.Copy()
				}
				out[off+i] = z
			}
			continue
		}
		nv, err := Value(ctx, it.mode, col, v, it.n)
		if err != nil {
			return nil, err
		}
		if !sameValue(nv, v) {
			if &out[0] == &row[0] {
				out = row.Copy()
			}
			out[off+i] = nv
		}
	}
	return out, nil
}

// sameValue reports whether storeValue left v as it was (values of
// types that cannot be compared count as changed).
func sameValue(a, b any) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

func (it *storeIter) Close(ctx *sql.Context) error { return it.child.Close(ctx) }

// storeExpr is an UPDATE's SET value stored into its column by
// Value before GMS's SetField converts it.
type storeExpr struct {
	child  sql.Expression
	col    *sql.Column
	idx    int // the column's place in the row
	ignore bool
}

var _ sql.Expression = (*storeExpr)(nil)

func (s *storeExpr) Resolved() bool             { return s.child.Resolved() }
func (s *storeExpr) String() string             { return s.child.String() }
func (s *storeExpr) Type() sql.Type             { return s.child.Type() }
func (s *storeExpr) IsNullable() bool           { return s.child.IsNullable() }
func (s *storeExpr) Children() []sql.Expression { return []sql.Expression{s.child} }

func (s *storeExpr) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(s, len(children), 1)
	}
	c := *s
	c.child = children[0]
	return &c, nil
}

func (s *storeExpr) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := s.child.Eval(ctx, row)
	if err != nil {
		return v, err
	}
	if v == nil {
		// An UPDATE's NULL for a NOT NULL column, outside strict mode.
		if z, ok := NullForNotNull(ctx, storeModeOf(ctx, s.ignore), s.col, true); ok {
			return z, nil
		}
		return nil, nil
	}
	if s.ignore && types.IsJSON(s.col.Type) && s.idx < len(row) {
		// UPDATE IGNORE of a text that is no JSON document keeps the
		// row's value, with the warning (GMS stores NULL and counts no
		// change).
		if _, _, err := s.col.Type.Convert(ctx, v); err != nil {
			msg := err.Error()
			if !strings.HasPrefix(msg, "Invalid JSON text") {
				msg = "Invalid JSON text: " + msg
			}
			ctx.Session.Warn(&sql.Warning{Level: "Warning", Code: mysqlerr.ErInvalidJSONText, Message: msg})
			return row[s.idx], nil
		}
	}
	return Value(ctx, storeModeOf(ctx, s.ignore), s.col, v, 1)
}

// Update gives an UPDATE's SET values of a Petrel table storeValue's
// rules; it returns n unchanged when there is nothing to give them to.
func Update(n *plan.Update, sch sql.Schema) sql.Node {
	out, _, err := transform.Node(n.Child, func(c sql.Node) (sql.Node, transform.TreeIdentity, error) {
		us, ok := c.(*plan.UpdateSource)
		if !ok {
			return c, transform.SameTree, nil
		}
		exprs := make([]sql.Expression, len(us.UpdateExprs))
		changed := false
		for i, e := range us.UpdateExprs {
			exprs[i] = e
			sf, ok := e.(*expression.SetField)
			if !ok {
				continue
			}
			gf, ok := sf.LeftChild.(*expression.GetField)
			if !ok || gf.Index() < 0 || gf.Index() >= len(sch) {
				continue
			}
			if _, done := sf.RightChild.(*storeExpr); done {
				continue
			}
			if _, isDefault := sf.RightChild.(*sql.ColumnDefaultValue); isDefault {
				continue
			}
			exprs[i] = expression.NewSetField(widenGetField(gf), &storeExpr{child: sf.RightChild, col: sch[gf.Index()], idx: gf.Index(), ignore: us.Ignore})
			changed = true
		}
		if !changed {
			return c, transform.SameTree, nil
		}
		nus := *us
		nus.UpdateExprs = exprs
		return &nus, transform.NewTree, nil
	})
	if err != nil {
		return n
	}
	nn, err := n.WithChildren(out)
	if err != nil {
		return n
	}
	return nn
}
