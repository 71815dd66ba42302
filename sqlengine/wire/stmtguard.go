package wire

import (
	"encoding/binary"
	"io"
	"math"
	"strconv"

	"petrel/internal/mysqlerr"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// The prepared-statement commands are parsed by vitess, which trusts
// them: a COM_STMT_RESET of an unknown statement dereferences nil, a
// COM_STMT_EXECUTE of a statement with 65529 to 65535 parameters indexes
// past its NULL bitmap (the bitmap's size is computed in 16 bits), a
// malformed COM_STMT_SEND_LONG_DATA or COM_FIELD_LIST ends the
// connection. Conn checks these commands before vitess reads them
// (guardCommand): a malformed one is answered with MySQL's error and
// never reaches vitess; an EXECUTE of a statement with that many
// parameters is decoded here, its values bound (as SEND_LONG_DATA binds
// them), and vitess gets the same command without them.

const (
	comFieldList        = 0x04
	comChangeUser       = 0x11
	comStmtPrepare      = 0x16
	comStmtExecute      = 0x17
	comStmtSendLongData = 0x18
	comStmtClose        = 0x19
	comStmtReset        = 0x1a
)

const (
	// MaxParams is the most placeholders a statement may have.
	MaxParams = 65535
	// vitessBitmapLimit: vitess's NULL bitmap size overflows from here.
	vitessBitmapLimit = 65529
)

func errMalformed() *mysql.SQLError {
	return mysqlerr.New(mysqlerr.ErMalformedPacket, "Malformed communication packet.")
}

func errUnknownStmt(id uint32, cmd string) *mysql.SQLError {
	return mysqlerr.New(mysqlerr.ErUnknownStmtHandler, "Unknown prepared statement handler (%d) given to %s", id, cmd)
}

// guardResult is guardCommand's decision.
type guardResult struct {
	// reply, when set, is sent instead of passing the command on.
	reply *mysql.SQLError
	// drop: the command is not passed on (and gets no reply, as
	// COM_STMT_SEND_LONG_DATA never does).
	drop bool
	// replace, when set, is the payload vitess gets instead.
	replace []byte
}

// guardCommand checks a command packet p (payload, command byte first)
// against the connection's prepared statements. Deterministic: no I/O.
func guardCommand(p []byte, stmts map[uint32]*mysql.PrepareData) guardResult {
	if len(p) == 0 {
		return guardResult{}
	}
	switch p[0] {
	case comStmtExecute:
		return guardExecute(p, stmts)
	case comStmtSendLongData:
		// Never answered; MySQL reports a bad one at the next EXECUTE.
		if len(p) < 7 {
			return guardResult{drop: true}
		}
		prep, ok := stmts[binary.LittleEndian.Uint32(p[1:])]
		if !ok || prep.BindVars == nil || binary.LittleEndian.Uint16(p[5:]) >= prep.ParamsCount {
			return guardResult{drop: true}
		}
	case comStmtReset:
		if len(p) < 5 {
			return guardResult{reply: errMalformed()}
		}
		if id := binary.LittleEndian.Uint32(p[1:]); stmts[id] == nil {
			return guardResult{reply: errUnknownStmt(id, "mysqld_stmt_reset")}
		}
	case comFieldList:
		// The table name is NUL-terminated.
		if indexByte(p[1:], 0) < 0 {
			return guardResult{reply: errMalformed()}
		}
	}
	return guardResult{}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// guardExecute checks a COM_STMT_EXECUTE; see guardCommand.
func guardExecute(p []byte, stmts map[uint32]*mysql.PrepareData) guardResult {
	if len(p) < 10 {
		return guardResult{reply: errMalformed()}
	}
	id := binary.LittleEndian.Uint32(p[1:])
	prep := stmts[id]
	if prep == nil {
		return guardResult{reply: errUnknownStmt(id, "mysqld_stmt_execute")}
	}
	if binary.LittleEndian.Uint32(p[6:]) != 1 {
		return guardResult{reply: errMalformed()} // iteration count
	}
	n := int(prep.ParamsCount)
	big := n >= vitessBitmapLimit
	vals, types, ok := decodeExecute(p, prep, big)
	if !ok {
		return guardResult{reply: errMalformed()}
	}
	if !big {
		return guardResult{}
	}
	// Bind the values as vitess would, and leave it nothing to parse:
	// with every parameter bound it skips the bitmap and the values.
	if prep.BindVars == nil {
		prep.BindVars = make(map[string]*querypb.BindVariable, n)
	}
	for i, v := range vals {
		key := "v" + strconv.Itoa(i+1)
		if old := prep.BindVars[key]; old != nil {
			continue // SEND_LONG_DATA bound it
		}
		prep.BindVars[key] = sqltypes.ValueBindVariable(v)
	}
	if types != nil {
		copy(prep.ParamsType, types)
	}
	// Command, id, cursor flags, iteration count, then "no new types".
	stub := append([]byte(nil), p[:10]...)
	return guardResult{replace: append(stub, 0)}
}

// decodeExecute reads the NULL bitmap, the types (when sent) and the
// values of a COM_STMT_EXECUTE for prep, as vitess reads them. It
// returns the values only when want is set (NULL for parameters
// SEND_LONG_DATA bound), and then the types too when the packet sends
// them; without want it allocates nothing.
func decodeExecute(p []byte, prep *mysql.PrepareData, want bool) ([]sqltypes.Value, []int32, bool) {
	n := int(prep.ParamsCount)
	pos := 10
	if n == 0 {
		return nil, nil, true
	}
	nb := (n + 7) / 8
	if len(p) < pos+nb+1 {
		return nil, nil, false
	}
	bitmap := p[pos : pos+nb]
	pos += nb
	typesAt := -1
	if p[pos] == 1 {
		typesAt = pos + 1
		pos += 1 + 2*n
		if len(p) < pos {
			return nil, nil, false
		}
	} else {
		pos++
		if len(prep.ParamsType) < n {
			return nil, nil, false
		}
	}
	var vals []sqltypes.Value
	var sent []int32
	if want {
		vals = make([]sqltypes.Value, n)
		if typesAt >= 0 {
			sent = make([]int32, n)
		}
	}
	longData := len(prep.BindVars) > 0
	for i := range n {
		var t querypb.Type
		if typesAt >= 0 {
			var err error
			if t, err = sqltypes.MySQLToType(int64(p[typesAt+2*i]), int64(p[typesAt+2*i+1])>>2); err != nil {
				return nil, nil, false
			}
			if sent != nil {
				sent[i] = int32(t)
			}
		} else {
			t = querypb.Type(prep.ParamsType[i])
		}
		if longData && prep.BindVars["v"+strconv.Itoa(i+1)] != nil {
			continue
		}
		if bitmap[i/8]&(1<<(i%8)) != 0 {
			if want {
				vals[i] = sqltypes.NULL
			}
			continue
		}
		v, next, ok := decodeParam(p, pos, t, want)
		if !ok {
			return nil, nil, false
		}
		pos = next
		if want {
			vals[i] = v
		}
	}
	return vals, sent, true
}

// decodeParam reads one binary-protocol value of type t at p[pos:] (the
// value only when want).
func decodeParam(p []byte, pos int, t querypb.Type, want bool) (sqltypes.Value, int, bool) {
	fixed := func(k int) ([]byte, bool) {
		if pos+k > len(p) {
			return nil, false
		}
		b := p[pos : pos+k]
		pos += k
		return b, true
	}
	switch t {
	case sqltypes.Null:
		return sqltypes.NULL, pos, true
	case sqltypes.Int8, sqltypes.Uint8:
		b, ok := fixed(1)
		if !ok {
			return sqltypes.NULL, 0, false
		}
		if t == sqltypes.Int8 {
			return sqltypes.NewInt64(int64(int8(b[0]))), pos, true
		}
		return sqltypes.NewUint64(uint64(b[0])), pos, true
	case sqltypes.Uint16, sqltypes.Int16, sqltypes.Year:
		b, ok := fixed(2)
		if !ok {
			return sqltypes.NULL, 0, false
		}
		u := binary.LittleEndian.Uint16(b)
		if t == sqltypes.Uint16 {
			return sqltypes.NewUint64(uint64(u)), pos, true
		}
		return sqltypes.NewInt64(int64(int16(u))), pos, true
	case sqltypes.Uint24, sqltypes.Uint32, sqltypes.Int24, sqltypes.Int32, sqltypes.Float32:
		b, ok := fixed(4)
		if !ok {
			return sqltypes.NULL, 0, false
		}
		u := binary.LittleEndian.Uint32(b)
		switch t {
		case sqltypes.Uint24, sqltypes.Uint32:
			return sqltypes.NewUint64(uint64(u)), pos, true
		case sqltypes.Float32:
			return sqltypes.NewFloat64(float64(math.Float32frombits(u))), pos, true
		}
		return sqltypes.NewInt64(int64(int32(u))), pos, true
	case sqltypes.Uint64, sqltypes.Int64, sqltypes.Float64:
		b, ok := fixed(8)
		if !ok {
			return sqltypes.NULL, 0, false
		}
		u := binary.LittleEndian.Uint64(b)
		switch t {
		case sqltypes.Uint64:
			return sqltypes.NewUint64(u), pos, true
		case sqltypes.Float64:
			return sqltypes.NewFloat64(math.Float64frombits(u)), pos, true
		}
		return sqltypes.NewInt64(int64(u)), pos, true
	case sqltypes.Timestamp, sqltypes.Date, sqltypes.Datetime:
		return decodeDatetime(p, pos)
	case sqltypes.Time:
		return decodeTime(p, pos)
	case sqltypes.Decimal, sqltypes.Text, sqltypes.Blob, sqltypes.VarChar, sqltypes.Char, sqltypes.VarBinary,
		sqltypes.Bit, sqltypes.Enum, sqltypes.Set, sqltypes.Geometry, sqltypes.Binary, sqltypes.TypeJSON:
		l, next, ok := lenEnc(p, pos)
		if !ok || l > uint64(len(p)-next) {
			return sqltypes.NULL, 0, false
		}
		end := next + int(l)
		if !want {
			return sqltypes.NULL, end, true
		}
		return sqltypes.MakeTrusted(sqltypes.VarBinary, append([]byte(nil), p[next:end]...)), end, true
	}
	return sqltypes.NULL, 0, false
}

// lenEnc reads a length-encoded integer.
func lenEnc(p []byte, pos int) (uint64, int, bool) {
	if pos >= len(p) {
		return 0, 0, false
	}
	switch c := p[pos]; {
	case c < 0xfb:
		return uint64(c), pos + 1, true
	case c == 0xfc && pos+3 <= len(p):
		return uint64(binary.LittleEndian.Uint16(p[pos+1:])), pos + 3, true
	case c == 0xfd && pos+4 <= len(p):
		return uint64(p[pos+1]) | uint64(p[pos+2])<<8 | uint64(p[pos+3])<<16, pos + 4, true
	case c == 0xfe && pos+9 <= len(p):
		return binary.LittleEndian.Uint64(p[pos+1:]), pos + 9, true
	}
	return 0, 0, false
}

// decodeDatetime reads a DATE, DATETIME or TIMESTAMP value, formatted as
// vitess formats it.
func decodeDatetime(p []byte, pos int) (sqltypes.Value, int, bool) {
	if pos >= len(p) {
		return sqltypes.NULL, 0, false
	}
	size := int(p[pos])
	pos++
	if size != 0 && size != 4 && size != 7 && size != 11 || pos+size > len(p) {
		return sqltypes.NULL, 0, false
	}
	if size == 0 {
		return sqltypes.NewVarChar(" "), pos, true
	}
	b := p[pos : pos+size]
	it := strconv.Itoa
	s := it(int(binary.LittleEndian.Uint16(b))) + "-" + it(int(b[2])) + "-" + it(int(b[3]))
	if size >= 7 {
		s += " " + it(int(b[4])) + ":" + it(int(b[5])) + ":" + it(int(b[6]))
	}
	if size == 11 {
		s += "." + it(int(binary.LittleEndian.Uint32(b[7:])))
	}
	return sqltypes.NewVarChar(s), pos + size, true
}

// decodeTime reads a TIME value, formatted as vitess formats it.
func decodeTime(p []byte, pos int) (sqltypes.Value, int, bool) {
	if pos >= len(p) {
		return sqltypes.NULL, 0, false
	}
	size := int(p[pos])
	pos++
	if size != 0 && size != 8 && size != 12 || pos+size > len(p) {
		return sqltypes.NULL, 0, false
	}
	if size == 0 {
		return sqltypes.NewVarChar("00:00:00"), pos, true
	}
	b := p[pos : pos+size]
	it := strconv.Itoa
	s := ""
	if b[0] == 1 {
		s = "-"
	}
	hours := uint32(b[5]) + binary.LittleEndian.Uint32(b[1:])*24
	s += strconv.FormatUint(uint64(hours), 10) + ":" + it(int(b[6])) + ":" + it(int(b[7]))
	if size == 12 {
		s += "." + it(int(binary.LittleEndian.Uint32(b[8:])))
	}
	return sqltypes.NewVarChar(s), pos + size, true
}

// guard runs guardCommand on a command of the authenticated connection.
// Only vitess's goroutine calls it, the one that changes PrepareData.
func (c *Conn) guard(p []byte) guardResult {
	st := c.state.Load()
	if st == nil || st.MySQLConn() == nil {
		return guardResult{}
	}
	if p[0] == comStmtPrepare && c.checkPrepare != nil {
		if err := c.checkPrepare(st.MySQLConn(), string(p[1:])); err != nil {
			return guardResult{reply: err}
		}
		return guardResult{}
	}
	return guardCommand(p, st.MySQLConn().PrepareData)
}

// manyParams reports whether the COM_STMT_EXECUTE whose frame has begun
// (command byte and statement id buffered or arriving) is for a statement
// with more parameters than vitess can parse.
func (c *Conn) manyParams() bool {
	st := c.state.Load()
	if st == nil || st.MySQLConn() == nil {
		return false
	}
	b, err := c.br.Peek(5)
	if err != nil {
		return false
	}
	prep := st.MySQLConn().PrepareData[binary.LittleEndian.Uint32(b[1:])]
	return prep != nil && int(prep.ParamsCount) >= vitessBitmapLimit
}

// bigExecute reads a large COM_STMT_EXECUTE whole (under the packet
// budget, as a passed-through packet would be) and guards it.
func (c *Conn) bigExecute(hdr [4]byte, n int) error {
	if ok, err := c.reservePacket(n); !ok {
		return err
	}
	p := make([]byte, 0, n)
	for {
		if c.br.Buffered() < n {
			c.setReadDeadline(dlPacket)
		}
		k := len(p)
		p = append(p, make([]byte, n)...)
		if _, err := io.ReadFull(c.br, p[k:]); err != nil {
			return err
		}
		if !c.cont {
			break
		}
		var h [4]byte
		if c.br.Buffered() < 4 {
			c.setReadDeadline(dlPacket)
		}
		if _, err := io.ReadFull(c.br, h[:]); err != nil {
			return err
		}
		n = int(h[0]) | int(h[1])<<8 | int(h[2])<<16
		c.seq = h[3]
		c.packetLen += int64(n)
		c.cont = n == maxFrame
		if c.packetLen > c.maxPacket.Load() {
			return c.tooLarge()
		}
	}
	c.trimHeld(int64(len(p)))
	g := c.guard(p)
	switch {
	case g.reply != nil:
		c.writeErr(c.seq+1, g.reply)
		return nil
	case g.replace != nil:
		p = g.replace
	}
	// Framed again for vitess, sequence ids from 0.
	var out []byte
	for seq := byte(0); ; seq++ {
		k := min(len(p), maxFrame)
		out = append(out, byte(k), byte(k>>8), byte(k>>16), seq)
		out = append(out, p[:k]...)
		p = p[k:]
		if k < maxFrame {
			break
		}
	}
	c.pending = out
	return nil
}
