package binlog

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage"
)

// insertCompressed inserts id in a transaction its session compresses at
// level (0: not compressed).
func insertCompressed(st *storage.Engine, id int64, level int) error {
	tb := st.Catalog().Table("db", "t")
	txn := st.Begin()
	txn.SetCompression(level)
	if err := txn.Insert(context.Background(), tb, sql.Row{id, fmt.Sprint("v", id)}); err != nil {
		txn.Rollback()
		return err
	}
	return txn.Commit(context.Background())
}

// TestCompressedTransactionEncoding: a compressed sysbench transaction is
// a GTID event and one TRANSACTION_PAYLOAD event in MySQL's layout
// (header fields, zstd frame); expanded, it gives back the uncompressed
// encoding's events, byte for byte apart from log_pos, checksum and the
// XID value; the GTID's transaction_length is the compressed size.
func TestCompressedTransactionEncoding(t *testing.T) {
	rec := sysbenchRecord(t)
	o := Options{ServerID: 7, ServerVersion: "8.0.40-petrel"}
	plain, err := encodeTransaction(o, nil, rec, testSID)
	if err != nil {
		t.Fatal(err)
	}
	plain.place(42, 9, 11, 1000)
	z, err := encodeCompressed(o, nil, rec, testSID, 3, 77)
	if err != nil {
		t.Fatal(err)
	}
	z.place(42, 9, 11, 1000)
	if len(z.ends) != 2 {
		t.Fatalf("compressed transaction has %d events, want 2 (GTID, payload)", len(z.ends))
	}
	gtid, payload := z.buf[:z.ends[0]], z.buf[z.ends[0]:]
	g, err := ParseGTID(Body(gtid))
	if err != nil {
		t.Fatal(err)
	}
	if g.GTID.GNO != 42 || g.TxnLen != uint64(len(z.buf)) {
		t.Fatalf("GTID %+v, want GNO 42 and transaction_length %d", g, len(z.buf))
	}
	h, err := ParseHeader(payload)
	if err != nil || h.Type != TransactionPayloadEvent || h.NextPos != uint32(1000+len(z.buf)) {
		t.Fatalf("payload header %+v, %v", h, err)
	}
	p, err := ParsePayload(Body(payload))
	if err != nil {
		t.Fatal(err)
	}
	// The header as MySQL writes it: type, length, value packed integers.
	body := Body(payload)
	if body[0] != payloadCompressionField || body[1] != 1 || body[2] != CompressionZstd {
		t.Fatalf("payload header starts % x, want the compression type field (2 1 0)", body[:3])
	}
	if p.Compression != CompressionZstd || p.Size != uint64(len(p.Data)) || !bytes.HasPrefix(p.Data, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		t.Fatalf("payload %+v is not a zstd frame of its declared size", p)
	}
	inner, err := ExpandPayload(payload)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]byte{}
	prev := plain.ends[0]
	for _, end := range plain.ends[1:] {
		want = append(want, plain.buf[prev:end])
		prev = end
	}
	if len(inner) != len(want) || p.UncompressedSize != uint64(len(plain.buf)-plain.ends[0]-ChecksumLen*len(want)) {
		t.Fatalf("%d inner events of %d bytes, want %d of %d", len(inner), p.UncompressedSize, len(want), len(plain.buf)-plain.ends[0]-ChecksumLen*len(want))
	}
	for i := range inner {
		ih, err := ParseHeader(inner[i])
		if err != nil {
			t.Fatalf("inner event %d: %v", i, err)
		}
		if ih.NextPos != h.NextPos {
			t.Fatalf("inner event %d: next position %d, want the payload's %d", i, ih.NextPos, h.NextPos)
		}
		a, b := Body(inner[i]), Body(want[i])
		if inner[i][4] == XIDEvent {
			if binary.LittleEndian.Uint64(a) != 77 {
				t.Fatalf("XID %d, want 77", binary.LittleEndian.Uint64(a))
			}
			continue
		}
		if inner[i][4] != want[i][4] || !bytes.Equal(a, b) {
			t.Fatalf("inner event %d (type %d) differs from the uncompressed one (type %d)", i, inner[i][4], want[i][4])
		}
	}
}

