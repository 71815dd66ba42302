package binlog

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"

	"petrel/internal/fsutil"
)

// The tail log makes commits durable without fsyncing the binlog file.
//
// Tools read the binlog's current file while it grows, so the file must
// end where its data ends; but an fdatasync of a file that grew commits
// ext4's metadata journal, which made each commit group's fsync 15-40%
// dearer than one of a file written within its size (BenchmarkAppendSync).
// So each transaction is written twice: appended to the binlog file (what
// readers and replicas read, never fsynced per commit) and copied into
// the tail log, a fixed-size file zero-filled once and then overwritten
// as a ring, whose fdatasync is what makes commits durable. At startup
// the tail log's records for the last binlog file are written back into
// it (restoring whatever an operating-system crash cut from its unsynced
// end) before anything else reads the file.
//
// A record is valid only with the tail log's current epoch (random) and a
// matching CRC. The epoch changes at every start (after the replay) and at
// RESET MASTER, so a record never outlives the file contents it describes. When
// the ring wraps, the binlog file is fsynced first: every record the ring
// then overwrites was already redundant. Records start on 512-byte
// boundaries, so the replay can find them among the leftovers of earlier
// laps; a transaction too large for the ring (or a spilled one past
// spillTailMax, txncommit.go) is made durable by an fdatasync of the
// binlog file instead.

const (
	tailFileMagic   = 0x46544c50 // "PLTF": the tail log's header
	tailRecordMagic = 0x52544c50 // "PLTR": a record
	tailAlign       = 512
	// tailHeaderLen is the file header's slot: magic, crc, epoch, size.
	tailHeaderLen = tailAlign
	// tailRecHdr: magic, crc (of what follows, data included), epoch,
	// seq, file number, data length, offset in the binlog file.
	tailRecHdr = 4 + 4 + 8 + 8 + 4 + 4 + 8
	// defaultTailSize is the ring's size (Options.TailSize).
	defaultTailSize = 64 << 20
)

var tailCRC = crc32.MakeTable(crc32.Castagnoli)

// tailLog is the ring. Not safe for concurrent use: the Log writes it
// under its mu; the group commit leader fsyncs it outside (fsync and
// pwrite may run at once).
type tailLog struct {
	f     *os.File
	size  int64
	epoch uint64
	seq   uint64
	w     int64  // where the next record goes
	buf   []byte // reused record buffer
}

// openTail opens (or creates, zero-filled) the tail log at path.
func openTail(path string, size int64) (*tailLog, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return createTail(path, size)
	}
	if err != nil {
		return nil, fmt.Errorf("binlog: tail log: %w", err)
	}
	t := &tailLog{f: f}
	var h [28]byte
	_, err = f.ReadAt(h[:], 0)
	if err == nil && binary.LittleEndian.Uint32(h[0:]) == tailFileMagic &&
		binary.LittleEndian.Uint32(h[4:]) == crc32.Checksum(h[8:], tailCRC) {
		t.epoch = binary.LittleEndian.Uint64(h[8:])
		t.size = int64(binary.LittleEndian.Uint64(h[16:]))
	}
	st, serr := f.Stat()
	if err != nil || serr != nil || t.size < 2*tailHeaderLen || st.Size() != t.size {
		// A header that is not whole: the crash came while the file was
		// being created, before any record could count on it.
		f.Close()
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("binlog: tail log: %w", err)
		}
		return createTail(path, size)
	}
	t.w = tailHeaderLen
	return t, nil
}

func createTail(path string, size int64) (*tailLog, error) {
	size = max(size/tailAlign*tailAlign, 4*tailAlign)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_RDWR, 0o640)
	if err != nil {
		return nil, fmt.Errorf("binlog: tail log: %w", err)
	}
	zeros := make([]byte, 1<<20)
	for off := int64(0); off < size; off += int64(len(zeros)) {
		if _, err := f.WriteAt(zeros[:min(int64(len(zeros)), size-off)], off); err != nil {
			f.Close()
			os.Remove(tmp)
			return nil, fmt.Errorf("binlog: tail log: %w", err)
		}
	}
	t := &tailLog{f: f, size: size}
	if err := t.newEpoch(); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		f.Close()
		return nil, fmt.Errorf("binlog: tail log: %w", err)
	}
	if err := fsutil.SyncDir(filepath.Dir(path)); err != nil {
		f.Close()
		return nil, fmt.Errorf("binlog: tail log: %w", err)
	}
	return t, nil
}

