package fastpath

import (
	"bytes"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/sqltypes"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"

	"petrel/storage"
)

// Primary-key conditions of the fast paths. A statement reaches rows by
// its whole primary key, every key column an integer, in one of the forms
// applications and benchmarks write (TPC-C's are all of them):
//
//	WHERE k1 = ? AND k2 = ? [AND ...]            (any order, each key column once)
//	WHERE (k1, k2, ...) IN ((?, ?, ...), ...)    (the columns in any order)
//	WHERE k IN (?, ...)                          (a one-column key)
//
// keyCond turns them into the parameters of each key, in the key's column
// order; the fast paths then read or lock exactly those rows, as InnoDB's
// eq_ref / range access over the primary key does. UPDATE and DELETE
// also take the leading columns of the key in the same forms
// (keyPrefixCond: TPC-C's DELIVERY updates an order's lines by
// (ol_w_id, ol_d_id, ol_o_id) of the key (ol_w_id, ol_d_id, ol_o_id,
// ol_number)); each prefix is then a range of the primary key, read and
// locked in key order, InnoDB's range access.

// keyParams are the parameter indexes (0-based, the statement's ?s in
// text order) of one key, in primary-key column order.
type keyParams []int

// paramIndex reads a placeholder: GMS names a prepared statement's ?s
// :v1, :v2, ... in text order.
func paramIndex(x ast.Expr) (int, bool) {
	v, ok := x.(*ast.SQLVal)
	if !ok || v.Type != ast.ValArg || len(v.Val) < 3 || v.Val[0] != ':' || v.Val[1] != 'v' {
		return 0, false
	}
	n, err := strconv.Atoi(string(v.Val[2:]))
	if err != nil || n < 1 {
		return 0, false
	}
	return n - 1, true
}

// intKey reports whether st's primary key is one the fast paths address:
// visible, one or more integer columns.
func intKey(st *storage.Table) bool {
	if st == nil || st.Hidden || len(st.Def.PK) == 0 || len(st.PKTypes) != len(st.Def.PK) {
		return false
	}
	for _, t := range st.PKTypes {
		if !isIntType(t) {
			return false
		}
	}
	return true
}

// keyPosition is the position in st's primary key of the column c names
// (ours says whether c's qualifier names the statement's table); -1 when
// it is no key column.
func keyPosition(st *storage.Table, c *ast.ColName, ours func(*ast.ColName) bool) int {
	if !ours(c) {
		return -1
	}
	for i, o := range st.Def.PK {
		if strings.EqualFold(st.Schema[o].Name, c.Name.String()) {
			return i
		}
	}
	return -1
}

// keyCond recognises where as whole primary keys of st given by
// parameters; nil when it is not such a condition.
func keyCond(where ast.Expr, st *storage.Table, ours func(*ast.ColName) bool) []keyParams {
	return keyCondOf(where, st, ours, false)
}

// keyPrefixCond is keyCond that also takes the leading columns of the
// key (every key of the result has the same length, 1 to the whole key).
func keyPrefixCond(where ast.Expr, st *storage.Table, ours func(*ast.ColName) bool) []keyParams {
	return keyCondOf(where, st, ours, true)
}

func keyCondOf(where ast.Expr, st *storage.Table, ours func(*ast.ColName) bool, prefix bool) []keyParams {
	if !intKey(st) {
		return nil
	}
	n := len(st.Def.PK)
	for {
		p, ok := where.(*ast.ParenExpr)
		if !ok {
			break
		}
		where = p.Expr
	}
	if cmp, ok := where.(*ast.ComparisonExpr); ok && cmp.Operator == ast.InStr {
		return keyList(cmp, st, ours, prefix)
	}
	// A conjunction of col = ? naming exactly the key's columns (or,
	// with prefix, its first len(eq)).
	eq := map[int]int{}
	if !equalities(where, st, ours, eq) || len(eq) > n || (len(eq) < n && !prefix) {
		return nil
	}
	key := make(keyParams, len(eq))
	for i, o := range st.Def.PK[:len(eq)] {
		idx, ok := eq[o]
		if !ok {
			return nil
		}
		key[i] = idx
	}
	return []keyParams{key}
}

// keyList is keyCond's IN form.
func keyList(cmp *ast.ComparisonExpr, st *storage.Table, ours func(*ast.ColName) bool, prefix bool) []keyParams {
	var cols []ast.Expr
	switch l := cmp.Left.(type) {
	case ast.ValTuple:
		cols = l
	case *ast.ColName:
		cols = []ast.Expr{l}
	default:
		return nil
	}
	n := len(cols)
	if n > len(st.Def.PK) || (n < len(st.Def.PK) && !prefix) {
		return nil
	}
	order := make([]int, n) // tuple position -> key position
	seen := make([]bool, n)
	for i, x := range cols {
		c, ok := x.(*ast.ColName)
		if !ok {
			return nil
		}
		pos := keyPosition(st, c, ours)
		if pos < 0 || pos >= n || seen[pos] {
			return nil
		}
		seen[pos], order[i] = true, pos
	}
	list, ok := cmp.Right.(ast.ValTuple)
	if !ok || len(list) == 0 {
		return nil
	}
	var out []keyParams
	for _, item := range list {
		vals := []ast.Expr{item}
		if t, ok := item.(ast.ValTuple); ok {
			vals = t
		} else if n != 1 {
			return nil
		}
		if len(vals) != n {
			return nil
		}
		key := make(keyParams, n)
		for i, v := range vals {
			idx, ok := paramIndex(v)
			if !ok {
				return nil
			}
			key[order[i]] = idx
		}
		out = append(out, key)
	}
	return out
}

