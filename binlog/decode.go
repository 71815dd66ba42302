package binlog

import (
	"encoding/binary"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/binlog/rowenc"
)

// TableMap is a decoded TABLE_MAP_EVENT.
type TableMap struct {
	TableID  uint64
	Database string
	Table    string
	Columns  []rowenc.Column
}

// ParseTableMap decodes a TABLE_MAP_EVENT body. It never panics.
func ParseTableMap(body []byte) (*TableMap, error) {
	tm := &TableMap{}
	if len(body) < 10 {
		return nil, corrupt("TABLE_MAP body of %d bytes", len(body))
	}
	tm.TableID = readTableID(body)
	p := body[8:]
	str := func() (string, error) {
		if len(p) < 1 {
			return "", corrupt("TABLE_MAP: truncated name")
		}
		n := int(p[0])
		if len(p) < n+2 {
			return "", corrupt("TABLE_MAP: name of %d bytes exceeds body", n)
		}
		s := string(p[1 : 1+n])
		p = p[n+2:]
		return s, nil
	}
	var err error
	if tm.Database, err = str(); err != nil {
		return nil, err
	}
	if tm.Table, err = str(); err != nil {
		return nil, err
	}
	n, k, ok := readPackedInt(p)
	if !ok || n > uint64(len(p)) {
		return nil, corrupt("TABLE_MAP: bad column count")
	}
	p = p[k:]
	if uint64(len(p)) < n {
		return nil, corrupt("TABLE_MAP: %d column types exceed body", n)
	}
	tm.Columns = make([]rowenc.Column, n)
	for i := range tm.Columns {
		tm.Columns[i].Type = p[i]
	}
	p = p[n:]
	metaLen, k, ok := readPackedInt(p)
	if !ok || metaLen > uint64(len(p)-k) {
		return nil, corrupt("TABLE_MAP: bad metadata length")
	}
	meta := p[k : k+int(metaLen)]
	p = p[k+int(metaLen):]
	for i := range tm.Columns {
		m, used, err := rowenc.ParseMeta(tm.Columns[i].Type, meta)
		if err != nil {
			return nil, corrupt("TABLE_MAP column %d: %v", i, err)
		}
		tm.Columns[i].Meta = m
		meta = meta[used:]
	}
	nb := (int(n) + 7) / 8
	if len(p) < nb {
		return nil, corrupt("TABLE_MAP: truncated null bitmap")
	}
	for i := range tm.Columns {
		tm.Columns[i].Nullable = p[i/8]&(1<<(i%8)) != 0
	}
	rowenc.ApplyOptionalMetadata(tm.Columns, p[nb:])
	return tm, nil
}

func readTableID(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 | uint64(b[4])<<32 | uint64(b[5])<<40
}

// RowsEvent is a decoded rows event: for updates, Rows alternate before
// and after images.
type RowsEvent struct {
	Type    byte
	TableID uint64
	Flags   uint16
	// Rows holds images: inserts have After only, deletes Before only.
	Before []sql.Row
	After  []sql.Row
}

// IsRowsEvent reports whether typ is a v1 or v2 rows event.
func IsRowsEvent(typ byte) bool {
	switch typ {
	case WriteRowsEventV1, UpdateRowsEventV1, DeleteRowsEventV1, WriteRowsEventV2, UpdateRowsEventV2, DeleteRowsEventV2:
		return true
	}
	return false
}

// ParseRows decodes a rows event body against its table map. types are
// the target columns' GMS types (nil entries decode generically); they
// must match tm.Columns in count.
func ParseRows(typ byte, body []byte, tm *TableMap, types []sql.Type) (*RowsEvent, error) {
	re := &RowsEvent{Type: typ}
	if len(body) < 8 {
		return nil, corrupt("rows event body of %d bytes", len(body))
	}
	re.TableID = readTableID(body)
	re.Flags = binary.LittleEndian.Uint16(body[6:])
	p := body[8:]
	if typ >= WriteRowsEventV2 {
		if len(p) < 2 {
			return nil, corrupt("rows event: truncated extra data")
		}
		extra := int(binary.LittleEndian.Uint16(p))
		if extra < 2 || extra > len(p) {
			return nil, corrupt("rows event: extra data length %d", extra)
		}
		p = p[extra:]
	}
	n, k, ok := readPackedInt(p)
	if !ok || int(n) != len(tm.Columns) {
		return nil, corrupt("rows event for %s.%s has %d columns, table map has %d", tm.Database, tm.Table, n, len(tm.Columns))
	}
	p = p[k:]
	nb := (int(n) + 7) / 8
	bitmap := func() ([]bool, error) {
		if len(p) < nb {
			return nil, corrupt("rows event: truncated column bitmap")
		}
		out := make([]bool, n)
		for i := range out {
			out[i] = p[i/8]&(1<<(i%8)) != 0
		}
		p = p[nb:]
		return out, nil
	}
	update := typ == UpdateRowsEventV1 || typ == UpdateRowsEventV2
	before, err := bitmap()
	if err != nil {
		return nil, err
	}
	after := before
	if update {
		if after, err = bitmap(); err != nil {
			return nil, err
		}
	}
	if types != nil && len(types) != len(tm.Columns) {
		return nil, fmt.Errorf("binlog: %s.%s: %d target columns for %d logged", tm.Database, tm.Table, len(types), len(tm.Columns))
	}
	if len(tm.Columns) == 0 {
		return nil, corrupt("rows event for %s.%s, a table map with no columns", tm.Database, tm.Table)
	}
	for len(p) > 0 {
		remaining := len(p)
		switch typ {
		case WriteRowsEventV1, WriteRowsEventV2:
			row, used, err := rowenc.DecodeRowImage(p, tm.Columns, types, after)
			if err != nil {
				return nil, corrupt("rows event for %s.%s: %v", tm.Database, tm.Table, err)
			}
			re.After = append(re.After, row)
			p = p[used:]
		case DeleteRowsEventV1, DeleteRowsEventV2:
			row, used, err := rowenc.DecodeRowImage(p, tm.Columns, types, before)
			if err != nil {
				return nil, corrupt("rows event for %s.%s: %v", tm.Database, tm.Table, err)
			}
			re.Before = append(re.Before, row)
			p = p[used:]
		default:
			b, used, err := rowenc.DecodeRowImage(p, tm.Columns, types, before)
			if err != nil {
				return nil, corrupt("rows event for %s.%s: %v", tm.Database, tm.Table, err)
			}
			p = p[used:]
			a, used, err := rowenc.DecodeRowImage(p, tm.Columns, types, after)
			if err != nil {
				return nil, corrupt("rows event for %s.%s: %v", tm.Database, tm.Table, err)
			}
			p = p[used:]
			re.Before = append(re.Before, b)
			re.After = append(re.After, a)
		}
		if len(p) >= remaining {
			return nil, corrupt("rows event for %s.%s: a row image of no bytes", tm.Database, tm.Table)
		}
	}
	return re, nil
}
