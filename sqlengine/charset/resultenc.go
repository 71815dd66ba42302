package charset

import (
	"slices"
	"sync"
	_ "unsafe" // go:linkname of GMS's character set table

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/encodings"

	"petrel/internal/charsets"
)

// Result strings in a client's character_set_results. GMS converts every
// text value it sends from UTF-8 into the connection's result character
// set through that set's encodings.Encoder; for latin1 (the default of
// MariaDB's and MySQL's command-line tools, mysqlslap among them) and the
// other table-driven sets that is a rune-by-rune search of a range table,
// which cost 45% of the server's CPU in mysqlslap's mixed load. Every such
// set that maps ASCII to itself gets a wrapper whose Encode returns an
// all-ASCII string unchanged, in one pass over its bytes, and hands any
// other string to the set's own encoder: the bytes sent are the same.

//go:linkname characterSetArray github.com/dolthub/go-mysql-server/sql.characterSetArray
var characterSetArray [256]sql.CharacterSet

var asciiFastOnce sync.Once

// InstallASCIIEncoders installs the 8-bit character sets GMS lacks
// (charsets.Install: the wrappers must wrap their encoders) and wraps the encoder of every ASCII-preserving
// character set (once per process; the tables are GMS's, global).
func InstallASCIIEncoders() {
	charsets.Install()
	asciiFastOnce.Do(func() {
		if !tableIsGMS() {
			return
		}
		// Binary and UTF-8 pass bytes through already (slot 0, the
		// default character set, holds utf8mb4's encoder too).
		skip := []encodings.Encoder{
			characterSetArray[sql.CharacterSet_binary].Encoder,
			characterSetArray[sql.CharacterSet_utf8mb4].Encoder,
			characterSetArray[sql.CharacterSet_utf8mb3].Encoder,
		}
		for i := range characterSetArray {
			cs := &characterSetArray[i]
			if cs.Encoder == nil || slices.Contains(skip, cs.Encoder) {
				continue
			}
			if _, done := cs.Encoder.(asciiFastEncoder); done || !preservesASCII(cs.Encoder) {
				continue
			}
			cs.Encoder = asciiFastEncoder{cs.Encoder}
		}
	})
}

// tableIsGMS reports whether characterSetArray is the table GMS reads
// through its public API, entry for entry: the go:linkname names a
// private variable of GMS, so a GMS whose table changed shape or meaning
// leaves the encoders unwrapped (slower, the same bytes) instead of
// writing into memory that is not the table.
func tableIsGMS() bool {
	for i := range characterSetArray {
		cs := &characterSetArray[i]
		id := sql.CharacterSetID(i)
		if cs.Name != id.Name() || cs.Description != id.Description() || int64(cs.MaxLength) != id.MaxLength() {
			return false
		}
	}
	return sql.CharacterSet_latin1.Name() == "latin1" && sql.CharacterSet_utf8mb4.Name() == "utf8mb4"
}

// preservesASCII reports whether enc encodes every ASCII byte as itself
// (swe7 and the UTF-16/32 sets do not; GMS's range tables of the latter
// panic on a lone ASCII byte, which counts as not preserving).
func preservesASCII(enc encodings.Encoder) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	for b := 0; b < 0x80; b++ {
		out, ok := enc.Encode([]byte{byte(b)})
		if !ok || len(out) != 1 || out[0] != byte(b) {
			return false
		}
	}
	return true
}

// asciiFastEncoder is an ASCII-preserving encoder with an all-ASCII
// shortcut for Encode.
type asciiFastEncoder struct {
	encodings.Encoder
}

// Encode implements encodings.Encoder.
func (e asciiFastEncoder) Encode(str []byte) ([]byte, bool) {
	if isASCIIBytes(str) {
		return str, true
	}
	return e.Encoder.Encode(str)
}

// EncodeReplaceUnknown implements encodings.Encoder.
func (e asciiFastEncoder) EncodeReplaceUnknown(str []byte) []byte {
	if isASCIIBytes(str) {
		return str
	}
	return e.Encoder.EncodeReplaceUnknown(str)
}

// IsReturnSafe implements encodings.Encoder: an ASCII input is returned
// as it is, so callers that modify results must copy them.
func (e asciiFastEncoder) IsReturnSafe() bool { return false }

func isASCIIBytes(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// ASCIIPassThrough reports a result character set whose encoder sends
// ASCII text as it is.
func ASCIIPassThrough(results sql.CharacterSetID) bool {
	if results >= sql.CharacterSetID(len(characterSetArray)) {
		return false
	}
	_, ok := results.Encoder().(asciiFastEncoder)
	return ok
}
