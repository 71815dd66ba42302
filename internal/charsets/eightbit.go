package charsets

import (
	"encoding/hex"
	"sync"
	"unicode/utf8"
	_ "unsafe" // go:linkname of GMS's character set and collation tables

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/encodings"
	"golang.org/x/text/encoding/charmap"
)

//go:generate go run gen_eightbit.go -dsn root@tcp(127.0.0.1:3306)/

//go:linkname characterSetArray github.com/dolthub/go-mysql-server/sql.characterSetArray
var characterSetArray [256]sql.CharacterSet

//go:linkname collationArray github.com/dolthub/go-mysql-server/sql.collationArray
var collationArray [324]sql.Collation

var installOnce sync.Once

// Install puts the 8-bit character sets' encoders and their collations'
// weights into GMS's tables where GMS has none (once per process; the
// tables are GMS's, global). Nothing is written when a table differs
// from what GMS's public API reads (a GMS whose tables changed shape).
func Install() {
	installOnce.Do(func() {
		if tablesAreGMS() {
			installEightBit()
		}
	})
}

// tablesAreGMS reports whether characterSetArray and collationArray are
// the tables GMS reads through its public API, entry for entry: the
// go:linkname names private variables of GMS.
func tablesAreGMS() bool {
	for i := range characterSetArray {
		cs := &characterSetArray[i]
		id := sql.CharacterSetID(i)
		if cs.Name != id.Name() || cs.Description != id.Description() || int64(cs.MaxLength) != id.MaxLength() {
			return false
		}
	}
	for i := 1; i < len(collationArray); i++ {
		c := &collationArray[i]
		id := sql.CollationID(i)
		if c.Name != id.Name() || c.CharacterSet != id.CharacterSet() || c.PadAttribute != id.PadAttribute() {
			return false
		}
	}
	return sql.CharacterSet_latin2.Name() == "latin2" && sql.Collation_latin2_general_ci.Name() == "latin2_general_ci"
}

// eightBitSet is one generated character set: overrides maps a byte whose
// MySQL character differs from the charmap's to it (-1: no character);
// upper and lower are the hex of the 256-byte case maps.
type eightBitSet struct {
	name         string
	overrides    map[byte]rune
	upper, lower string
}

// eightBitCollation is one generated collation: the hex of each byte's
// weight.
type eightBitCollation struct {
	name    string
	weights string
}

// charmaps are the encoders' bases, by character set.
var charmaps = map[string]*charmap.Charmap{
	"latin2":   charmap.ISO8859_2,
	"koi8r":    charmap.KOI8R,
	"koi8u":    charmap.KOI8U,
	"cp866":    charmap.CodePage866,
	"hebrew":   charmap.ISO8859_8,
	"latin5":   charmap.ISO8859_9,
	"cp1251":   charmap.Windows1251,
	"cp1250":   charmap.Windows1250,
	"greek":    charmap.ISO8859_7,
	"cp850":    charmap.CodePage850,
	"cp852":    charmap.CodePage852,
	"macroman": charmap.Macintosh,
}

// installEightBit puts the generated sets' encoders and collations'
// weights into GMS's tables where GMS has none.
func installEightBit() {
	encs := map[sql.CharacterSetID]*byteEncoder{}
	for _, s := range eightBitSets {
		cs, err := sql.ParseCharacterSet(s.name)
		cm := charmaps[s.name]
		if err != nil || cm == nil || int(cs) >= len(characterSetArray) || characterSetArray[cs].Encoder != nil {
			continue
		}
		e := newByteEncoder(cm, s)
		if e == nil {
			continue
		}
		characterSetArray[cs].Encoder = e
		encs[cs] = e
	}
	for _, c := range eightBitCollations {
		id, err := sql.ParseCollation("", c.name, false)
		if err != nil || int(id) >= len(collationArray) || collationArray[id].Sorter != nil {
			continue
		}
		e := encs[id.CharacterSet()]
		w, err := hex.DecodeString(c.weights)
		if e == nil || err != nil || len(w) != 256 {
			continue
		}
		collationArray[id].Sorter = e.sorter((*[256]byte)(w))
	}
}

// byteEncoder is a single-byte character set whose bytes below 0x80 are
// ASCII.
type byteEncoder struct {
	dec          [256]rune // -1: no character
	enc          map[rune]byte
	upper, lower [256]byte
}

var _ encodings.Encoder = (*byteEncoder)(nil)