// newEpoch invalidates every record written so far and starts the ring
// afresh (header written and synced).
// The epoch is random, so that bytes a client wrote into the binlog (a
// blob that looks like a record) can never pass for one.
func (t *tailLog) newEpoch() error {
	var e [8]byte
	if _, err := rand.Read(e[:]); err != nil {
		return fmt.Errorf("binlog: tail log: %w", err)
	}
	t.epoch = binary.LittleEndian.Uint64(e[:]) | 1 // never 0, a zeroed header's
	var h [28]byte
	binary.LittleEndian.PutUint32(h[0:], tailFileMagic)
	binary.LittleEndian.PutUint64(h[8:], t.epoch)
	binary.LittleEndian.PutUint64(h[16:], uint64(t.size))
	binary.LittleEndian.PutUint32(h[4:], crc32.Checksum(h[8:], tailCRC))
	if _, err := t.f.WriteAt(h[:], 0); err != nil {
		return fmt.Errorf("binlog: tail log: %w", err)
	}
	if err := fsutil.DataSync(t.f); err != nil {
		return fmt.Errorf("binlog: tail log: %w", err)
	}
	t.seq, t.w = 0, tailHeaderLen
	return nil
}

// tailRecord is one record read back.
type tailRecord struct {
	seq     uint64
	fileNum uint32
	off     uint64
	data    []byte
}

