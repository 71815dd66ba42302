package lenenc

import (
	"bytes"
	"testing"
)

func TestAppend(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		want []byte
	}{
		{0, []byte{0}}, {250, []byte{250}}, {251, []byte{0xfc, 251, 0}}, {1<<16 - 1, []byte{0xfc, 0xff, 0xff}},
		{1 << 16, []byte{0xfd, 0, 0, 1}}, {1 << 24, []byte{0xfe, 0, 0, 0, 1, 0, 0, 0, 0}},
	} {
		if got := Append(nil, tc.n); !bytes.Equal(got, tc.want) {
			t.Errorf("Append(%d) = %x, want %x", tc.n, got, tc.want)
		}
	}
	if got := AppendString([]byte{9}, []byte("ab")); !bytes.Equal(got, []byte{9, 2, 'a', 'b'}) {
		t.Errorf("AppendString = %x", got)
	}
}