func newByteEncoder(cm *charmap.Charmap, s eightBitSet) *byteEncoder {
	e := &byteEncoder{enc: map[rune]byte{}}
	up, err1 := hex.DecodeString(s.upper)
	lo, err2 := hex.DecodeString(s.lower)
	if err1 != nil || err2 != nil || len(up) != 256 || len(lo) != 256 {
		return nil
	}
	copy(e.upper[:], up)
	copy(e.lower[:], lo)
	for b := 0; b < 256; b++ {
		r, ok := s.overrides[byte(b)]
		if !ok {
			r = cm.DecodeByte(byte(b))
		}
		if r == utf8.RuneError || r < 0 {
			r = -1
		}
		if b < 0x80 && r != rune(b) {
			return nil // the encoder's ASCII shortcuts would be wrong
		}
		e.dec[b] = r
		if _, dup := e.enc[r]; r >= 0 && !dup {
			e.enc[r] = byte(b)
		}
	}
	return e
}

// byteOf is r's byte, false when the set has no such character.
func (e *byteEncoder) byteOf(r rune) (byte, bool) {
	if r < utf8.RuneSelf && r >= 0 {
		return byte(r), true
	}
	b, ok := e.enc[r]
	return b, ok
}

// sorter is a collation's weight function over the set's characters; a
// character the set lacks (no column of the set holds one) weighs after
// every byte, by its code point.
func (e *byteEncoder) sorter(w *[256]byte) sql.CollationSorter {
	return func(r rune) int32 {
		if b, ok := e.byteOf(r); ok {
			return int32(w[b])
		}
		return 256 + r
	}
}

// Decode implements encodings.Encoder.
func (e *byteEncoder) Decode(str []byte) ([]byte, bool) {
	if isASCIIBytes(str) {
		return str, true
	}
	out := make([]byte, 0, len(str)+len(str)/2)
	for _, b := range str {
		r := e.dec[b]
		if r < 0 {
			return nil, false
		}
		out = utf8.AppendRune(out, r)
	}
	return out, true
}

// Encode implements encodings.Encoder.
func (e *byteEncoder) Encode(str []byte) ([]byte, bool) {
	if isASCIIBytes(str) {
		return str, true
	}
	out := make([]byte, 0, len(str))
	for i := 0; i < len(str); {
		r, n := utf8.DecodeRune(str[i:])
		b, ok := e.byteOf(r)
		if !ok || (r == utf8.RuneError && n <= 1) {
			return nil, false
		}
		out = append(out, b)
		i += n
	}
	return out, true
}

// EncodeReplaceUnknown implements encodings.Encoder.
func (e *byteEncoder) EncodeReplaceUnknown(str []byte) []byte {
	if isASCIIBytes(str) {
		return str
	}
	out := make([]byte, 0, len(str))
	for i := 0; i < len(str); {
		r, n := utf8.DecodeRune(str[i:])
		b, ok := e.byteOf(r)
		if !ok || (r == utf8.RuneError && n <= 1) {
			b = '?'
		}
		out = append(out, b)
		i += n
	}
	return out
}

// DecodeRune implements encodings.Encoder.
func (e *byteEncoder) DecodeRune(r []byte) ([]byte, bool) {
	if len(r) != 1 || e.dec[r[0]] < 0 {
		return nil, false
	}
	return utf8.AppendRune(nil, e.dec[r[0]]), true
}

// EncodeRune implements encodings.Encoder.
func (e *byteEncoder) EncodeRune(r []byte) ([]byte, bool) {
	c, n := utf8.DecodeRune(r)
	b, ok := e.byteOf(c)
	if !ok || n != len(r) || (c == utf8.RuneError && n <= 1) {
		return nil, false
	}
	return []byte{b}, true
}

// mapRune is r through a case map; a character the set lacks, or a byte
// whose mapping is no character, stays as it is.
func (e *byteEncoder) mapRune(m *[256]byte, r rune) rune {
	b, ok := e.byteOf(r)
	if !ok {
		return r
	}
	if to := e.dec[m[b]]; to >= 0 {
		return to
	}
	return r
}

func (e *byteEncoder) mapString(m *[256]byte, s string) string {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		out = append(out, e.mapRune(m, r))
	}
	return string(out)
}

// Uppercase implements encodings.Encoder.
func (e *byteEncoder) Uppercase(str string) string { return e.mapString(&e.upper, str) }

// Lowercase implements encodings.Encoder.
func (e *byteEncoder) Lowercase(str string) string { return e.mapString(&e.lower, str) }

// UppercaseRune implements encodings.Encoder.
func (e *byteEncoder) UppercaseRune(r rune) rune { return e.mapRune(&e.upper, r) }

// LowercaseRune implements encodings.Encoder.
func (e *byteEncoder) LowercaseRune(r rune) rune { return e.mapRune(&e.lower, r) }

// NextRune implements encodings.Encoder: strings of the set are UTF-8
// inside Petrel.
func (e *byteEncoder) NextRune(str string) (rune, int) { return utf8.DecodeRuneInString(str) }

// IsReturnSafe implements encodings.Encoder: ASCII input is returned as
// it is.
func (e *byteEncoder) IsReturnSafe() bool { return false }

func isASCIIBytes(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}
