package binlog

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"petrel/internal/base"
)

// BenchmarkCheckFile measures the startup verification of one binlog file
// (checkFile: every event read, sized, checksummed, transactions
// delimited), in MB/s, on a 256 MiB file of sysbench-like transactions
// (GTID, BEGIN, TABLE_MAP, two 300-byte rows events, XID: about 1 KiB).
// "cold" drops the file's pages from the page cache before each pass
// (posix_fadvise DONTNEED), so the disk's read speed counts; "warm" reads
// it from memory. The file goes to $PETREL_BENCH_DIR (default: the test's
// temporary directory).
//
//	go test -run '^$' -bench CheckFile -benchtime 5x ./binlog/
func BenchmarkCheckFile(b *testing.B) {
	dir := os.Getenv("PETREL_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, "binlog.000001")
	writeBenchFile(b, path, 256<<20)
	defer os.Remove(path)
	for _, mode := range []string{"warm", "cold"} {
		b.Run(mode, func(b *testing.B) {
			st, _ := os.Stat(path)
			b.SetBytes(st.Size())
			for i := 0; i < b.N; i++ {
				if mode == "cold" {
					b.StopTimer()
					dropCache(b, path)
					b.StartTimer()
				}
				c, err := checkFile(path)
				if err != nil || !c.whole() {
					b.Fatalf("checkFile: %v, whole %v", err, c.whole())
				}
			}
		})
	}
}

func dropCache(b *testing.B, path string) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		b.Fatal(err)
	}
}

// writeBenchFile writes a valid, finished binlog file of about size bytes.
func writeBenchFile(b *testing.B, path string, size int) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	now := uint32(time.Now().Unix())
	written := 0
	buf := append([]byte(nil), Magic...)
	add := func(typ byte, body []byte) {
		ev := frame(typ, 0, 1, now, 0, body)
		setNextPos(ev, uint32(written+len(buf)+len(ev)))
		buf = append(buf, ev...)
	}
	add(FormatDescriptionEvent, formatDescription("8.0.40-petrel", now))
	add(PreviousGTIDsEvent, base.NewGTIDSet().Encode())
	rng := rand.New(rand.NewPCG(1, 2))
	row := make([]byte, 300)
	for gno := int64(1); written+len(buf) < size; gno++ {
		t := time.Now()
		add(GTIDEvent, appendGTIDBody(nil, base.GTID{SID: testSID, GNO: gno}, true, gno-1, gno, t, t, 1000, 80040))
		add(QueryEvent, queryBody(1, "sbtest", "BEGIN", 0))
		add(TableMapEvent, []byte("table-map-body-of-sbtest1........................"))
		for k := 0; k < 2; k++ {
			for i := range row {
				row[i] = byte(rng.IntN(256))
			}
			add(UpdateRowsEventV2, row)
		}
		add(XIDEvent, make([]byte, 8))
		if len(buf) > 8<<20 {
			if _, err := f.Write(buf); err != nil {
				b.Fatal(err)
			}
			written += len(buf)
			buf = buf[:0]
		}
	}
	if _, err := f.Write(buf); err != nil {
		b.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
}
