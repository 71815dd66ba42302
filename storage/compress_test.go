package storage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable/block"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// realText is text Debian ships on every system (base-files' licence
// texts, the packages' copyright files): real prose, not repeated
// characters, so the compression measured is what documents get.
func realText(t testing.TB, want int) []byte {
	t.Helper()
	var buf bytes.Buffer
	for _, pat := range []string{"/usr/share/common-licenses/*", "/usr/share/doc/*/copyright"} {
		files, _ := filepath.Glob(pat)
		slices.Sort(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				continue // a dangling link or a directory
			}
			buf.Write(b)
			if buf.Len() >= want {
				return buf.Bytes()[:want]
			}
		}
	}
	t.Fatalf("only %d bytes of text under /usr/share/common-licenses and /usr/share/doc/*/copyright, want %d", buf.Len(), want)
	return nil
}

// createTextTable creates db.<name> (id BIGINT PRIMARY KEY, body TEXT,
// KEY(body(16))) with the given table options.
func createTextTable(t testing.TB, e *Engine, name string, opts TableDef) *Table {
	t.Helper()
	txn := e.Begin()
	if e.Catalog().Database("db") == nil {
		if err := e.Catalog().CreateDatabase(txn, "db", 0); err != nil {
			t.Fatal(err)
		}
	}
	opts.Database, opts.Name, opts.PK = "db", name, []int{0}
	opts.Columns = []ColumnDef{{Name: "id", Type: "bigint", PrimaryKey: true}, {Name: "body", Type: "text"}}
	opts.Indexes = []IndexDef{{ID: 1, Name: "body", Columns: []string{"body"}, Prefix: []uint16{16}}}
	tb, err := e.Catalog().CreateTable(txn, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	return tb
}

// loadText inserts text as rows of about 400 bytes (whole lines).
func loadText(t testing.TB, e *Engine, tb *Table, text []byte) int {
	t.Helper()
	ctx := context.Background()
	txn := e.Begin()
	id := int64(0)
	for len(text) > 0 {
		n := min(400, len(text))
		if i := bytes.IndexByte(text[n:], '\n'); i >= 0 {
			n += i + 1
		} else {
			n = len(text)
		}
		id++
		if err := txn.Insert(ctx, tb, []any{id, string(text[:n])}); err != nil {
			t.Fatal(err)
		}
		text = text[n:]
		if id%500 == 0 {
			if err := txn.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			txn = e.Begin()
		}
	}
	if err := txn.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	return int(id)
}

// digestRows is a checksum of a table's rows in key order.
func digestRows(t testing.TB, e *Engine, tb *Table) ([32]byte, int) {
	t.Helper()
	txn := e.Begin()
	defer txn.Rollback()
	it, err := txn.Scan(context.Background(), tb, 0, nil, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	h := sha256.New()
	n := 0
	for {
		row, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			var sum [32]byte
			copy(sum[:], h.Sum(nil))
			return sum, n
		}
		fmt.Fprintf(h, "%v\x00%v\x00", row[0], row[1])
		n++
	}
}

// TestCompressedTableFootprint loads the same real text into a table
// without options and one with ROW_FORMAT=COMPRESSED: after both are
// compacted, the compressed table's files are at most 0.8x the plain
// one's (zstd against the fast codec; measured 0.75x here), its rows read
// back identical, and a reopened store keeps both definitions.
func TestCompressedTableFootprint(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	plain := createTextTable(t, e, "plain", TableDef{})
	comp := createTextTable(t, e, "comp", TableDef{RowFormat: RowFormatCompressed, KeyBlockSize: 8})
	if plain.Def.Compressed() || !comp.Def.Compressed() {
		t.Fatalf("Compressed(): plain %v, comp %v", plain.Def.Compressed(), comp.Def.Compressed())
	}
	text := realText(t, 2<<20)
	n1, n2 := loadText(t, e, plain, text), loadText(t, e, comp, text)
	if n1 != n2 || n1 < 1000 {
		t.Fatalf("rows loaded: %d and %d", n1, n2)
	}
	ctx := context.Background()
	for _, tb := range []*Table{plain, comp} {
		if err := e.CompactTable(ctx, tb); err != nil {
			t.Fatal(err)
		}
	}
	pd, pi, err := e.TableDiskUsage(plain)
	if err != nil {
		t.Fatal(err)
	}
	cd, ci, err := e.TableDiskUsage(comp)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("text %d bytes in %d rows: plain data %d index %d, compressed data %d index %d (%.2fx)",
		len(text), n1, pd, pi, cd, ci, float64(cd)/float64(pd))
	if pd == 0 || pi == 0 || cd == 0 || ci == 0 {
		t.Fatalf("disk usage: plain %d/%d, compressed %d/%d; want all > 0", pd, pi, cd, ci)
	}
	if float64(cd) > 0.8*float64(pd) {
		t.Fatalf("compressed data %d bytes is more than 0.8x the plain table's %d", cd, pd)
	}
	if pd > uint64(len(text)) {
		t.Fatalf("plain data %d bytes is more than the %d bytes of text: the fast codec is off", pd, len(text))
	}
	s1, r1 := digestRows(t, e, plain)
	s2, r2 := digestRows(t, e, comp)
	if s1 != s2 || r1 != n1 || r2 != n2 {
		t.Fatalf("rows differ: plain %x (%d rows), compressed %x (%d rows)", s1, r1, s2, r2)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = openTest(t, fs)
	defer e.Close()
	got := e.Catalog().Table("db", "comp")
	if got == nil || got.Def.RowFormat != RowFormatCompressed || got.Def.KeyBlockSize != 8 || !got.Def.Compressed() {
		t.Fatalf("reopened definition: %+v", got)
	}
	if s, r := digestRows(t, e, got); s != s1 || r != n1 {
		t.Fatalf("rows after reopening: %x (%d rows), want %x (%d)", s, r, s1, n1)
	}
}

// TestTableCompressedOptions is the table of what the options mean.
func TestTableCompressedOptions(t *testing.T) {
	for _, c := range []struct {
		def  TableDef
		want bool
	}{
		{TableDef{}, false},
		{TableDef{RowFormat: "DYNAMIC"}, false},
		{TableDef{RowFormat: "COMPRESSED"}, true},
		{TableDef{KeyBlockSize: 4}, true},
		{TableDef{Compression: "zstd"}, true},
		{TableDef{Compression: "zlib"}, true},
		{TableDef{Compression: "lz4"}, false},
		{TableDef{Compression: "none"}, false},
		{TableDef{RowFormat: "COMPRESSED", Compression: "none"}, true},
		{TableDef{KeyBlockSize: 8, Compression: "lz4"}, true},
	} {
		if got := c.def.Compressed(); got != c.want {
			t.Errorf("%+v: Compressed() = %v, want %v", c.def, got, c.want)
		}
	}
}

// TestSpanPolicy checks the key ranges the codec choice covers: runs of
// compressed table ids share one span, everything else asks for the
// fast codec, up to the next compressed table; the metadata space is a
// span of its own, so that no file holds both metadata and rows.
func TestSpanPolicy(t *testing.T) {
	var s spanPolicies
	if p, end, _ := s.policy(tablePrefix(1)); !p.PreferFastCompression || end != nil {
		t.Fatalf("no compressed tables: %+v up to %x", p, end)
	}
	if p, end, _ := s.policy(metaKey(metaLastSeq)); !p.PreferFastCompression || !bytes.Equal(end, []byte{spaceData}) {
		t.Fatalf("no compressed tables, metadata: %+v up to %x", p, end)
	}
	s.reset([]uint32{7, 5, 6, 9})
	s.set(9, false)
	s.set(12, true)
	for _, c := range []struct {
		start []byte
		fast  bool
		end   []byte
	}{
		{nil, true, []byte{spaceData}},
		{metaKey(metaTable), true, []byte{spaceData}},
		{[]byte{spaceData}, true, tablePrefix(5)},
		{tablePrefix(1), true, tablePrefix(5)},
		{indexPrefix(nil, 5, 0), false, tablePrefix(8)},
		{indexPrefix(nil, 6, 3), false, tablePrefix(8)},
		{tablePrefix(8), true, tablePrefix(12)},
		{tablePrefix(9), true, tablePrefix(12)},
		{tablePrefix(12), false, tablePrefix(13)},
		{tablePrefix(13), true, nil},
		{[]byte{0x03}, true, nil},
	} {
		p, end, err := s.policy(c.start)
		if err != nil || p.PreferFastCompression != c.fast || !bytes.Equal(end, c.end) {
			t.Errorf("policy(%x) = %+v up to %x (%v); want fast=%v up to %x", c.start, p, end, err, c.fast, c.end)
		}
	}
	var _ pebble.SpanPolicyFunc = s.policy
}

// TestTableDefOptionsCompatible: a definition written before table
// options reads as a table without them (stored with the fast codec, as
// before), and a table without options is written without the new
// fields, so an older release reads it unchanged.
func TestTableDefOptionsCompatible(t *testing.T) {
	old := `{"id":7,"db":"d","name":"t","columns":[{"name":"id","type":"int","pk":true}],"pk":[0],"collation":255,"key_format":1}`
	var def TableDef
	if err := json.Unmarshal([]byte(old), &def); err != nil {
		t.Fatal(err)
	}
	if def.RowFormat != "" || def.KeyBlockSize != 0 || def.Compression != "" || def.Compressed() {
		t.Fatalf("old definition read as %+v (compressed %v)", def, def.Compressed())
	}
	b, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != old {
		t.Fatalf("rewritten as %s, want %s", b, old)
	}
	def.RowFormat, def.KeyBlockSize, def.Compression = RowFormatCompressed, 8, CompressionZstd
	b, _ = json.Marshal(def)
	if !bytes.Contains(b, []byte(`"row_format":"COMPRESSED","key_block_size":8,"compression":"zstd"`)) {
		t.Fatalf("options written as %s", b)
	}
}

// tableCodecs are the codec names Pebble recorded in the files that hold
// table tb's keys, per level.
func tableCodecs(t testing.TB, e *Engine, tb *Table) map[int][]string {
	t.Helper()
	p := tablePrefix(tb.Def.ID)
	levels, err := e.db.SSTables(pebble.WithProperties(), pebble.WithKeyRangeFilter(p, prefixEnd(p)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[int][]string{}
	for l, files := range levels {
		for _, f := range files {
			got[l] = append(got[l], f.Properties.CompressionName)
		}
	}
	return got
}

// TestCompressedTableCodecs checks which codec writes which files: a
// compressed table's flushed files are Snappy, its compacted ones
// compactedProfile (zstd level 5); a plain table's are Snappy (the
// fastest codec the store's table format has) at every level; and the
// rows read back identical.
func TestCompressedTableCodecs(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	plain := createTextTable(t, e, "plain", TableDef{})
	comp := createTextTable(t, e, "comp", TableDef{Compression: CompressionZstd})
	text := realText(t, 512<<10)
	loadText(t, e, plain, text)
	n := loadText(t, e, comp, text)
	if err := e.db.Flush(); err != nil {
		t.Fatal(err)
	}
	only := func(tb *Table, wantLevels map[int]string) {
		t.Helper()
		got := tableCodecs(t, e, tb)
		if len(got) != len(wantLevels) {
			t.Fatalf("%s: files per level %v, want levels %v", tb.Def.Name, got, wantLevels)
		}
		for l, names := range got {
			for _, name := range names {
				if name != wantLevels[l] {
					t.Fatalf("%s: level %d file written with %q, want %q (all: %v)", tb.Def.Name, l, name, wantLevels[l], got)
				}
			}
		}
	}
	only(comp, map[int]string{0: block.SnappyCompression.Name})
	only(plain, map[int]string{0: block.SnappyCompression.Name})
	want, _ := digestRows(t, e, plain)
	ctx := context.Background()
	for _, tb := range []*Table{plain, comp} {
		if err := e.CompactTable(ctx, tb); err != nil {
			t.Fatal(err)
		}
	}
	only(comp, map[int]string{6: compactedProfile.Name})
	only(plain, map[int]string{6: block.SnappyCompression.Name})
	if compactedProfile.Name != "petrel-zstd5" {
		t.Fatalf("compacted profile %q", compactedProfile.Name)
	}
	if got, rows := digestRows(t, e, comp); got != want || rows != n {
		t.Fatalf("compressed rows after compaction: %x (%d rows), want %x (%d)", got, rows, want, n)
	}
}

// TestTableDiskUsageIsFileBytes: what information_schema.TABLES reports
// for a compressed table (DATA_LENGTH + INDEX_LENGTH, TableDiskUsage) is
// the bytes of its sstable files as the file system has them, because
// the span policy gives the table files of its own; before the memtable
// is flushed the rows count nothing, after a flush their level 0 files.
func TestTableDiskUsageIsFileBytes(t *testing.T) {
	fs := vfs.NewMem()
	e := openTest(t, fs)
	defer e.Close()
	createTextTable(t, e, "plain", TableDef{})
	comp := createTextTable(t, e, "comp", TableDef{RowFormat: RowFormatCompressed, KeyBlockSize: 4})
	createTextTable(t, e, "after", TableDef{})
	loadText(t, e, comp, realText(t, 1<<20))
	fileBytes := func() (sum uint64, files int) {
		t.Helper()
		p := tablePrefix(comp.Def.ID)
		levels, err := e.db.SSTables(pebble.WithKeyRangeFilter(p, prefixEnd(p)))
		if err != nil {
			t.Fatal(err)
		}
		for _, lf := range levels {
			for _, f := range lf {
				if bytes.Compare(f.Smallest.UserKey, p) < 0 || bytes.Compare(f.Largest.UserKey, prefixEnd(p)) >= 0 {
					t.Fatalf("file %s holds keys outside the compressed table: %x..%x", f.BackingSSTNum, f.Smallest.UserKey, f.Largest.UserKey)
				}
				st, err := fs.Stat(fs.PathJoin("db", fmt.Sprintf("%s.sst", f.BackingSSTNum)))
				if err != nil {
					t.Fatal(err)
				}
				sum += uint64(st.Size())
				files++
			}
		}
		return sum, files
	}
	usage := func() uint64 {
		t.Helper()
		d, i, err := e.TableDiskUsage(comp)
		if err != nil {
			t.Fatal(err)
		}
		return d + i
	}
	// Before the test's flush the rows are in the memtable, unless a full
	// memtable was flushed on its own meanwhile (1 MiB of text beside a
	// 2 MiB memtable, about 1 run in 8): either way the report is the
	// files' bytes, 0 when there are none.
	if sum, n := fileBytes(); usage() != sum {
		t.Fatalf("before a flush: %d files of %d bytes, reported %d", n, sum, usage())
	}
	ctx := context.Background()
	if err := e.db.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"flushed", "compacted"} {
		sum, n := fileBytes()
		if got := usage(); n == 0 || got != sum {
			t.Fatalf("%s: reported %d bytes, the table's %d files hold %d", step, got, n, sum)
		}
		t.Logf("%s: %d files, %d bytes", step, n, sum)
		if step == "flushed" {
			if err := e.CompactTable(ctx, comp); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestFlushKeepsMetadataApart: every commit writes metadata keys
// (metaLastSeq, metaSinkPos) beside its rows, and no file a flush or a
// compaction writes may hold both: a file spanning from the metadata to
// the rows overlaps every file of the rows stored before, so each
// compaction into the bottom level rewrote them all (a load in key order
// wrote its rows 7-8 times over).
func TestFlushKeepsMetadataApart(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	tb := createTextTable(t, e, "t", TableDef{})
	ctx := context.Background()
	id := int64(0)
	for round := range 3 {
		for range 20 {
			txn := e.Begin()
			for range 50 {
				id++
				if err := txn.Insert(ctx, tb, []any{id, fmt.Sprintf("row %d of a load in key order", id)}); err != nil {
					t.Fatal(err)
				}
			}
			if err := txn.Commit(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.db.Flush(); err != nil {
			t.Fatal(err)
		}
		if round == 1 {
			if err := e.db.Compact(ctx, []byte{0}, []byte{0xff}, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	levels, err := e.db.SSTables()
	if err != nil {
		t.Fatal(err)
	}
	var meta, data int
	for l, files := range levels {
		for _, f := range files {
			lo, hi := f.Smallest.UserKey, f.Largest.UserKey
			switch {
			case hi[0] < spaceData:
				meta++
			case lo[0] >= spaceData:
				data++
			default:
				t.Errorf("L%d file %s holds metadata and rows: %x .. %x", l, f.FileNum, lo, hi)
			}
		}
	}
	if meta == 0 || data == 0 {
		t.Fatalf("%d files of metadata, %d of rows: the test proves nothing", meta, data)
	}
}