// TestCompressedTransactionsThroughTheLog: compressed and plain
// transactions side by side in a real log: every reader (transaction
// reader, file scan, SHOW BINLOG EVENTS, the printer) sees each row once,
// the counters add up to the payload events' sizes, and recovery replays
// compressed transactions into storage after a crash.
func TestCompressedTransactionsThroughTheLog(t *testing.T) {
	r := openRig(t, vfs.NewCrashableMem(), filepath.Join(t.TempDir(), "binlog"))
	t.Cleanup(func() { r.log.Close() })
	r.createTable(t)
	var wantCompressed uint64
	for i := int64(1); i <= 60; i++ {
		level := 3
		if i%4 == 0 {
			level = 0
		}
		if i%7 == 0 {
			level = 19
		}
		if level > 0 {
			wantCompressed++
		}
		if err := insertCompressed(r.store, i, level); err != nil {
			t.Fatal(err)
		}
	}
	if ids := logIDs(t, r.log); len(ids) != 60 || ids[0] != 1 || ids[59] != 60 {
		t.Fatalf("log holds ids %v, want 1..60", ids)
	}
	path, _ := r.log.Path(r.log.Current().File)
	evs := events(t, path)
	payloads, writes := 0, 0
	var payloadBytes uint64
	for _, ev := range evs {
		switch ev.Type {
		case "Transaction_payload":
			payloads++
			payloadBytes += ev.EndPos - ev.Pos
			if !strings.HasPrefix(ev.Info, "compression='ZSTD', decompressed_size=") {
				t.Fatalf("payload info %q", ev.Info)
			}
		case "Write_rows":
			writes++
		}
	}
	st := r.log.CompressionStats()
	if uint64(payloads) != wantCompressed || writes != 60 || st.Transactions != wantCompressed || st.CompressedBytes != payloadBytes || st.UncompressedBytes == 0 {
		t.Fatalf("%d payload events (%d bytes), %d Write_rows, stats %+v; want %d payloads, 60 Write_rows, stats matching", payloads, payloadBytes, writes, st, wantCompressed)
	}
	res, err := ScanFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Transactions) != 61 || res.Torn || res.GTIDs.Last(testSID) != 61 {
		t.Fatalf("scan: %d transactions, torn %v, GTIDs %s; want 61 whole", len(res.Transactions), res.Torn, res.GTIDs)
	}
	var out bytes.Buffer
	sum, err := Print(&out, path, PrintOptions{Verbose: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Transactions != 61 || strings.Count(out.String(), "# Start of compressed events!") != int(wantCompressed) ||
		strings.Count(out.String(), "### INSERT INTO `db`.`t`") != 60 || !strings.Contains(out.String(), "###   @2='v59'") {
		t.Fatalf("printed %d transactions:\n%s", sum.Transactions, out.String())
	}

	// kill -9: storage as synced (nothing flushed), the log as written.
	image := takeCrashImage(t, r)
	r2, err := image.open(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.log.Close()
	wantIDs(t, r2, 60)
	if got := r2.log.Executed().Last(testSID); got != 61 {
		t.Fatalf("gtid_executed ends at %d after recovery, want 61", got)
	}
}

// TestMalformedPayloadsAreErrors: damaged payload events are ErrCorrupt
// errors naming the problem, never a panic or a partial expansion.
func TestMalformedPayloadsAreErrors(t *testing.T) {
	rec := sysbenchRecord(t)
	z, err := encodeCompressed(Options{ServerID: 7, ServerVersion: "8.0.40-petrel"}, nil, rec, testSID, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	z.place(1, 0, 1, 4)
	good := append([]byte(nil), z.buf[z.ends[0]:]...)
	body := Body(good)
	p, _ := ParsePayload(body)
	hdrLen := len(body) - len(p.Data)
	reframe := func(body []byte) []byte {
		return frame(TransactionPayloadEvent, 0, 7, 0, 0, body)
	}
	cases := map[string][]byte{
		"payload size larger than the event": reframe(append(append([]byte{2, 1, 0, 3, 1, 10, 1, 3, 0xfc, 0xff, 0xff}, 0), p.Data...)),
		"no compression type":                reframe(append(append([]byte{1, 1, byte(len(p.Data))}, 0), p.Data...)),
		"unknown compression type":           reframe(append(append([]byte{2, 1, 7, 1, 1, byte(len(p.Data))}, 0), p.Data...)),
		"truncated header":                   reframe([]byte{2, 1}),
		"field length past the body":         reframe([]byte{2, 200, 0}),
		"bad zstd frame": reframe(append(append([]byte(nil), body[:hdrLen]...), func() []byte {
			d := append([]byte(nil), p.Data...)
			for i := 4; i < len(d); i += 3 {
				d[i] ^= 0x5a
			}
			return d
		}()...)),
		"uncompressed size lies": reframe(append(append([]byte{2, 1, 0, 3, 1, 9, 1, 3}, 0xfc, byte(len(p.Data)), byte(len(p.Data)>>8), 0), p.Data...)),
		"zstd bomb header":       reframe(append([]byte{2, 1, 0, 1, 1, 14, 0}, 0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0)),
		"inner event overruns":   reframe(append([]byte{2, 1, 255, 1, 1, 20, 0}, append(make([]byte, 9), 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)...)),
	}
	for name, ev := range cases {
		inner, err := ExpandPayload(ev)
		if err == nil || !isCorrupt(err) || inner != nil {
			t.Errorf("%s: got %d events, error %v; want ErrCorrupt", name, len(inner), err)
		}
	}
	if inner, err := ExpandPayload(good); err != nil || len(inner) != 6 {
		t.Fatalf("the undamaged payload: %d events, %v", len(inner), err)
	}
}

func isCorrupt(err error) bool {
	return err != nil && strings.Contains(err.Error(), ErrCorrupt.Error())
}

// FuzzExpandPayload: whatever a TRANSACTION_PAYLOAD body holds (sizes,
// compression type, zstd frame, inner events), expanding it returns
// events that each parse, or an error; it never panics.
func FuzzExpandPayload(f *testing.F) {
	rec := sysbenchRecord(f)
	z, err := encodeCompressed(Options{ServerID: 7, ServerVersion: "8.0.40-petrel"}, nil, rec, testSID, 3, 1)
	if err != nil {
		f.Fatal(err)
	}
	z.place(1, 0, 1, 4)
	f.Add(Body(z.buf[z.ends[0]:]))
	f.Add([]byte{2, 1, 255, 1, 1, 0, 0})
	f.Add([]byte{2, 1, 0, 3, 1, 5, 1, 1, 4, 0, 0x28, 0xb5, 0x2f, 0xfd})
	f.Fuzz(func(t *testing.T, body []byte) {
		ev := frame(TransactionPayloadEvent, 0, 1, 0, 100, body)
		inner, err := ExpandPayload(ev)
		if err != nil {
			if !isCorrupt(err) {
				t.Fatalf("error not classified as corruption: %v", err)
			}
			return
		}
		for _, ie := range inner {
			if _, err := ParseHeader(ie); err != nil {
				t.Fatalf("expanded event does not parse: %v", err)
			}
			_ = Info(ie)
		}
	})
}

// BenchmarkEncodeCompressed: BenchmarkEncodeTransaction's sysbench
// transaction, compressed at zstd level 3 (Log.Prepare's cost with
// binlog_transaction_compression ON).
func BenchmarkEncodeCompressed(b *testing.B) {
	rec := sysbenchRecord(b)
	o := Options{ServerID: 1, ServerVersion: "8.0.40-petrel"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x, err := encodeCompressed(o, nil, rec, testSID, 3, uint64(i))
		if err != nil {
			b.Fatal(err)
		}
		x.place(int64(i+1), int64(i), int64(i+1), 4)
	}
}