// countParams is the number of distinct parameters keys name.
func countParams(keys []keyParams) int {
	n := 0
	for _, k := range keys {
		for _, p := range k {
			n = max(n, p+1)
		}
	}
	return n
}

// encodeKeys makes the storage keys of keys from the statement's
// parameters, each value converted to its key column's type (conv, as
// the statement's own comparison would), in key order without
// duplicates: the order InnoDB reads and locks an IN list in. ok=false
// when a value does not convert exactly (GMS answers then).
func encodeKeys(st *storage.Table, keys []keyParams, conv func(pos int, v any) (any, bool), param func(int) (any, bool)) ([][]byte, bool) {
	out := make([][]byte, 0, len(keys))
	for _, k := range keys {
		b := st.IndexKeyPrefix(0)
		for pos, idx := range k {
			v, ok := param(idx)
			if !ok || v == nil {
				return nil, false
			}
			if v, ok = conv(pos, v); !ok {
				return nil, false
			}
			var err error
			if b, err = st.AppendKey(b, st.PKTypes[pos], v); err != nil {
				return nil, false
			}
		}
		out = append(out, b)
	}
	if len(out) > 1 {
		slices.SortFunc(out, bytes.Compare)
		out = slices.CompactFunc(out, bytes.Equal)
	}
	return out, true
}

// Arithmetic of the UPDATE fast path's SET clauses (c = c + x, c = c - x,
// c = ? + lit), with MySQL's result types: DOUBLE when either side is
// a float or a string (read as a number), DECIMAL when either is a
// DECIMAL, BIGINT otherwise. The sum is then stored as any value is
// (convert); what MySQL would round or clip goes to GMS.

// numeric classifies v for arithmetic.
func numeric(v any) (i int64, d decimal.Decimal, f float64, kind byte, ok bool) {
	switch x := v.(type) {
	case int8, int16, int32, int64, int, uint8, uint16, uint32:
		n, _ := toInt64Strict(x)
		return n, d, 0, 'i', true
	case uint64:
		if x > math.MaxInt64 {
			return 0, decimal.NewFromBigInt(new(big.Int).SetUint64(x), 0), 0, 'd', true
		}
		return int64(x), d, 0, 'i', true
	case decimal.Decimal:
		return 0, x, 0, 'd', true
	case float64:
		return 0, d, x, 'f', true
	case float32:
		return 0, d, float64(x), 'f', true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return 0, d, f, 'f', err == nil
	}
	return 0, d, 0, 0, false
}

// addValues is a + b (a - b when sub) as MySQL computes it; ok=false for
// what the fast path leaves to GMS (overflow, non-numbers). A NULL side
// gives NULL.
func addValues(a, b any, sub bool) (any, bool) {
	if a == nil || b == nil {
		return nil, true
	}
	ai, ad, af, ak, ok1 := numeric(a)
	bi, bd, bf, bk, ok2 := numeric(b)
	if !ok1 || !ok2 {
		return nil, false
	}
	asFloat := func(i int64, d decimal.Decimal, f float64, k byte) float64 {
		switch k {
		case 'i':
			return float64(i)
		case 'd':
			x, _ := d.Float64()
			return x
		}
		return f
	}
	switch {
	case ak == 'f' || bk == 'f':
		x, y := asFloat(ai, ad, af, ak), asFloat(bi, bd, bf, bk)
		if sub {
			y = -y
		}
		r := x + y
		return r, !math.IsInf(r, 0) && !math.IsNaN(r)
	case ak == 'd' || bk == 'd':
		if ak == 'i' {
			ad = decimal.NewFromInt(ai)
		}
		if bk == 'i' {
			bd = decimal.NewFromInt(bi)
		}
		if sub {
			return ad.Sub(bd), true
		}
		return ad.Add(bd), true
	}
	if sub {
		if bi == math.MinInt64 {
			return nil, false
		}
		bi = -bi
	}
	r := ai + bi
	if (bi > 0 && r < ai) || (bi < 0 && r > ai) {
		return nil, false
	}
	return r, true
}

// literalNumber reads a numeric literal of a SET clause: an integer as
// BIGINT, 1.5 as DECIMAL, 1e3 as DOUBLE (MySQL's literal types).
func literalNumber(v *ast.SQLVal) (any, bool) {
	switch v.Type {
	case ast.IntVal:
		n, err := strconv.ParseInt(string(v.Val), 10, 64)
		return n, err == nil
	case ast.FloatVal:
		s := string(v.Val)
		if strings.ContainsAny(s, "eE") {
			f, err := strconv.ParseFloat(s, 64)
			return f, err == nil
		}
		d, err := decimal.NewFromString(s)
		return d, err == nil
	}
	return nil, false
}

// numberColumn reports whether SET arithmetic on col stays on the fast
// path: integer, DECIMAL, FLOAT and DOUBLE columns.
func numberColumn(col *sql.Column) bool {
	if isIntType(col.Type) {
		return true
	}
	if _, ok := col.Type.(sql.DecimalType); ok {
		return true
	}
	t := col.Type.Type()
	return t == sqltypes.Float32 || t == sqltypes.Float64
}
