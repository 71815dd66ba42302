package functions

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"

	"petrel/internal/mysqlerr"
)

// RANGE frames as MySQL bounds them. GMS's RANGE framers took the whole
// partition when the ORDER BY column held a NULL (SUM(v) OVER (ORDER BY
// x RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) summed every row) and
// read a DATE or DATETIME key's INTERVAL bound wrongly. Here a row's
// frame runs from the first row whose key is at or past its start bound
// to the last at or before its end bound, keys compared in the ORDER BY's
// direction: for ORDER BY x, N PRECEDING is x - N and N FOLLOWING x + N
// (x - INTERVAL ... for a temporal key); for ORDER BY x DESC the other
// way. CURRENT ROW is the row's peers (equal in every ORDER BY key). A
// row whose key is NULL has its NULL peers for N PRECEDING and N
// FOLLOWING, and no other row's frame holds it through them. MySQL wants
// a frame with N PRECEDING or FOLLOWING ordered by one numeric or
// temporal key, an INTERVAL for a temporal one only (3587 to 3589).

// Window errors of MySQL 8 for RANGE frames.
const (
	erWindowRangeOrderType = 3587 // ER_WINDOW_RANGE_FRAME_ORDER_TYPE
	erWindowRangeTemporal  = 3588 // ER_WINDOW_RANGE_FRAME_TEMPORAL_TYPE
	erWindowRangeNumeric   = 3589 // ER_WINDOW_RANGE_FRAME_NUMERIC_TYPE
	erWindowRowsInterval   = 3596 // ER_WINDOW_ROWS_INTERVAL_USE
)

// isRangeFrame: f is one of GMS's RANGE frames (plan.Range...Frame),
// whose kind the sql.WindowFrame interface does not tell.
func isRangeFrame(f sql.WindowFrame) bool {
	return strings.HasPrefix(fmt.Sprintf("%T", f), "*plan.Range")
}

// rangeFrame is the RANGE frame f bounds, framed by rangeFramer.
type rangeFrame struct {
	sql.WindowFrame
}

func (r rangeFrame) NewFramer(w *sql.WindowDefinition) (sql.WindowFramer, error) {
	f := &rangeFramer{frame: r.WindowFrame, orderBy: w.OrderBy}
	bounds := []sql.Expression{r.StartNPreceding(), r.StartNFollowing(), r.EndNPreceding(), r.EndNFollowing()}
	for _, b := range bounds {
		if b == nil {
			continue
		}
		if len(w.OrderBy) != 1 {
			return nil, rangeOrderError()
		}
		t := w.OrderBy[0].Column.Type()
		_, interval := b.(*expression.Interval)
		switch {
		case types.IsTime(t):
			if !interval {
				return nil, mysqlerr.New(erWindowRangeTemporal, "Window '<unnamed window>' with RANGE frame has ORDER BY expression of datetime type. Only INTERVAL bound value allowed.")
			}
		case types.IsNumber(t):
			if interval {
				return nil, mysqlerr.New(erWindowRangeNumeric, "Window '<unnamed window>' with RANGE frame has ORDER BY expression of numeric type, INTERVAL bound value not allowed.")
			}
		default:
			return nil, rangeOrderError()
		}
		f.keyed = true
	}
	return f, nil
}

func rangeOrderError() error {
	return mysqlerr.New(erWindowRangeOrderType, "Window '<unnamed window>' with RANGE N PRECEDING/FOLLOWING frame requires exactly one ORDER BY expression, of numeric or temporal type")
}

// rangeFramer frames the rows of a partition [start, end): keys are
// the rows' first ORDER BY values, groupStart and groupEnd each row's
// peer group, [nnStart, nnEnd) the rows with a key that is not NULL.
type rangeFramer struct {
	frame   sql.WindowFrame
	orderBy sql.SortFields
	keyed   bool // a bound is N PRECEDING or FOLLOWING

	set                  bool
	start, end, idx      int
	keys                 []interface{}
	groupStart, groupEnd []int
	nnStart, nnEnd       int
	frameStart, frameEnd int
}

func (f *rangeFramer) NewFramer(in sql.WindowInterval) (sql.WindowFramer, error) {
	return &rangeFramer{frame: f.frame, orderBy: f.orderBy, keyed: f.keyed, set: true, start: in.Start, end: in.End, idx: in.Start}, nil
}

func (f *rangeFramer) FirstIdx() int { return f.frameStart }
func (f *rangeFramer) LastIdx() int  { return f.frameEnd }

func (f *rangeFramer) Interval() (sql.WindowInterval, error) {
	return sql.WindowInterval{Start: f.frameStart, End: f.frameEnd}, nil
}

