package charset

import (
	"bytes"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// TestASCIIFastEncoders checks that the wrapped result encoders produce
// exactly the bytes (and the ok flags) of the encoders they wrap, for
// ASCII strings, strings the set can hold and strings it cannot.
func TestASCIIFastEncoders(t *testing.T) {
	InstallASCIIEncoders()
	inputs := []string{"", "abc", "intcol1 \x00\x7f tail", "\xc3\xa9t\xc3\xa9", "a\xe2\x82\xacb", "\xc4\x80", "\xe4\xb8\xad\xe6\x96\x87", "mixed ascii then \xc3\xa9"}
	wrapped := 0
	for i := range characterSetArray {
		cs := characterSetArray[i]
		f, ok := cs.Encoder.(asciiFastEncoder)
		if !ok {
			continue
		}
		wrapped++
		t.Logf("wrapped: %s", cs.Name)
		for _, in := range inputs {
			got, gok := f.Encode([]byte(in))
			want, wok := f.Encoder.Encode([]byte(in))
			if gok != wok || (wok && !bytes.Equal(got, want)) {
				t.Errorf("%s: Encode(%q) = %q %v, want %q %v", cs.Name, in, got, gok, want, wok)
			}
			if got, want := f.EncodeReplaceUnknown([]byte(in)), f.Encoder.EncodeReplaceUnknown([]byte(in)); !bytes.Equal(got, want) {
				t.Errorf("%s: EncodeReplaceUnknown(%q) = %q, want %q", cs.Name, in, got, want)
			}
		}
	}
	if _, ok := sql.CharacterSet_latin1.Encoder().(asciiFastEncoder); !ok {
		t.Fatalf("latin1's encoder is %T, not wrapped", sql.CharacterSet_latin1.Encoder())
	}
	if _, ok := sql.CharacterSet_utf8mb4.Encoder().(asciiFastEncoder); ok {
		t.Error("utf8mb4's encoder wrapped (it passes bytes through already)")
	}
	// latin1 is cp1252: 'é' is 0xE9 and '€' 0x80, as before the wrapper.
	if got, ok := sql.CharacterSet_latin1.Encoder().Encode([]byte("\xc3\xa9\xe2\x82\xac")); !ok || string(got) != "\xe9\x80" {
		t.Errorf("latin1 'é€' = %q %v, want \\xe9\\x80", got, ok)
	}
	if wrapped < 6 {
		t.Errorf("only %d character sets wrapped", wrapped)
	}
	t.Logf("%d character sets wrapped", wrapped)
}
