package fsutil

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// BenchmarkAppendSync compares ways to make a log's appends durable: an
// operation appends one record (a commit group's events) and fdatasyncs.
//
//	zerofill  the file is zero-filled ahead of its end (WriteAhead, 4 MiB
//	          chunks): data is written within the file's size, so
//	          fdatasync needs no metadata journal commit, but readers of
//	          the live file see zeros after its end
//	append    plain append: the size grows with each record
//	keepsize  blocks preallocated 4 MiB ahead with FALLOC_FL_KEEP_SIZE
//	          (PreallocateKeepSize): the size still grows with each
//	          record; readers see a clean end of file
//	tail      what the binlog does (binlog/tail.go): keepsize append to
//	          the readable file, never fsynced here, and a copy written
//	          into a zero-filled ring file, which is what is fdatasync'd
//
// Each iteration does one append+fdatasync in every mode, each to its own
// file, in a rotating order, so the modes share the disk's noise (the host
// is shared); the figures are the mean microseconds per append+fdatasync of
// each mode (zerofill-us, append-us, keepsize-us). The files go to
// $PETREL_BENCH_DIR (default: the test's temporary directory): run it on
// the disk the server uses.
//
//	go test -run '^$' -bench AppendSync -benchtime 2000x -count 5 ./internal/fsutil/
func BenchmarkAppendSync(b *testing.B) {
	for _, size := range []int{1 << 10, 16 << 10} {
		b.Run(fmt.Sprintf("%dk", size>>10), func(b *testing.B) { benchAppendSync(b, size) })
	}
}

var appendModes = []string{"zerofill", "append", "keepsize", "tail"}

type appendFile struct {
	f          *os.File
	end, alloc uint64
	total      time.Duration
}

func benchAppendSync(b *testing.B, size int) {
	dir := os.Getenv("PETREL_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	ring, err := os.CreateTemp(dir, "appendsync-ring-*")
	if err != nil {
		b.Fatal(err)
	}
	defer os.Remove(ring.Name())
	defer ring.Close()
	const ringSize = 64 << 20
	var ringAlloc, ringAt uint64
	if err := WriteAhead(ring, nil, 0, &ringAlloc, ringSize); err != nil {
		b.Fatal(err)
	}
	if err := ring.Sync(); err != nil {
		b.Fatal(err)
	}
	files := make([]*appendFile, len(appendModes))
	for i := range files {
		f, err := os.CreateTemp(dir, "appendsync-*")
		if err != nil {
			b.Fatal(err)
		}
		defer os.Remove(f.Name())
		defer f.Close()
		files[i] = &appendFile{f: f}
	}
	rec := make([]byte, size)
	for i := range rec {
		rec[i] = byte(i*7 + 1)
	}
	const chunk = 4 << 20
	b.SetBytes(int64(size * len(appendModes)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := range appendModes {
			m := (i + k) % len(appendModes)
			af := files[m]
			start := time.Now()
			var err error
			switch appendModes[m] {
			case "zerofill":
				err = WriteAhead(af.f, rec, af.end, &af.alloc, chunk)
			case "append":
				_, err = af.f.WriteAt(rec, int64(af.end))
			case "keepsize", "tail":
				err = PreallocateKeepSize(af.f, af.end, uint64(size), &af.alloc, chunk)
				if err == nil {
					_, err = af.f.WriteAt(rec, int64(af.end))
				}
			}
			if err == nil && appendModes[m] == "tail" {
				if ringAt+uint64(size) > ringSize {
					ringAt = 0 // the binlog fsyncs the file here, once a lap
				}
				if _, err = ring.WriteAt(rec, int64(ringAt)); err == nil {
					ringAt += uint64(size)
					err = DataSync(ring)
				}
			} else if err == nil {
				err = DataSync(af.f)
			}
			if err != nil {
				b.Fatal(err)
			}
			af.end += uint64(size)
			af.total += time.Since(start)
		}
	}
	for m, af := range files {
		b.ReportMetric(float64(af.total.Microseconds())/float64(b.N), appendModes[m]+"-us")
	}
}
