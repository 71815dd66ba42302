package storage

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// writeCountFS counts the writes that reach each table file.
type writeCountFS struct {
	vfs.FS
	mu     sync.Mutex
	writes map[string]int
	bytes  map[string]int
}

func (fs *writeCountFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	f, err := fs.FS.Create(name, category)
	if err != nil || !strings.HasSuffix(name, ".sst") {
		return f, err
	}
	return &writeCountFile{File: f, fs: fs, name: name}, nil
}

type writeCountFile struct {
	vfs.File
	fs   *writeCountFS
	name string
}

func (f *writeCountFile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	f.fs.writes[f.name]++
	f.fs.bytes[f.name] += len(p)
	f.fs.mu.Unlock()
	return f.File.Write(p)
}

// TestTableFileWritesGathered: a flush writes its table file in writes of
// up to tableWriteBuf, not Pebble's 4 KiB, and the rows read back whole.
func TestTableFileWritesGathered(t *testing.T) {
	fs := &writeCountFS{FS: vfs.NewMem(), writes: map[string]int{}, bytes: map[string]int{}}
	e := openTest(t, fs)
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	const rows = 30000
	txn := e.Begin()
	for i := int64(0); i < rows; i++ {
		if err := txn.Insert(context.Background(), tb, sql.Row{i, i * 7, strings.Repeat("v", 40) + string(rune('a'+i%26))}); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil { // flushes the memtable into table files
		t.Fatal(err)
	}
	big := ""
	for name, n := range fs.bytes {
		if big == "" || n > fs.bytes[big] {
			big = name
		}
	}
	if fs.bytes[big] < 1<<20 {
		t.Fatalf("largest table file %s is %d bytes, want over 1 MiB (files: %v)", big, fs.bytes[big], fs.bytes)
	}
	if max := fs.bytes[big]/(64<<10) + 2; fs.writes[big] > max {
		t.Fatalf("table file %s of %d bytes took %d writes, want at most %d", big, fs.bytes[big], fs.writes[big], max)
	}
	e = openTest(t, fs)
	defer e.Close()
	got := scanAll(t, e)
	if len(got) != rows || got[12345] != 12345*7 {
		t.Fatalf("read back %d rows, row 12345 -> %d; want %d rows, %d", len(got), got[12345], rows, 12345*7)
	}
}

// BenchmarkTableFileWrite writes 4 MiB to a table file on the real
// filesystem in Pebble's 4 KiB writes (its sstable writer's bufio.Writer),
// straight through (gathered=no, as before tablewrites.go) or gathered
// into tableWriteBuf writes: the CPU per MiB, system calls included.
//
//	go test ./storage -run XXX -bench TableFileWrite -count 5
func BenchmarkTableFileWrite(b *testing.B) {
	for _, gathered := range []bool{false, true} {
		name := "gathered=no"
		if gathered {
			name = "gathered=yes"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			e := &Engine{}
			chunk := make([]byte, 4096)
			b.SetBytes(4 << 20)
			for i := 0; b.Loop(); i++ {
				name := vfs.Default.PathJoin(dir, "000001.sst")
				raw, err := vfs.Default.Create(name, vfs.WriteCategoryUnspecified)
				if err != nil {
					b.Fatal(err)
				}
				var f vfs.File = &guardFile{File: raw, e: e}
				if gathered {
					f = newBufferedTable(f.(*guardFile))
				}
				for range (4 << 20) / len(chunk) {
					if _, err := f.Write(chunk); err != nil {
						b.Fatal(err)
					}
				}
				if err := f.Close(); err != nil {
					b.Fatal(err)
				}
				if err := vfs.Default.Remove(name); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
