package sqlengine

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"petrel/sqlengine/sqlerr"

	"petrel/sqlengine/sqlmode"

	"petrel/internal/mysqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// Decoding what a client sends from its character_set_client into UTF-8,
// the only encoding GMS parses and stores. utf8mb4, utf8mb3, ascii and
// binary clients are passed through untouched (invalid bytes then fail
// at the write, error 1366, like any string a column cannot hold). Other
// clients must use an ASCII-compatible single-byte character set (latin1,
// latin7, cp1256, cp1257, dec8, geostd8): their statement text is decoded
// byte by byte, except string literals with a character set introducer
// (_binary'...', _latin1'...'), whose bytes GMS reads as the introducer
// says, and their string parameters (MYSQL_TYPE_STRING, VAR_STRING,
// VARCHAR) are decoded; BLOB-typed parameters are binary, as in MySQL.

// clientCodec is how a connection's text is decoded; table is nil when no
// decoding is needed.
type clientCodec struct {
	cs    sql.CharacterSetID
	table *byteTable
}

// byteTable maps each byte >= 0x80 of a single-byte character set to its
// UTF-8 form; "" marks a byte that is no character of the set.
type byteTable [128]string

var passthrough = &clientCodec{}

var (
	tablesMu sync.Mutex
	tables   = map[sql.CharacterSetID]*byteTable{}
)

// singleByteTable builds (once) the table of an ASCII-compatible
// single-byte character set, or returns nil if cs is not one.
func singleByteTable(cs sql.CharacterSetID) *byteTable {
	tablesMu.Lock()
	defer tablesMu.Unlock()
	if t, ok := tables[cs]; ok {
		return t
	}
	var t *byteTable
	if enc := cs.Encoder(); enc != nil && cs.MaxLength() == 1 && cs != sql.CharacterSet_binary {
		t = new(byteTable)
		for b := 0; b < 256; b++ {
			dec, ok := enc.Decode([]byte{byte(b)})
			if b < 0x80 {
				if !ok || len(dec) != 1 || dec[0] != byte(b) {
					t = nil // not ASCII-compatible (swe7)
					break
				}
				continue
			}
			if ok && utf8.Valid(dec) {
				t[b-0x80] = string(dec)
			}
		}
	}
	tables[cs] = t
	return t
}

// clientCapable reports whether Petrel can take statements in cs.
func clientCapable(cs sql.CharacterSetID) bool {
	switch cs {
	case sql.CharacterSet_utf8mb4, sql.CharacterSet_utf8mb3, sql.CharacterSet_ascii, sql.CharacterSet_binary:
		return true
	}
	return singleByteTable(cs) != nil
}

// codecFor returns the codec of a client character set (passthrough for
// those that need no decoding).
func codecFor(cs sql.CharacterSetID) *clientCodec {
	if t := singleByteTable(cs); t != nil {
		return &clientCodec{cs: cs, table: t}
	}
	return passthrough
}

// codec returns the connection's codec. Before the session exists (the
// connection's first command) it is the handshake's character set's.
func (h *errHandler) codec(c *mysql.Conn) *clientCodec {
	cs, ok := c.ClientData.(*connState)
	if !ok {
		return passthrough
	}
	if cc := cs.codec.Load(); cc != nil {
		return cc
	}
	cc := passthrough
	if coll, ok := handshakeCollation(c.CharacterSet); ok && clientCapable(coll.CharacterSet()) {
		cc = codecFor(coll.CharacterSet())
	}
	cs.codec.CompareAndSwap(nil, cc)
	return cs.codec.Load()
}

// decodeText decodes statement text. The result's origin maps an offset
// in the decoded text back to the original (multi-statement remainders).
func (cc *clientCodec) decodeText(q string) (decoded, error) {
	if cc.table == nil || isASCIIText(q) {
		return decoded{text: q}, nil
	}
	d := decoded{orig: q}
	var b strings.Builder
	b.Grow(len(q) + len(q)/4)
	lit := 0 // start of the text not yet copied
	flush := func(end int) error {
		for i := lit; i < end; i++ {
			c := q[i]
			if c < utf8.RuneSelf {
				b.WriteByte(c)
				continue
			}
			u := cc.table[c-0x80]
			if u == "" {
				return invalidString(cc.cs, q[i:])
			}
			b.WriteString(u)
		}
		return nil
	}
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			end := literalEnd(q, i)
			if introduced(q, i) {
				if err := flush(i); err != nil {
					return decoded{}, err
				}
				d.raw = append(d.raw, rawSpan{orig: i, conv: b.Len(), n: end - i})
				b.WriteString(q[i:end])
				lit = end
			}
			i = end
		case c == '`':
			i = quotedEnd(q, i, '`')
		case c == '#' || (c == '-' && strings.HasPrefix(q[i:], "-- ")):
			if j := strings.IndexByte(q[i:], '\n'); j >= 0 {
				i += j + 1
			} else {
				i = len(q)
			}
		case c == '/' && strings.HasPrefix(q[i:], "/*") && !strings.HasPrefix(q[i:], "/*!"):
			if j := strings.Index(q[i+2:], "*/"); j >= 0 {
				i += j + 4
			} else {
				i = len(q)
			}
		default:
			i++
		}
	}
	if err := flush(len(q)); err != nil {
		return decoded{}, err
	}
	d.text = b.String()
	return d, nil
}

