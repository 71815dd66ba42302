package wire

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"petrel/internal/lenenc"
)

// Result sets written ahead of vitess's reply. vitess answers a command
// with one result set; a CALL answers with one per SELECT of its
// procedure, then an OK (or the error that stopped it). WriteResultSets
// writes the sets, each ended with SERVER_MORE_RESULTS_EXISTS, before
// vitess writes anything for the command, and vitess's own packets (the
// CALL's OK or error) are renumbered after them, as for the packets the
// scan fast path writes (Wrote).

// WriteResultSets writes sets as the first packets of the reply to the
// command just read, in the text protocol or, binary, the prepared
// statements' one. deprecateEOF: the client set CLIENT_DEPRECATE_EOF (an
// OK packet, not an EOF, ends the rows; none follows the columns).
// status is the server status sent with each set's end (MORE_RESULTS is
// added). The caller has flushed vitess's buffer and vitess has written
// nothing for this command.
func (c *Conn) WriteResultSets(sets []*sqltypes.Result, binaryRows, deprecateEOF bool, status uint16) error {
	status |= mysql.ServerMoreResultsExists
	seq := c.seq + 1
	var b, payload []byte
	for _, res := range sets {
		payload = lenenc.Append(payload[:0], uint64(len(res.Fields)))
		b, seq = appendPacket(b, seq, payload)
		for _, f := range res.Fields {
			payload = appendColumnDef(payload[:0], f)
			b, seq = appendPacket(b, seq, payload)
		}
		if !deprecateEOF {
			b, seq = appendPacket(b, seq, appendEOF(payload[:0], status))
		}
		for _, row := range res.Rows {
			if binaryRows {
				payload = appendBinaryRow(payload[:0], res.Fields, row)
			} else {
				payload = appendTextRow(payload[:0], row)
			}
			b, seq = appendPacket(b, seq, payload)
		}
		if deprecateEOF {
			// An OK packet with the EOF header.
			payload = append(payload[:0], 0xfe, 0, 0)
			payload = binary.LittleEndian.AppendUint16(payload, status)
			payload = append(payload, 0, 0)
		} else {
			payload = appendEOF(payload[:0], status)
		}
		b, seq = appendPacket(b, seq, payload)
	}
	if _, err := c.Write(b); err != nil {
		return err
	}
	c.Wrote(seq - (c.seq + 1))
	return nil
}

// appendPacket appends payload as protocol packets numbered from seq
// (split at 16 MiB), returning the next sequence id.
func appendPacket(dst []byte, seq byte, payload []byte) ([]byte, byte) {
	const maxPayload = 1<<24 - 1
	for {
		k := min(len(payload), maxPayload)
		dst = append(dst, byte(k), byte(k>>8), byte(k>>16), seq)
		dst = append(dst, payload[:k]...)
		seq++
		payload = payload[k:]
		if k < maxPayload {
			return dst, seq
		}
	}
}

func appendEOF(dst []byte, status uint16) []byte {
	dst = append(dst, 0xfe, 0, 0)
	return binary.LittleEndian.AppendUint16(dst, status)
}

// appendColumnDef appends a Protocol::ColumnDefinition41 payload.
func appendColumnDef(dst []byte, f *querypb.Field) []byte {
	typ, flags := sqltypes.TypeToMySQL(f.Type)
	if f.Flags != 0 {
		flags = int64(f.Flags)
	}
	for _, s := range []string{"def", f.Database, f.Table, f.OrgTable, f.Name, f.OrgName} {
		dst = lenenc.AppendString(dst, []byte(s))
	}
	dst = append(dst, 0x0c)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(f.Charset))
	dst = binary.LittleEndian.AppendUint32(dst, f.ColumnLength)
	dst = append(dst, byte(typ))
	dst = binary.LittleEndian.AppendUint16(dst, uint16(flags))
	return append(dst, byte(f.Decimals), 0, 0)
}

// appendTextRow appends a text-protocol row: each value length-encoded,
// NULL as 0xfb.
func appendTextRow(dst []byte, row []sqltypes.Value) []byte {
	for _, v := range row {
		if v.IsNull() {
			dst = append(dst, 0xfb)
			continue
		}
		dst = lenenc.AppendString(dst, v.Raw())
	}
	return dst
}

// appendBinaryRow appends a binary-protocol row: a 0x00 header, the NULL
// bitmap (offset 2), then each value in its type's binary form.
func appendBinaryRow(dst []byte, fields []*querypb.Field, row []sqltypes.Value) []byte {
	dst = append(dst, 0)
	bitmap := len(dst)
	for range (len(row) + 7 + 2) / 8 {
		dst = append(dst, 0)
	}
	for i, v := range row {
		if v.IsNull() {
			dst[bitmap+(i+2)/8] |= 1 << ((i + 2) % 8)
			continue
		}
		typ := v.Type()
		if i < len(fields) {
			typ = fields[i].Type
		}
		dst = appendBinaryValue(dst, typ, v.Raw())
	}
	return dst
}

