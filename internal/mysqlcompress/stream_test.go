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

// eventLike is a stream of records that share their structure and differ
// in random digits, as a binlog's row events of one table do.
func eventLike(r *rand.Rand, n int) [][]byte {
	var out [][]byte
	for i := 0; i < n; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "\x02header server_id=1 table=sbtest.sbtest1 columns=id,k,c,pad txn=%d ", i)
		for k := 0; k < 4; k++ {
			for d := 0; d < 60; d++ {
				b.WriteByte(byte('0' + r.Intn(10)))
			}
			b.WriteString("-row-end-")
		}
		out = append(out, []byte(b.String()))
	}
	return out
}

// TestStreamRoundTrip: a stream writer's packets read back byte for byte
// through a stream reader, for pieces from empty to past one packet
// (incompressible too); on records that repeat their structure from one
// write to the next the stream is at least a fifth smaller than MySQL's
// packet-by-packet zstd at the same level, and both beat plain.
func TestStreamRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	noise := make([]byte, 70000)
	r.Read(noise)
	records := eventLike(r, 300)
	pieces := append([][]byte{nil, []byte("short"), noise, bytes.Repeat([]byte{7}, maxPayload+1000)}, records...)
	var wire bytes.Buffer
	var seq Seq
	w := NewStreamWriter(&wire, 3, &seq)
	var want []byte
	for _, p := range pieces {
		if n, err := w.Write(p); err != nil || n != len(p) {
			t.Fatalf("write %d bytes: %d, %v", len(p), n, err)
		}
		want = append(want, p...)
	}
	got, err := io.ReadAll(NewStreamReader(&wire, nil))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes (%v), want %d", len(got), err, len(want))
	}

	size := func(w *Writer, out *bytes.Buffer) int {
		for _, rec := range records {
			w.Write(rec)
		}
		return out.Len()
	}
	var streamed, packets bytes.Buffer
	s, p := size(NewStreamWriter(&streamed, 3, nil), &streamed), size(NewWriter(&packets, Zstd, 3, nil), &packets)
	plain := 0
	for _, rec := range records {
		plain += len(rec) + HeaderLen
	}
	t.Logf("%d records: plain %d bytes, zstd per packet %d, streamed %d", len(records), plain, p, s)
	if s > p*4/5 || p >= plain {
		t.Fatalf("streamed %d bytes, per packet %d, plain %d", s, p, plain)
	}
	back, err := io.ReadAll(NewStreamReader(&streamed, nil))
	if err != nil || !bytes.Equal(back, bytes.Join(records, nil)) {
		t.Fatalf("streamed records read back as %d bytes: %v", len(back), err)
	}
}

// TestStreamReaderReadsFrames: a stream reader also reads MySQL's
// packet-by-packet zstd (a source that ignored the request), while a
// packet-by-packet reader given a stream reports ErrCorrupt, not
// wrong bytes: streaming is only for a peer that asked.
func TestStreamReaderReadsFrames(t *testing.T) {
	records := eventLike(rand.New(rand.NewSource(4)), 50)
	want := bytes.Join(records, nil)
	var frames, stream bytes.Buffer
	fw, sw := NewWriter(&frames, Zstd, 3, nil), NewStreamWriter(&stream, 3, nil)
	for _, rec := range records {
		fw.Write(rec)
		sw.Write(rec)
	}
	got, err := io.ReadAll(NewStreamReader(&frames, nil))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("frames through a stream reader: %d bytes, %v", len(got), err)
	}
	_, err = io.ReadAll(NewReader(&stream, Zstd, nil))
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("a stream through a packet reader: %v, want ErrCorrupt", err)
	}
}

// TestStreamMalformed: a stream packet whose blocks stop short of its
// declared plain length, one that carries more than it declares, and
// garbage are ErrCorrupt.
func TestStreamMalformed(t *testing.T) {
	records := eventLike(rand.New(rand.NewSource(5)), 3)
	packets := make([][]byte, len(records))
	var wire bytes.Buffer
	w := NewStreamWriter(&wire, 3, nil)
	at := 0
	for i, rec := range records {
		w.Write(rec)
		packets[i] = append([]byte(nil), wire.Bytes()[at:]...)
		at = wire.Len()
	}
	setUlen := func(p []byte, n int) []byte {
		q := append([]byte(nil), p...)
		q[4], q[5], q[6] = byte(n), byte(n>>8), byte(n>>16)
		return q
	}
	first := packets[0]
	ulen := len(records[0])
	garbage := append(append([]byte(nil), first[:HeaderLen]...), bytes.Repeat([]byte{0x5a}, len(first)-HeaderLen)...)
	cases := map[string][]byte{
		"declares more than it holds": setUlen(first, ulen+10),
		"declares less than it holds": setUlen(first, ulen-10),
		"garbage":                     garbage,
	}
	for name, b := range cases {
		got, err := io.ReadAll(NewStreamReader(bytes.NewReader(b), nil))
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %d bytes, %v; want ErrCorrupt", name, len(got), err)
		}
	}
}

// FuzzStreamReader: any bytes read as a stream give data or an error,
// never a panic or a read past the input.
func FuzzStreamReader(f *testing.F) {
	var wire bytes.Buffer
	w := NewStreamWriter(&wire, 3, nil)
	for _, rec := range eventLike(rand.New(rand.NewSource(6)), 3) {
		w.Write(rec)
	}
	f.Add(wire.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = io.ReadAll(NewStreamReader(bytes.NewReader(b), nil))
	})
}
