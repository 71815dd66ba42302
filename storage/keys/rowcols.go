package keys

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
)

// DecodeRowColumns is DecodeRow for the columns whose want entry is true
// (want has one entry per schema column): the others are stepped over
// without building their values and are nil in the result. Scans that
// read one column of wide rows (sysbench's range selects read c of id,
// k, c, pad) skip the allocation and checks of the rest.
func DecodeRowColumns(data []byte, sch sql.Schema, want []bool) (sql.Row, error) {
	if len(want) != len(sch) {
		return nil, fmt.Errorf("keys: %d wanted flags for %d columns", len(want), len(sch))
	}
	return decodeRow(data, sch, want)
}

// DecodeRowBorrowed is DecodeRowColumns (want nil: every column) into
// dst's storage when it is large enough, with text values that alias
// data: the row is valid only while data is, and its strings must not be
// kept. For callers that convert each row before they read the next
// (the scan fast path). With want, it reads the row only as far as its
// last wanted column (DecodeRowLeading).
func DecodeRowBorrowed(dst sql.Row, data []byte, sch sql.Schema, want []bool) (sql.Row, error) {
	if want != nil && len(want) != len(sch) {
		return nil, fmt.Errorf("keys: %d wanted flags for %d columns", len(want), len(sch))
	}
	r := reader{b: data, borrow: true}
	if want != nil {
		// As DecodeRowLeading, only as far as the last wanted column.
		r.partial, r.last = true, lastWanted(want)
	}
	return r.row(reuseRow(dst, len(sch)), sch, want)
}

// DecodeRowPrefix is DecodeRowBorrowed for a test of a few columns of
// each row of a scan (storage's Prefilter): it reads the row only as far
// as the last wanted column (want non-nil), so the columns after it are
// neither parsed nor checked. A row the test accepts is decoded again
// in full, checks included; one it turns down is not returned at all.
//
// vc, if not nil, gives repeated DECIMAL and DATETIME values the ones it
// built before (ScanCache).
func DecodeRowPrefix(dst sql.Row, data []byte, sch sql.Schema, want []bool, vc *ScanCache) (sql.Row, error) {
	if len(want) != len(sch) {
		return nil, fmt.Errorf("keys: %d wanted flags for %d columns", len(want), len(sch))
	}
	r := reader{b: data, borrow: true, last: lastWanted(want), partial: true, vc: vc}
	return r.row(reuseRow(dst, len(sch)), sch, want)
}

// DecodeRowLeading is DecodeRowColumns for the rows of a scan: it reads
// each row only as far as its last wanted column, as DecodeRowPrefix
// does, and copies its text values. A scan of lineitem for its first and
// fifth columns stepped over the eleven after them in every row (a
// tenth of TPC-H Q18's time); Pebble's block checksums, not this
// decoding, are what find damaged bytes there.
//
// vc as for DecodeRowPrefix. want nil is every column (the whole row
// read and checked, as DecodeRow).
func DecodeRowLeading(data []byte, sch sql.Schema, want []bool, vc *ScanCache) (sql.Row, error) {
	r := reader{b: data, vc: vc}
	if want != nil {
		if len(want) != len(sch) {
			return nil, fmt.Errorf("keys: %d wanted flags for %d columns", len(want), len(sch))
		}
		r.partial, r.last = true, lastWanted(want)
	}
	return r.row(make(sql.Row, len(sch)), sch, want)
}

// lastWanted is the last column want asks for (-1: none).
func lastWanted(want []bool) int {
	for i := len(want) - 1; i >= 0; i-- {
		if want[i] {
			return i
		}
	}
	return -1
}

// reuseRow is dst cleared to n values when it can hold them, else a new
// row.
func reuseRow(dst sql.Row, n int) sql.Row {
	if cap(dst) < n {
		return make(sql.Row, n)
	}
	dst = dst[:n]
	clear(dst)
	return dst
}

// decodeRow decodes the columns whose want entry is true, every column
// when want is nil.
func decodeRow(data []byte, sch sql.Schema, want []bool) (sql.Row, error) {
	r := reader{b: data}
	return r.row(make(sql.Row, len(sch)), sch, want)
}

// DecodeRowShared is DecodeRowColumns (want nil: every column) with the
// text values of a row of at most maxTextArena bytes in one allocation
// (reader.textCopy). For reads of a few rows by key: a scan's consumer
// may keep one text value of each of many rows (a GROUP BY's values),
// which would keep each row's text alive.
func DecodeRowShared(data []byte, sch sql.Schema, want []bool) (sql.Row, error) {
	if want != nil && len(want) != len(sch) {
		return nil, fmt.Errorf("keys: %d wanted flags for %d columns", len(want), len(sch))
	}
	r := reader{b: data, shared: len(data) <= maxTextArena}
	return r.row(make(sql.Row, len(sch)), sch, want)
}

// row decodes a row into row (len(sch), zeroed).
func (r *reader) row(row sql.Row, sch sql.Schema, want []bool) (sql.Row, error) {
	version, err := r.byte()
	if err != nil {
		return nil, err
	}
	if version != rowFormatV1 {
		return nil, r.corrupt("unknown row format version %d", version)
	}
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(sch)) {
		return nil, r.corrupt("row has %d columns but schema has %d", n, len(sch))
	}
	var kinds []columnKind
	if r.vc != nil {
		kinds = r.vc.kindsOf(sch)
	}
	for i := 0; i < int(n); i++ {
		tag, err := r.byte()
		if err != nil {
			return nil, err
		}
		switch tag {
		case tagNull:
		case tagValue:
			switch {
			case kinds != nil && (want == nil || want[i]):
				row[i], err = r.valueOf(sch[i].Type, kinds[i].k, kinds[i].width)
			case kinds != nil:
				err = r.skipOf(sch[i].Type, kinds[i].k)
			case want == nil || want[i]:
				row[i], err = r.value(sch[i].Type)
			default:
				err = r.skip(sch[i].Type)
			}
			if err != nil {
				return nil, fmt.Errorf("column %q: %w", sch[i].Name, err)
			}
		default:
			return nil, r.corrupt("bad column tag %d", tag)
		}
		if r.partial && i >= r.last {
			return row, nil
		}
	}
	if r.off != len(r.b) {
		return nil, r.corrupt("%d trailing bytes", len(r.b)-r.off)
	}
	return row, nil
}

// skip steps over one value of typ as appendRowValue wrote it.
func (r *reader) skip(typ sql.Type) error {
	k, _ := classify(typ)
	return r.skipOf(typ, k)
}

// skipOf is skip for a type classify has classified.
func (r *reader) skipOf(typ sql.Type, k kind) error {
	var err error
	switch k {
	case kindInt, kindDatetime, kindTime, kindYear:
		_, err = r.varint()
	case kindUint, kindEnum, kindSet, kindBit:
		_, err = r.uvarint()
	case kindFloat32:
		_, err = r.fixed(4)
	case kindFloat64:
		_, err = r.fixed(8)
	case kindDecimal:
		if _, err = r.varint(); err == nil {
			var hdr uint64
			if hdr, err = r.uvarint(); err == nil {
				_, err = r.fixed(int(min(hdr>>1, uint64(len(r.b)+1))))
			}
		}
	case kindText, kindBytes, kindJSON, kindGeometry:
		_, err = r.lenPrefixed()
	default:
		err = unsupported(typ)
	}
	return err
}