func (f *rangeFramer) Next(ctx *sql.Context, buf sql.WindowBuffer) (sql.WindowInterval, error) {
	if !f.set || f.idx >= f.end {
		return sql.WindowInterval{}, io.EOF
	}
	if f.groupStart == nil {
		if err := f.load(ctx, buf); err != nil {
			return sql.WindowInterval{}, err
		}
	}
	i := f.idx
	f.idx++
	var err error
	if f.frameStart, err = f.bound(ctx, buf, i, true); err != nil {
		return sql.WindowInterval{}, err
	}
	if f.frameEnd, err = f.bound(ctx, buf, i, false); err != nil {
		return sql.WindowInterval{}, err
	}
	if f.frameEnd < f.frameStart {
		f.frameEnd = f.frameStart
	}
	return f.Interval()
}

// load reads the partition's keys and peer groups.
func (f *rangeFramer) load(ctx *sql.Context, buf sql.WindowBuffer) error {
	n := f.end - f.start
	f.groupStart, f.groupEnd = make([]int, n), make([]int, n)
	f.keys = make([]interface{}, n)
	var prev sql.Row
	for i := 0; i < n; i++ {
		row := buf[f.start+i]
		if len(f.orderBy) > 0 {
			k, err := f.orderBy[0].Column.Eval(ctx, row)
			if err != nil {
				return err
			}
			f.keys[i] = k
		}
		same := false
		if prev != nil {
			var err error
			if same, err = peerRows(ctx, f.orderBy, prev, row); err != nil {
				return err
			}
		}
		if same {
			f.groupStart[i] = f.groupStart[i-1]
		} else {
			f.groupStart[i] = f.start + i
		}
		prev = row
	}
	for i := n - 1; i >= 0; i-- {
		if i+1 < n && f.groupStart[i+1] == f.groupStart[i] {
			f.groupEnd[i] = f.groupEnd[i+1]
		} else {
			f.groupEnd[i] = f.start + i + 1
		}
	}
	f.nnStart, f.nnEnd = f.start, f.end
	for f.nnStart < f.end && f.keys[f.nnStart-f.start] == nil {
		f.nnStart++
	}
	for f.nnEnd > f.nnStart && f.keys[f.nnEnd-1-f.start] == nil {
		f.nnEnd--
	}
	return nil
}

// peerRows: a and b are equal in every ORDER BY key (NULLs equal).
func peerRows(ctx *sql.Context, orderBy sql.SortFields, a, b sql.Row) (bool, error) {
	for _, o := range orderBy {
		av, err := o.Column.Eval(ctx, a)
		if err != nil {
			return false, err
		}
		bv, err := o.Column.Eval(ctx, b)
		if err != nil {
			return false, err
		}
		if av == nil || bv == nil {
			if av != bv {
				return false, nil
			}
			continue
		}
		c, err := o.Column.Type().Compare(ctx, av, bv)
		if err != nil || c != 0 {
			return false, err
		}
	}
	return true, nil
}

// bound is row i's frame start (start) or end, a buffer index.
func (f *rangeFramer) bound(ctx *sql.Context, buf sql.WindowBuffer, i int, start bool) (int, error) {
	fr := f.frame
	var preceding, following sql.Expression
	if start {
		if fr.UnboundedPreceding() {
			return f.start, nil
		}
		preceding, following = fr.StartNPreceding(), fr.StartNFollowing()
	} else {
		if fr.UnboundedFollowing() {
			return f.end, nil
		}
		preceding, following = fr.EndNPreceding(), fr.EndNFollowing()
	}
	key := f.keys[i-f.start]
	if (preceding == nil && following == nil) || key == nil {
		// CURRENT ROW, or N from a NULL key: the row's peers.
		if start {
			return f.groupStart[i-f.start], nil
		}
		return f.groupEnd[i-f.start], nil
	}
	asc := f.orderBy[0].Order != sql.Descending
	n, op := following, "+"
	if preceding != nil {
		n, op = preceding, "-"
	}
	if !asc {
		op = map[string]string{"+": "-", "-": "+"}[op]
	}
	target, err := expression.NewArithmetic(f.orderBy[0].Column, n, op).Eval(ctx, buf[i])
	if err != nil {
		return 0, err
	}
	if target == nil {
		return f.nnStart, nil
	}
	// The first row at or past target (start), or past it (end), in
	// the ORDER BY's direction.
	var cerr error
	j := sort.Search(f.nnEnd-f.nnStart, func(k int) bool {
		c, err := compareKeys(ctx, f.keys[f.nnStart+k-f.start], target)
		if err != nil {
			cerr = err
		}
		if !asc {
			c = -c
		}
		if start {
			return c >= 0
		}
		return c > 0
	})
	return f.nnStart + j, cerr
}

// compareKeys compares a key with a bound: as times when both are, else
// as decimals.
func compareKeys(ctx *sql.Context, a, b interface{}) (int, error) {
	if at, ok := a.(time.Time); ok {
		if bt, ok := b.(time.Time); ok {
			return at.Compare(bt), nil
		}
	}
	ad, _, err := types.InternalDecimalType.Convert(ctx, a)
	if err != nil {
		return 0, err
	}
	bd, _, err := types.InternalDecimalType.Convert(ctx, b)
	if err != nil {
		return 0, err
	}
	return ad.(decimal.Decimal).Cmp(bd.(decimal.Decimal)), nil
}
