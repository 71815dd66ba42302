package mysqlcompress

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"strings"
	"testing"
)

// TestRoundTrip: a plain stream written through a Writer in pieces of
// every size (empty, under MinCompressLength, incompressible, larger than
// one compressed packet) reads back byte for byte, for zlib and zstd; the
// compressible pieces are smaller on the wire; sequence ids run on from
// the last one read.
func TestRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	noise := make([]byte, 70000)
	r.Read(noise)
	pieces := [][]byte{nil, []byte("short"), []byte(strings.Repeat("compressible text ", 500)), noise, bytes.Repeat([]byte{7}, maxPayload+1000)}
	for _, algo := range []Algorithm{Zlib, Zstd} {
		var wire bytes.Buffer
		var seq Seq
		seq.after(4) // the last packet read was id 4
		w := NewWriter(&wire, algo, 3, &seq)
		var want []byte
		for _, p := range pieces {
			if n, err := w.Write(p); err != nil || n != len(p) {
				t.Fatalf("%v: write %d bytes: %d, %v", algo, len(p), n, err)
			}
			want = append(want, p...)
		}
		if wire.Bytes()[3] != 5 {
			t.Fatalf("%v: first compressed id %d, want 5", algo, wire.Bytes()[3])
		}
		if int(w.Bytes.Load()) != wire.Len() || wire.Len() >= len(want)/2 {
			t.Fatalf("%v: %d bytes on the wire (counted %d) for %d plain", algo, wire.Len(), w.Bytes.Load(), len(want))
		}
		got, err := io.ReadAll(NewReader(&wire, algo, nil))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%v: read %d bytes (%v), want %d", algo, len(got), err, len(want))
		}
	}
}

// TestMalformed: a payload that does not expand to its declared length,
// or garbage where a zlib or zstd stream should be, is ErrCorrupt; a
// stream cut inside a packet is io.ErrUnexpectedEOF.
func TestMalformed(t *testing.T) {
	for _, algo := range []Algorithm{Zlib, Zstd} {
		var wire bytes.Buffer
		NewWriter(&wire, algo, 3, nil).Write([]byte(strings.Repeat("abcdef", 100)))
		good := wire.Bytes()
		cases := map[string][]byte{
			"declared length too large": append(append([]byte{}, good[:4]...), append([]byte{0xff, 0xff, 0}, good[7:]...)...),
			"declared length too small": append(append([]byte{}, good[:4]...), append([]byte{10, 0, 0}, good[7:]...)...),
			"garbage payload":           append(append([]byte{}, good[:7]...), bytes.Repeat([]byte{0x5a}, len(good)-7)...),
		}
		for name, b := range cases {
			_, err := io.ReadAll(NewReader(bytes.NewReader(b), algo, nil))
			if !errors.Is(err, ErrCorrupt) {
				t.Errorf("%v %s: %v, want ErrCorrupt", algo, name, err)
			}
		}
		_, err := io.ReadAll(NewReader(bytes.NewReader(good[:len(good)-3]), algo, nil))
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%v cut stream: %v", algo, err)
		}
	}
}

// FuzzReader: any bytes read as a compressed stream give data or an
// error, never a panic.
func FuzzReader(f *testing.F) {
	var wire bytes.Buffer
	NewWriter(&wire, Zstd, 3, nil).Write([]byte(strings.Repeat("abcdef", 100)))
	f.Add(wire.Bytes(), true)
	f.Add([]byte{5, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5}, false)
	f.Fuzz(func(t *testing.T, b []byte, zstd bool) {
		algo := Zlib
		if zstd {
			algo = Zstd
		}
		_, _ = io.ReadAll(NewReader(bytes.NewReader(b), algo, nil))
	})
}

// TestZstdAppendEncoders: the frames ZstdAppend makes (the C library's
// with cgo) and the pure-Go encoder's both expand to the input with the
// shared decoder, appended after what dst held, at MySQL's levels and
// sizes from empty to past the context's kept buffer; concurrent calls do
// not mix their frames.
func TestZstdAppendEncoders(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	words := make([]string, 30)
	for i := range words {
		words[i] = fmt.Sprint(r.Int63())
	}
	var inputs [][]byte
	for _, n := range []int{0, 1, 100, 5000, 300 << 10} {
		var b []byte
		for len(b) < n {
			b = append(b, words[r.Intn(len(words))]...)
		}
		inputs = append(inputs, b[:n])
	}
	check := func(name string, enc func(dst, src []byte, level int) []byte) {
		for _, level := range []int{1, 3, 9, 19} {
			for _, in := range inputs {
				out := enc([]byte("prefix"), in, level)
				if string(out[:6]) != "prefix" {
					t.Fatalf("%s level %d: dst's bytes not kept", name, level)
				}
				got, err := zstdDecoder().DecodeAll(out[6:], nil)
				if err != nil || !bytes.Equal(got, in) {
					t.Fatalf("%s level %d, %d bytes: expands to %d bytes, %v", name, level, len(in), len(got), err)
				}
				if len(in) >= 5000 && len(out)-6 >= len(in)*3/4 {
					t.Fatalf("%s level %d: %d bytes compressed to %d", name, level, len(in), len(out)-6)
				}
			}
		}
	}
	check("ZstdAppend", ZstdAppend)
	check("pure Go", zstdGoAppend)
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ {
		go func(g int) {
			in := inputs[2+g%2]
			for i := 0; i < 50; i++ {
				got, err := zstdDecoder().DecodeAll(ZstdAppend(nil, in, 3), nil)
				if err != nil || !bytes.Equal(got, in) {
					errs <- errors.New("a concurrent frame does not expand to its input")
					return
				}
			}
			errs <- nil
		}(g)
	}
	for g := 0; g < 4; g++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
