package keys

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
)

// Field is one column of a stored row at the level of its encoding:
// an integer or the stored bytes, with no Go value built for it. For
// callers that format values themselves (the scan fast path writes
// integers and text straight to the wire); DecodeRow is the general
// decoder.
type Field struct {
	// Null: the column is NULL (or past the columns the row stores).
	Null bool
	// Int holds a FieldInt column, Uint a FieldUint one.
	Int  int64
	Uint uint64
	// Bytes holds a FieldBytes column (CHAR, VARCHAR, TEXT): the stored
	// bytes, aliasing the row's data.
	Bytes []byte
}

// FieldKind says which member of Field holds a column's value.
type FieldKind uint8

const (
	// FieldNone: FieldDecoder does not decode this type.
	FieldNone FieldKind = iota
	// FieldInt: TINYINT to BIGINT (signed).
	FieldInt
	// FieldUint: TINYINT to BIGINT UNSIGNED.
	FieldUint
	// FieldBytes: CHAR, VARCHAR and TEXT columns (character strings).
	FieldBytes
)

// KindOfField is the member of Field that holds a column of typ,
// FieldNone for types FieldDecoder leaves to DecodeRow.
func KindOfField(typ sql.Type) FieldKind {
	switch k, _ := classify(typ); k {
	case kindInt:
		return FieldInt
	case kindUint:
		return FieldUint
	case kindText:
		return FieldBytes
	}
	return FieldNone
}

// FieldDecoder decodes chosen columns of a table's stored rows into
// Fields. Its columns were classified once, when it was built; a row
// is checked as DecodeRow checks it (format version, column count and
// tags, integer ranges, lengths, no trailing bytes).
type FieldDecoder struct {
	sch  sql.Schema
	cols []fieldCol
}

type fieldCol struct {
	want     bool
	kind     kind
	min, max int64  // kindInt's range
	umax     uint64 // kindUint's
	typ      sql.Type
}

// NewFieldDecoder returns a decoder of the columns of sch whose want
// entry is true (want has one entry per column); false if one of them
// is of a type KindOfField says FieldNone to.
func NewFieldDecoder(sch sql.Schema, want []bool) (*FieldDecoder, bool) {
	if len(want) != len(sch) {
		return nil, false
	}
	d := &FieldDecoder{sch: sch, cols: make([]fieldCol, len(sch))}
	for i, c := range sch {
		k, width := classify(c.Type)
		fc := fieldCol{want: want[i], kind: k, typ: c.Type}
		switch k {
		case kindInt:
			fc.min, fc.max = signedRange(width)
		case kindUint:
			fc.umax = unsignedMax(width)
		}
		if want[i] && KindOfField(c.Type) == FieldNone {
			return nil, false
		}
		d.cols[i] = fc
	}
	return d, true
}

// Decode decodes data, a stored row of the decoder's schema, into dst
// (one entry per schema column; the unwanted ones are left as they
// were). Bytes alias data.
func (d *FieldDecoder) Decode(dst []Field, data []byte) error {
	if len(dst) != len(d.cols) {
		return fmt.Errorf("keys: %d fields for %d columns", len(dst), len(d.cols))
	}
	r := reader{b: data, borrow: true}
	version, err := r.byte()
	if err != nil {
		return err
	}
	if version != rowFormatV1 {
		return r.corrupt("unknown row format version %d", version)
	}
	n, err := r.uvarint()
	if err != nil {
		return err
	}
	if n > uint64(len(d.cols)) {
		return r.corrupt("row has %d columns but schema has %d", n, len(d.cols))
	}
	for i := range d.cols {
		c := &d.cols[i]
		if i >= int(n) {
			if c.want {
				dst[i] = Field{Null: true}
			}
			continue
		}
		tag, err := r.byte()
		if err != nil {
			return err
		}
		switch tag {
		case tagNull:
			if c.want {
				dst[i] = Field{Null: true}
			}
			continue
		case tagValue:
		default:
			return r.corrupt("bad column tag %d", tag)
		}
		if !c.want {
			err = r.skip(c.typ)
		} else {
			f := &dst[i]
			f.Null = false
			switch c.kind {
			case kindInt:
				f.Int, err = r.signed(c.min, c.max)
			case kindUint:
				f.Uint, err = r.unsigned(c.umax)
			default: // kindText
				f.Bytes, err = r.lenPrefixed()
			}
		}
		if err != nil {
			return fmt.Errorf("column %q: %w", d.sch[i].Name, err)
		}
	}
	if r.off != len(r.b) {
		return r.corrupt("%d trailing bytes", len(r.b)-r.off)
	}
	return nil
}