// appendBinaryValue appends one value, given as text, in typ's binary
// form.
func appendBinaryValue(dst []byte, typ querypb.Type, text []byte) []byte {
	s := string(text)
	switch typ {
	case sqltypes.Int8, sqltypes.Uint8:
		return append(dst, byte(parseInt(s, typ == sqltypes.Uint8)))
	case sqltypes.Int16, sqltypes.Uint16, sqltypes.Year:
		return binary.LittleEndian.AppendUint16(dst, uint16(parseInt(s, typ == sqltypes.Uint16)))
	case sqltypes.Int24, sqltypes.Uint24, sqltypes.Int32, sqltypes.Uint32:
		return binary.LittleEndian.AppendUint32(dst, uint32(parseInt(s, typ == sqltypes.Uint24 || typ == sqltypes.Uint32)))
	case sqltypes.Int64, sqltypes.Uint64:
		return binary.LittleEndian.AppendUint64(dst, parseInt(s, typ == sqltypes.Uint64))
	case sqltypes.Float32:
		f, _ := strconv.ParseFloat(s, 32)
		return binary.LittleEndian.AppendUint32(dst, math.Float32bits(float32(f)))
	case sqltypes.Float64:
		f, _ := strconv.ParseFloat(s, 64)
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
	case sqltypes.Date, sqltypes.Datetime, sqltypes.Timestamp:
		return appendBinaryDatetime(dst, s)
	case sqltypes.Time:
		return appendBinaryTime(dst, s)
	}
	return lenenc.AppendString(dst, text)
}

// parseInt is an integer's text as its 64 bits.
func parseInt(s string, unsigned bool) uint64 {
	if unsigned {
		u, _ := strconv.ParseUint(s, 10, 64)
		return u
	}
	i, _ := strconv.ParseInt(s, 10, 64)
	return uint64(i)
}

// appendBinaryDatetime appends 'YYYY-MM-DD[ HH:MM:SS[.ffffff]]' in the
// binary protocol's shortest form (0, 4, 7 or 11 bytes after the length).
func appendBinaryDatetime(dst []byte, s string) []byte {
	date, clock, _ := strings.Cut(s, " ")
	ymd := strings.SplitN(date, "-", 3)
	if len(ymd) != 3 {
		return append(dst, 0)
	}
	y, _ := strconv.Atoi(ymd[0])
	mo, _ := strconv.Atoi(ymd[1])
	d, _ := strconv.Atoi(ymd[2])
	h, mi, sec, micro := parseClock(clock)
	switch {
	case micro != 0:
		dst = append(dst, 11)
	case h != 0 || mi != 0 || sec != 0:
		dst = append(dst, 7)
	case y != 0 || mo != 0 || d != 0:
		dst = append(dst, 4)
	default:
		return append(dst, 0)
	}
	n := dst[len(dst)-1]
	dst = binary.LittleEndian.AppendUint16(dst, uint16(y))
	dst = append(dst, byte(mo), byte(d))
	if n >= 7 {
		dst = append(dst, byte(h), byte(mi), byte(sec))
	}
	if n == 11 {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(micro))
	}
	return dst
}

// appendBinaryTime appends '[-]H:MM:SS[.ffffff]' (hours may pass 24) in
// the binary protocol's form: sign, days, hours, minutes, seconds,
// microseconds.
func appendBinaryTime(dst []byte, s string) []byte {
	neg := strings.HasPrefix(s, "-")
	h, mi, sec, micro := parseClock(strings.TrimPrefix(s, "-"))
	if h == 0 && mi == 0 && sec == 0 && micro == 0 {
		return append(dst, 0)
	}
	n := byte(8)
	if micro != 0 {
		n = 12
	}
	sign := byte(0)
	if neg {
		sign = 1
	}
	dst = append(dst, n, sign)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(h/24))
	dst = append(dst, byte(h%24), byte(mi), byte(sec))
	if n == 12 {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(micro))
	}
	return dst
}

// parseClock reads 'H:MM:SS[.ffffff]'.
func parseClock(s string) (h, m, sec, micro int) {
	if s == "" {
		return
	}
	s, frac, _ := strings.Cut(s, ".")
	p := strings.SplitN(s, ":", 3)
	if len(p) == 3 {
		h, _ = strconv.Atoi(p[0])
		m, _ = strconv.Atoi(p[1])
		sec, _ = strconv.Atoi(p[2])
	}
	if frac != "" {
		frac = (frac + "000000")[:6]
		micro, _ = strconv.Atoi(frac)
	}
	return
}

// MultiResults reports whether the client accepts more than one result
// for a statement (CLIENT_MULTI_RESULTS).
func (c *Conn) MultiResults() bool { return c.clientFlags&mysql.CapabilityClientMultiResults != 0 }