// records returns the valid records of the current epoch, in the order
// they were written.
func (t *tailLog) records() ([]tailRecord, error) {
	var out []tailRecord
	hdr := make([]byte, tailRecHdr)
	for at := int64(tailHeaderLen); at+tailRecHdr <= t.size; {
		if _, err := t.f.ReadAt(hdr, at); err != nil && err != io.EOF {
			return nil, fmt.Errorf("binlog: tail log: %w", err)
		}
		n := int64(binary.LittleEndian.Uint32(hdr[28:]))
		if binary.LittleEndian.Uint32(hdr) != tailRecordMagic || binary.LittleEndian.Uint64(hdr[8:]) != t.epoch ||
			at+tailRecHdr+n > t.size {
			at += tailAlign
			continue
		}
		rec := make([]byte, tailRecHdr+n)
		if _, err := t.f.ReadAt(rec, at); err != nil {
			return nil, fmt.Errorf("binlog: tail log: %w", err)
		}
		if binary.LittleEndian.Uint32(rec[4:]) != crc32.Checksum(rec[8:], tailCRC) {
			at += tailAlign
			continue
		}
		out = append(out, tailRecord{
			seq: binary.LittleEndian.Uint64(rec[16:]), fileNum: binary.LittleEndian.Uint32(rec[24:]),
			off: binary.LittleEndian.Uint64(rec[32:]), data: rec[tailRecHdr:],
		})
		at += alignUp(tailRecHdr + n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out, nil
}

// tailKeptBuffer is the largest record buffer the tail log keeps
// between appends.
const tailKeptBuffer = 1 << 20

func alignUp(n int64) int64 { return (n + tailAlign - 1) / tailAlign * tailAlign }

// fits reports whether a record of n data bytes fits in the ring at all.
func (t *tailLog) fits(n int) bool { return alignUp(int64(tailRecHdr+n)) <= t.size-tailHeaderLen }

// wraps reports whether a record of n data bytes must go to the ring's
// start (its caller first makes the binlog file durable).
func (t *tailLog) wraps(n int) bool { return t.w+alignUp(int64(tailRecHdr+n)) > t.size }

// append writes a record of data, bound for binlog file fileNum at off,
// and returns where it went (for invalidate). The caller has checked fits
// and handled wraps.
func (t *tailLog) append(fileNum int, off uint64, data []byte) (int64, error) {
	if t.wraps(len(data)) {
		t.w = tailHeaderLen
	}
	t.seq++
	b := append(t.buf[:0], make([]byte, tailRecHdr)...)
	binary.LittleEndian.PutUint32(b[0:], tailRecordMagic)
	binary.LittleEndian.PutUint64(b[8:], t.epoch)
	binary.LittleEndian.PutUint64(b[16:], t.seq)
	binary.LittleEndian.PutUint32(b[24:], uint32(fileNum))
	binary.LittleEndian.PutUint32(b[28:], uint32(len(data)))
	binary.LittleEndian.PutUint64(b[32:], off)
	b = append(b, data...)
	binary.LittleEndian.PutUint32(b[4:], crc32.Checksum(b[8:], tailCRC))
	t.buf = b
	if cap(b) > tailKeptBuffer {
		// A large transaction's buffer is not kept for the next one.
		t.buf = nil
	}
	at := t.w
	if _, err := t.f.WriteAt(b, at); err != nil {
		return at, fmt.Errorf("binlog: tail log write: %w", err)
	}
	t.w += alignUp(int64(len(b)))
	return at, nil
}

// invalidate overwrites the header of the record at at: a transaction
// that failed after its record was written must not come back at replay.
func (t *tailLog) invalidate(at int64) error {
	var zero [tailRecHdr]byte
	_, err := t.f.WriteAt(zero[:], at)
	return err
}

func (t *tailLog) close() error { return t.f.Close() }

// replayStats counts what a replay changed.
type replayStats struct {
	restored    int64  // bytes missing or zero in the file
	repaired    int64  // bytes the file held with other values
	firstRepair uint64 // offset of the first repaired byte
}

// apply writes r into f (of size bytes) where f differs from it.
func (st *replayStats) apply(f *os.File, size int64, r tailRecord) error {
	have := make([]byte, len(r.data))
	n := 0
	if int64(r.off) < size {
		var err error
		n, err = f.ReadAt(have[:min(int64(len(have)), size-int64(r.off))], int64(r.off))
		if err != nil && err != io.EOF {
			return err
		}
	}
	differs := n < len(r.data)
	for i := 0; i < n; i++ {
		if have[i] == r.data[i] {
			continue
		}
		differs = true
		if have[i] == 0 {
			st.restored++
			continue
		}
		if st.repaired == 0 {
			st.firstRepair = r.off + uint64(i)
		}
		st.repaired++
	}
	st.restored += int64(len(r.data) - n)
	if !differs {
		return nil
	}
	_, err := f.WriteAt(r.data, int64(r.off))
	return err
}

// tailPath is where the tail log lives.
func (l *Log) tailPath() string { return l.path(l.opts.BaseName + ".tail") }

// replayTail writes the tail log's records for the last binlog file back
// into it and syncs it, then starts a new epoch: from here on the file
// holds everything that was durable when the server stopped. Called by
// Open before the files are verified.
func (l *Log) replayTail() error {
	t, err := openTail(l.tailPath(), l.opts.TailSize)
	if err != nil {
		return err
	}
	l.tail = t
	if len(l.files) == 0 {
		return t.newEpoch()
	}
	last := l.files[len(l.files)-1]
	num := fileNum(last)
	recs, err := t.records()
	if err != nil {
		return err
	}
	var f *os.File
	var size int64
	var st replayStats
	for _, r := range recs {
		if int(r.fileNum) != num {
			continue // an earlier file, synced when it was finished
		}
		if f == nil {
			if f, err = os.OpenFile(l.path(last), os.O_RDWR, 0); err != nil {
				return fmt.Errorf("binlog: tail log replay: %w", err)
			}
			defer f.Close()
			fi, err := f.Stat()
			if err != nil {
				return fmt.Errorf("binlog: tail log replay: %w", err)
			}
			size = fi.Size()
		}
		if err := st.apply(f, size, r); err != nil {
			return fmt.Errorf("binlog: tail log replay into %s: %w", last, err)
		}
		size = max(size, int64(r.off)+int64(len(r.data)))
	}
	if st.restored > 0 || st.repaired > 0 {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("binlog: tail log replay: %w", err)
		}
	}
	if st.repaired > 0 {
		// Bytes the file held and the tail log's verified copy does not:
		// not a write the crash interrupted (those read as zeros or are
		// missing), but damage to written data.
		l.opts.Logger.Warn("binlog: the binlog file differed from the tail log's copy of transactions it logged; rewritten from the tail log (check the disk)",
			"file", last, "offset", st.firstRepair, "bytes", st.repaired)
	}
	if st.restored > 0 {
		l.opts.Logger.Info("binlog: restored the binlog file's end from the tail log", "file", last, "bytes", st.restored, "end", size)
	}
	return t.newEpoch()
}
