package wire

import (
	"unicode/utf8"
)

// Connection attributes (CLIENT_CONNECT_ATTRS): the name-value pairs a
// client sends in its handshake response (_client_name, _os, _pid,
// program_name, an application's own), kept with the connection and
// shown as MySQL shows them, in performance_schema.session_connect_attrs
// (every connection) and session_account_connect_attrs (the connections
// of the querying session's account). vitess reads past them and keeps
// nothing, so the connection wrapper takes them from the response it
// already checks (handshake.go).

// Attr is one connection attribute.
type Attr struct{ Name, Value string }

// MySQL's column widths: longer names and values are cut to them.
const (
	MaxAttrName  = 32
	MaxAttrValue = 1024
)

// parseConnAttrs returns a HandshakeResponse41's (payload p) connection
// attributes in the order sent; a block that ends early yields the
// attributes before it.
func parseConnAttrs(p []byte) []Attr {
	if len(p) < 4 || (uint32(p[0])|uint32(p[1])<<8|uint32(p[2])<<16|uint32(p[3])<<24)&0x100000 == 0 {
		return nil
	}
	pos := handshakeAttrsAt(p)
	if pos < 0 {
		return nil
	}
	l, next, ok := lenEnc(p, pos)
	if !ok || l > uint64(len(p)-next) {
		return nil
	}
	blk := p[next : next+int(l)]
	var out []Attr
	for len(blk) > 0 {
		name, rest, ok := lenEncBytes(blk)
		if !ok {
			break
		}
		value, rest, ok := lenEncBytes(rest)
		if !ok {
			break
		}
		out = append(out, Attr{cutRunes(name, MaxAttrName), cutRunes(value, MaxAttrValue)})
		blk = rest
	}
	return out
}

// lenEncBytes splits a length-encoded string off the front of b.
func lenEncBytes(b []byte) (s, rest []byte, ok bool) {
	l, next, ok := lenEnc(b, 0)
	if !ok || l > uint64(len(b)-next) {
		return nil, nil, false
	}
	return b[next : next+int(l)], b[next+int(l):], true
}

// cutRunes copies b into a string of at most n characters (bytes that
// are not UTF-8 count one each).
func cutRunes(b []byte, n int) string {
	i := 0
	for k := 0; k < n && i < len(b); k++ {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return string(b[:i])
}
