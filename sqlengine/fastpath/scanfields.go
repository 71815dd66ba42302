package fastpath

import (
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"petrel/internal/lenenc"
	"petrel/sqlengine"
	"petrel/storage/keys"
)

// Stored fields to the wire: when every column a scan plan sends is an
// integer or a text column, its rows are read as stored (storage's
// NextRaw) and each value is formatted from its encoding by a
// keys.FieldDecoder, without a Go value per column (wireValue's boxed
// int32 and string headers were a tenth of the server's CPU in the
// seed's mysqlslap load). A value this cannot send as stored (text that
// is not valid UTF-8 or, for a latin1 client, not ASCII; CHAR and other
// character sets) is formatted by wireValue, so the bytes are the same
// either way (TestScanFieldsMatchRows).

// fieldFmt is how one projected column is formatted.
type fieldFmt struct {
	col  int            // its schema position
	kind keys.FieldKind // which member of keys.Field holds it
	wire querypb.Type   // integers' wire type; text's
	pass textPass       // text: which values go as stored
	typ  sql.Type       // for wireValue
}

// scanFields is a plan's stored-field formatting, nil when a column is
// of another type.
type scanFields struct {
	dec  *keys.FieldDecoder
	fmts []fieldFmt
}

// newScanFields builds the formatting of columns proj of schema for
// character_set_results results, nil when one is not an integer or text
// column.
func newScanFields(schema sql.Schema, proj []int, results sql.CharacterSetID) *scanFields {
	want := make([]bool, len(schema))
	fmts := make([]fieldFmt, len(proj))
	for i, o := range proj {
		t := schema[o].Type
		f := fieldFmt{col: o, kind: keys.KindOfField(t), typ: t}
		switch f.kind {
		case keys.FieldInt, keys.FieldUint:
			// Only GMS's integer types (not YEAR, BIT, ENUM or SET).
			if f.wire = integerType(t); f.wire == sqltypes.Null {
				return nil
			}
		case keys.FieldBytes:
			st, ok := t.(types.StringType)
			if !ok {
				return nil
			}
			f.wire, f.pass = st.Type(), textPassThrough(st, results)
		default:
			return nil
		}
		want[o] = true
		fmts[i] = f
	}
	dec, ok := keys.NewFieldDecoder(schema, want)
	if !ok {
		return nil
	}
	return &scanFields{dec: dec, fmts: fmts}
}

// row formats the decoded fields into out, the bytes appended to arena
// (values point into it, or into an earlier array of it that append
// outgrew); ok=false when a value does not convert.
func (sf *scanFields) row(sctx *sql.Context, results sql.CharacterSetID, fields []keys.Field, out []sqltypes.Value, arena []byte) ([]byte, bool) {
	for i := range sf.fmts {
		f := &sf.fmts[i]
		v := &fields[f.col]
		if v.Null {
			out[i] = sqltypes.NULL
			continue
		}
		start := len(arena)
		switch f.kind {
		case keys.FieldInt:
			arena = strconv.AppendInt(arena, v.Int, 10)
		case keys.FieldUint:
			arena = strconv.AppendUint(arena, v.Uint, 10)
		default:
			if (f.pass == passValid && utf8.Valid(v.Bytes)) || (f.pass == passASCII && sqlengine.IsASCIIText(unsafe.String(unsafe.SliceData(v.Bytes), len(v.Bytes)))) {
				arena = append(arena, v.Bytes...)
				break
			}
			// GMS converts it (from a copy: v.Bytes is the iterator's).
			var ok bool
			if arena, ok = wireInto(sctx, f.typ, results, string(v.Bytes), &out[i], arena); !ok {
				return arena, false
			}
			continue
		}
		out[i] = sqltypes.MakeTrusted(f.wire, arena[start:len(arena):len(arena)])
	}
	return arena, true
}

// maxPayload is the largest payload of one protocol packet; a longer one
// continues in the next (and a payload of exactly a multiple of it ends
// with an empty packet).
const maxPayload = 1<<24 - 1

// appendPacket appends the text-protocol row packet of the decoded
// fields to dst, numbered from seq: the bytes vitess's writeRow would
// write, without a wire value per column or its buffers. It returns the
// next sequence id; ok=false (dst as it was) when a value does not
// convert. scratch is for values GMS converts.
func (sf *scanFields) appendPacket(sctx *sql.Context, results sql.CharacterSetID, fields []keys.Field, dst []byte, seq byte, scratch []sqltypes.Value) ([]byte, byte, bool) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	for i := range sf.fmts {
		f := &sf.fmts[i]
		v := &fields[f.col]
		if v.Null {
			dst = append(dst, 0xfb)
			continue
		}
		switch f.kind {
		case keys.FieldInt, keys.FieldUint:
			// At most 20 digits: a one-byte length.
			at := len(dst)
			dst = append(dst, 0)
			if f.kind == keys.FieldInt {
				dst = strconv.AppendInt(dst, v.Int, 10)
			} else {
				dst = strconv.AppendUint(dst, v.Uint, 10)
			}
			dst[at] = byte(len(dst) - at - 1)
		default:
			b := v.Bytes
			if !((f.pass == passValid && utf8.Valid(b)) || (f.pass == passASCII && sqlengine.IsASCIIText(unsafe.String(unsafe.SliceData(b), len(b))))) {
				// GMS converts it (from a copy: b is the iterator's).
				if _, ok := wireInto(sctx, f.typ, results, string(b), &scratch[0], nil); !ok {
					return dst[:start], seq, false
				}
				if scratch[0].IsNull() {
					dst = append(dst, 0xfb)
					continue
				}
				b = scratch[0].Raw()
			}
			dst = lenenc.Append(dst, uint64(len(b)))
			dst = append(dst, b...)
		}
	}
	n := len(dst) - start - 4
	if n < maxPayload {
		dst[start], dst[start+1], dst[start+2], dst[start+3] = byte(n), byte(n>>8), byte(n>>16), seq
		return dst, seq + 1, true
	}
	// A row of 16 MiB or more: split it into packets.
	payload := append([]byte(nil), dst[start+4:]...)
	dst = dst[:start]
	for {
		k := min(len(payload), maxPayload)
		dst = append(dst, byte(k), byte(k>>8), byte(k>>16), seq)
		dst = append(dst, payload[:k]...)
		seq++
		payload = payload[k:]
		if k < maxPayload {
			return dst, seq, true
		}
	}
}
