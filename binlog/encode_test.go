package binlog

import (
	"bytes"
	"context"
	"encoding/binary"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/internal/base"
	"petrel/storage"
)

// sysbenchRecord builds the commit record of one sysbench oltp_write_only
// transaction (update on an indexed column, update of c, delete, insert)
// against a table shaped like sbtest1.
func sysbenchRecord(tb testing.TB) *storage.CommitRecord {
	tb.Helper()
	st, err := storage.Open(storage.Options{Dir: "db", FS: vfs.NewMem(), Logger: quiet})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	txn := st.Begin()
	if err := st.Catalog().CreateDatabase(txn, "sbtest", 0); err != nil {
		tb.Fatal(err)
	}
	table, err := st.Catalog().CreateTable(txn, storage.TableDef{
		Database: "sbtest", Name: "sbtest1", PK: []int{0},
		Columns: []storage.ColumnDef{
			{Name: "id", Type: "int", PrimaryKey: true},
			{Name: "k", Type: "int"},
			{Name: "c", Type: "char(120)"},
			{Name: "pad", Type: "char(60)"},
		},
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := txn.Commit(context.Background()); err != nil {
		tb.Fatal(err)
	}
	c, pad := strings.Repeat("83868641912-", 10)[:119], strings.Repeat("6776-", 12)[:59]
	row := func(id, k int32) sql.Row { return sql.Row{id, k, c, pad} }
	return &storage.CommitRecord{
		Time: time.Unix(1_790_000_000, 123456000),
		Changes: []storage.RowChange{
			{Table: table, Before: row(5012, 4990), After: row(5012, 4991)},
			{Table: table, Before: row(4770, 5034), After: row(4770, 5034)},
			{Table: table, Before: row(5021, 5002)},
			{Table: table, After: row(5021, 4987)},
		},
	}
}

// TestEncodedTransactionIsPlacedWhole: a transaction encoded before its
// turn and placed at a file offset reads back as a chain of valid events
// whose GTID, logical clock, XID and next positions are the placed ones.
func TestEncodedTransactionIsPlacedWhole(t *testing.T) {
	rec := sysbenchRecord(t)
	o := Options{ServerID: 7, ServerVersion: "8.0.40-petrel"}
	x, err := encodeTransaction(o, nil, rec, testSID)
	if err != nil {
		t.Fatal(err)
	}
	const start, gno, lc, seq = 1_000, 42, 9, 11
	x.place(gno, lc, seq, start)
	var types []byte
	at := 0
	for at < len(x.buf) {
		if len(x.buf)-at < HeaderLen {
			t.Fatalf("%d stray bytes at %d", len(x.buf)-at, at)
		}
		size := int(binary.LittleEndian.Uint32(x.buf[at+9:]))
		if at+size > len(x.buf) {
			t.Fatalf("event at %d of size %d overruns %d bytes", at, size, len(x.buf))
		}
		ev := x.buf[at : at+size]
		h, err := ParseHeader(ev)
		if err != nil {
			t.Fatalf("event at %d: %v", at, err)
		}
		if h.NextPos != uint32(start+at+size) || h.ServerID != 7 {
			t.Fatalf("event at %d: next position %d, server id %d; want %d, 7", at, h.NextPos, h.ServerID, start+at+size)
		}
		switch h.Type {
		case GTIDEvent:
			g, err := ParseGTID(Body(ev))
			if err != nil {
				t.Fatal(err)
			}
			if g.GTID != (base.GTID{SID: testSID, GNO: gno}) || g.LastCommitted != lc || g.SeqNo != seq || g.TxnLen != uint64(len(x.buf)) {
				t.Fatalf("GTID event %+v; want GNO %d, clock %d/%d, length %d", g, gno, lc, seq, len(x.buf))
			}
		case XIDEvent:
			if xid := binary.LittleEndian.Uint64(Body(ev)); xid != gno {
				t.Fatalf("XID %d, want %d", xid, gno)
			}
		}
		types = append(types, h.Type)
		at += size
	}
	want := []byte{GTIDEvent, QueryEvent, TableMapEvent, UpdateRowsEventV2, DeleteRowsEventV2, WriteRowsEventV2, XIDEvent}
	if string(types) != string(want) {
		t.Fatalf("event types %v, want %v", types, want)
	}
}

// BenchmarkEncodeTransaction: encoding one sysbench write transaction
// (Log.Prepare, outside the commit lock) and placing it (Log.Append,
// under it).
func BenchmarkEncodeTransaction(b *testing.B) {
	rec := sysbenchRecord(b)
	o := Options{ServerID: 1, ServerVersion: "8.0.40-petrel"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x, err := encodeTransaction(o, nil, rec, testSID)
		if err != nil {
			b.Fatal(err)
		}
		x.place(int64(i+1), int64(i), int64(i+1), 4)
	}
}

// Every event built for a file or a stream carries a valid checksum; a
// FORMAT_DESCRIPTION's is computed with the in-use flag clear (as MySQL
// does), so clearing the flag in place keeps it valid.
func TestChecksumsOfBuiltEvents(t *testing.T) {
	fde := frame(FormatDescriptionEvent, InUseFlag, 1, 1700000000, 0, formatDescription("8.0.40-petrel", 1700000000))
	evs := map[string][]byte{
		"artificial rotate": ArtificialRotate(1, "binlog.000002", 4),
		"heartbeat":         Heartbeat(1, "binlog.000002", 1234),
		"in-use FDE":        fde,
		"FDE, flag cleared": WithoutInUse(fde),
		"FDE, moved":        WithNextPos(fde, 0),
	}
	for name, ev := range evs {
		if !VerifyChecksum(ev) {
			t.Errorf("%s: bad checksum", name)
		}
		if _, err := ParseHeader(ev); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if cleared := WithoutInUse(fde); cleared[flagsAt]&byte(InUseFlag) != 0 || fde[flagsAt]&byte(InUseFlag) == 0 ||
		!bytes.Equal(cleared[len(cleared)-4:], fde[len(fde)-4:]) {
		t.Fatal("WithoutInUse must clear the flag in a copy and keep the checksum")
	}
	// The checksum is the CRC32 of the bytes with the flag clear.
	plain := frame(FormatDescriptionEvent, 0, 1, 1700000000, 0, formatDescription("8.0.40-petrel", 1700000000))
	if !bytes.Equal(plain[len(plain)-4:], fde[len(fde)-4:]) {
		t.Fatal("an in-use FORMAT_DESCRIPTION's checksum differs from the same event's without the flag")
	}
}

// TestColCacheBounded: the column cache returns what it cached for a
// table, and never holds more than colCacheMax tables (DDL publishes new
// *storage.Table values; the old ones must not accumulate).
func TestColCacheBounded(t *testing.T) {
	rec := sysbenchRecord(t)
	base := rec.Changes[0].Table
	var c colCache
	first, err := c.get(base)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := c.get(base)
	if &first.cols[0] != &again.cols[0] {
		t.Fatal("the second lookup of a table did not come from the cache")
	}
	for i := 0; i < 3*colCacheMax; i++ {
		tb := *base // a new published table, as after DDL
		if _, err := c.get(&tb); err != nil {
			t.Fatal(err)
		}
		if n := c.size(); n > colCacheMax {
			t.Fatalf("after %d tables the cache holds %d, more than %d", i+1, n, colCacheMax)
		}
	}
}
