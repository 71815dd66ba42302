package wire

import (
	"encoding/binary"
	"slices"
	"strings"
	"testing"
)

// handshakeResponse builds a HandshakeResponse41 payload with
// CLIENT_PLUGIN_AUTH_LENENC_CLIENT_DATA, a database, a plugin name and,
// when attrs is not nil, the connection-attribute block.
func handshakeResponse(attrs []byte) []byte {
	caps := uint32(0x200 | 0x8000 | 0x8 | 0x80000 | 0x00200000)
	if attrs != nil {
		caps |= 0x100000
	}
	p := binary.LittleEndian.AppendUint32(nil, caps)
	p = binary.LittleEndian.AppendUint32(p, 1<<24)
	p = append(p, 45)
	p = append(p, make([]byte, 23)...)
	p = append(p, "root\x00"...)
	p = append(p, 20)
	p = append(p, strings.Repeat("s", 20)...)
	p = append(p, "db\x00mysql_native_password\x00"...)
	if attrs != nil {
		p = append(p, byte(len(attrs)))
		p = append(p, attrs...)
	}
	return p
}

func lenencStr(s string) []byte { return append([]byte{byte(len(s))}, s...) }

func TestParseConnAttrs(t *testing.T) {
	var blk []byte
	for _, s := range []string{"_client_name", "Go-MySQL-Driver", "fo/o", "bo/o", strings.Repeat("n", 40), "é✓"} {
		blk = append(blk, lenencStr(s)...)
	}
	got := parseConnAttrs(handshakeResponse(blk))
	want := []Attr{{"_client_name", "Go-MySQL-Driver"}, {"fo/o", "bo/o"}, {strings.Repeat("n", 32), "é✓"}}
	if !slices.Equal(got, want) {
		t.Fatalf("attributes = %q, want %q", got, want)
	}
	if handshakeResponseEnd(handshakeResponse(blk)) != len(handshakeResponse(blk)) {
		t.Error("handshakeResponseEnd does not end at the attribute block's end")
	}
	if got := parseConnAttrs(handshakeResponse(nil)); got != nil {
		t.Errorf("no CLIENT_CONNECT_ATTRS: %q", got)
	}
	// A block whose last pair is cut keeps the pairs before it; a block
	// longer than the packet, or a packet cut inside its fields, none.
	cut := append(append([]byte(nil), lenencStr("a")...), lenencStr("1")...)
	cut = append(cut, 5, 'b')
	if got := parseConnAttrs(handshakeResponse(cut)); !slices.Equal(got, []Attr{{"a", "1"}}) {
		t.Errorf("cut pair: %q", got)
	}
	long := handshakeResponse(lenencStr("x"))
	long[len(long)-3] = 200 // the block's length, past the end
	if got := parseConnAttrs(long); got != nil {
		t.Errorf("block past the packet's end: %q", got)
	}
	full := handshakeResponse(blk)
	for n := 0; n < len(full); n++ {
		_ = parseConnAttrs(full[:n]) // never panics
	}
}