// decoded is statement text decoded to UTF-8.
type decoded struct {
	text string
	orig string    // the original text ("" when unchanged)
	raw  []rawSpan // spans copied undecoded, in order
}

type rawSpan struct{ orig, conv, n int }

// original returns the suffix of the original text that the decoded
// suffix rest (of d.text) came from.
func (d decoded) original(cc *clientCodec, rest string) string {
	if d.orig == "" || rest == "" {
		return rest
	}
	target := len(d.text) - len(rest)
	// walk advances through decoded bytes from original offset o (decoded
	// offset c) until the decoded offset reaches target.
	walk := func(o, c int) string {
		for c < target && o < len(d.orig) {
			if x := d.orig[o]; x < utf8.RuneSelf {
				c++
			} else {
				c += len(cc.table[x-0x80])
			}
			o++
		}
		return d.orig[o:]
	}
	o, c := 0, 0
	for _, r := range d.raw {
		if target < r.conv {
			return walk(o, c)
		}
		if target < r.conv+r.n {
			return d.orig[r.orig+target-r.conv:]
		}
		o, c = r.orig+r.n, r.conv+r.n
	}
	return walk(o, c)
}

// isASCIIText reports whether s is 7-bit ASCII, eight bytes at a time
// (the scan path asks it of every text value it sends).
func isASCIIText(s string) bool {
	for len(s) >= 8 {
		w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
		s = s[8:]
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// literalEnd returns the offset just past the string literal opened at
// q[i] (backslash escapes and doubled quotes included), or len(q).
func literalEnd(q string, i int) int {
	quote := q[i]
	for j := i + 1; j < len(q); j++ {
		switch q[j] {
		case '\\':
			j++
		case quote:
			if j+1 < len(q) && q[j+1] == quote {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(q)
}

// quotedEnd returns the offset just past the identifier quoted with quote
// opened at q[i], or len(q).
func quotedEnd(q string, i int, quote byte) int {
	for j := i + 1; j < len(q); j++ {
		if q[j] == quote {
			if j+1 < len(q) && q[j+1] == quote {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(q)
}

// introduced reports whether the literal opening at q[i] follows a
// character set introducer (_binary, _latin1, _utf8mb4, ...).
func introduced(q string, i int) bool {
	j := i
	for j > 0 && (q[j-1] == ' ' || q[j-1] == '\t' || q[j-1] == '\n' || q[j-1] == '\r') {
		j--
	}
	end := j
	for j > 0 && sqlmode.IsIdentByte(q[j-1]) {
		j--
	}
	word := q[j:end]
	if len(word) < 2 || word[0] != '_' || (j > 0 && (q[j-1] == '.' || q[j-1] == '@')) {
		return false
	}
	_, err := sql.ParseCharacterSet(word[1:])
	return err == nil
}

// decodeBindVars decodes the string parameters of a prepared statement's
// execution: those the client typed MYSQL_TYPE_STRING, VAR_STRING or
// VARCHAR (vitess hands every string parameter over as VARBINARY; the
// client's types are in ParamsType). BLOB-typed ones are binary, as in
// MySQL. The map is the connection's and is refilled by each execution,
// so entries are replaced, never modified in place.
func (cc *clientCodec) decodeBindVars(p *mysql.PrepareData) error {
	if cc.table == nil || p == nil {
		return nil
	}
	for i, typ := range p.ParamsType {
		if t := querypb.Type(typ); t != sqltypes.VarChar && t != sqltypes.Char {
			continue
		}
		k := "v" + strconv.Itoa(i+1)
		bv := p.BindVars[k]
		if bv == nil || isASCIIText(string(bv.Value)) {
			continue
		}
		out := make([]byte, 0, len(bv.Value)+len(bv.Value)/2)
		for j, c := range bv.Value {
			if c < utf8.RuneSelf {
				out = append(out, c)
				continue
			}
			u := cc.table[c-0x80]
			if u == "" {
				return invalidString(cc.cs, string(bv.Value[j:]))
			}
			out = append(out, u...)
		}
		p.BindVars[k] = &querypb.BindVariable{Type: bv.Type, Value: out}
	}
	return nil
}

func invalidString(cs sql.CharacterSetID, s string) error {
	return mysqlerr.New(mysqlerr.ErInvalidCharacterString, "Invalid %s character string: '%s'", cs.Name(), sqlerr.EscapeHex(s, 6))
}
