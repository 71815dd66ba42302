package binlog

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"petrel/internal/base"
)

// maxEventSize bounds one event; anything larger is corruption.
const maxEventSize = 1 << 30

// Reader reads events from one binlog file in order. Not safe for
// concurrent use.
type Reader struct {
	name string
	f    *os.File
	src  *limitedFile
	r    *bufio.Reader
	pos  uint64
}

// limitedFile reads the file up to limit (when >= 0): a reader following a
// file that is still written, or preallocated past its end, never buffers
// bytes beyond what the writer declared complete.
type limitedFile struct {
	f     *os.File
	off   int64 // file offset of the next read
	limit int64
}

func (l *limitedFile) Read(p []byte) (int, error) {
	if l.limit >= 0 {
		left := l.limit - l.off
		if left <= 0 {
			return 0, io.EOF
		}
		if int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := l.f.Read(p)
	l.off += int64(n)
	return n, err
}

// OpenReader opens a binlog file and checks its magic number.
func OpenReader(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("binlog: %w", err)
	}
	// The magic is read unbuffered: nothing past it is buffered before the
	// caller had a chance to SetLimit.
	magic := make([]byte, 4)
	src := &limitedFile{f: f, off: 4, limit: -1}
	r := &Reader{name: path, f: f, src: src, r: bufio.NewReaderSize(src, 64<<10)}
	if _, err := io.ReadFull(f, magic); err != nil || !bytes.Equal(magic, Magic) {
		f.Close()
		return nil, fmt.Errorf("%w: %s is not a binlog file (bad magic at offset 0)", ErrCorrupt, path)
	}
	r.pos = 4
	return r, nil
}

// Pos is the offset of the next event.
func (r *Reader) Pos() uint64 { return r.pos }

// Seek moves to an event boundary (a position from the log).
func (r *Reader) Seek(pos uint64) error {
	if _, err := r.f.Seek(int64(pos), io.SeekStart); err != nil {
		return err
	}
	r.src.off = int64(pos)
	r.r.Reset(r.src)
	r.pos = pos
	return nil
}

// SetLimit bounds reading at offset limit (-1: to the end of the file).
// Raising it later lets the reader continue past where it stopped.
func (r *Reader) SetLimit(limit int64) { r.src.limit = limit }

// Next returns the next event and its start offset. At a clean end of file
// it returns io.EOF; a partial event at the end returns io.ErrUnexpectedEOF;
// a damaged event returns an ErrCorrupt error naming file and offset.
func (r *Reader) Next() (ev []byte, at uint64, err error) {
	at = r.pos
	hdr, err := r.r.Peek(HeaderLen)
	if err != nil {
		if len(hdr) == 0 && errors.Is(err, io.EOF) {
			return nil, at, io.EOF
		}
		if allZero(hdr) {
			return nil, at, io.EOF // a short preallocated tail
		}
		return nil, at, io.ErrUnexpectedEOF
	}
	if allZero(hdr) {
		// The log's current file is zero-filled ahead of its end (see
		// binlogChunk); no event has an all-zero header.
		return nil, at, io.EOF
	}
	size := binary.LittleEndian.Uint32(hdr[9:])
	if size < HeaderLen+ChecksumLen || size > maxEventSize {
		return nil, at, fmt.Errorf("%w: %s at offset %d: event size %d", ErrCorrupt, r.name, at, size)
	}
	ev = make([]byte, size)
	if _, err := io.ReadFull(r.r, ev); err != nil {
		return nil, at, io.ErrUnexpectedEOF
	}
	if _, err := ParseHeader(ev); err != nil {
		return nil, at, fmt.Errorf("%s at offset %d: %w", r.name, at, err)
	}
	r.pos += uint64(size)
	return ev, at, nil
}

// Close closes the file.
func (r *Reader) Close() error { return r.f.Close() }

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// zeroFrom reports whether f holds only zero bytes from off to its end.
func zeroFrom(f *os.File, off int64) (bool, error) {
	buf := make([]byte, 64<<10)
	for {
		n, err := f.ReadAt(buf, off)
		if !allZero(buf[:n]) {
			return false, nil
		}
		off += int64(n)
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// FileHeader is what the first events of a file say.
type FileHeader struct {
	ServerVersion string
	PreviousGTIDs *base.GTIDSet
	// InUse: the FORMAT_DESCRIPTION has InUseFlag (the file is being
	// written, or was when its server stopped without finishing it).
	InUse bool
}

// ReadFileHeader reads FORMAT_DESCRIPTION and PREVIOUS_GTIDS.
func ReadFileHeader(path string) (FileHeader, error) {
	var h FileHeader
	r, err := OpenReader(path)
	if err != nil {
		return h, err
	}
	defer r.Close()
	h.PreviousGTIDs = base.NewGTIDSet()
	for i := 0; i < 2; i++ {
		ev, at, err := r.Next()
		if err != nil {
			return h, fmt.Errorf("binlog: %s header at offset %d: %w", path, at, err)
		}
		switch ev[4] {
		case FormatDescriptionEvent:
			b := Body(ev)
			if len(b) >= 52 {
				h.ServerVersion = string(bytes.TrimRight(b[2:52], "\x00"))
			}
			h.InUse = binary.LittleEndian.Uint16(ev[flagsAt:])&InUseFlag != 0
		case PreviousGTIDsEvent:
			set, err := base.DecodeGTIDSet(Body(ev))
			if err != nil {
				return h, fmt.Errorf("%w: %s at offset %d: %v", ErrCorrupt, path, at, err)
			}
			h.PreviousGTIDs = set
		}
	}
	return h, nil
}

// ScanResult summarises a file scan.
type ScanResult struct {
	PreviousGTIDs *base.GTIDSet
	GTIDs         *base.GTIDSet // GTIDs of complete transactions in the file
	// ValidEnd is the offset after the last complete transaction (or
	// header event); bytes after it are a torn tail when Torn is set.
	ValidEnd uint64
	Size     uint64
	// ZeroTail counts the zero bytes after the data: the preallocated part
	// of a file the log was writing when it stopped (cut it on open).
	ZeroTail   uint64
	Torn       bool
	TornReason string
	// Transactions lists complete transactions: GTID and [Start, End).
	Transactions []TxnSpan
}

// TxnSpan locates one transaction in a file.
type TxnSpan struct {
	GTID       base.GTID
	Start, End uint64
	DDL        bool
}

// ScanFile reads a whole file, validating every checksum and transaction
// boundary. With tolerateTail, damage after the last complete transaction
// is reported as a torn tail (crash mid-write) rather than an error.
func ScanFile(path string, tolerateTail bool) (ScanResult, error) {
	res := ScanResult{PreviousGTIDs: base.NewGTIDSet(), GTIDs: base.NewGTIDSet()}
	st, err := os.Stat(path)
	if err != nil {
		return res, fmt.Errorf("binlog: %w", err)
	}
	res.Size = uint64(st.Size())
	r, err := OpenReader(path)
	if err != nil {
		return res, err
	}
	defer r.Close()
	res.ValidEnd = 4
	var cur *TxnSpan
	inTxn := false
	for {
		ev, at, err := r.Next()
		if err == io.EOF {
			if at < res.Size {
				// Zeros from here: the rest must be zeros too, or a
				// zeroed header hides data after it.
				zero, zerr := zeroFrom(r.f, int64(at))
				if zerr != nil {
					return res, fmt.Errorf("binlog: %s: %w", path, zerr)
				}
				if !zero {
					if !tolerateTail {
						return res, fmt.Errorf("%w: %s at offset %d: zeroed event header with data after it", ErrCorrupt, path, at)
					}
					res.Torn, res.TornReason = true, fmt.Sprintf("zeroed event header at offset %d with data after it", at)
					break
				}
				res.ZeroTail = res.Size - at
			}
			break
		}
		if err != nil {
			if !tolerateTail {
				if errors.Is(err, io.ErrUnexpectedEOF) {
					return res, fmt.Errorf("%w: %s at offset %d: truncated event", ErrCorrupt, path, at)
				}
				return res, err
			}
			res.Torn, res.TornReason = true, err.Error()
			if errors.Is(err, io.ErrUnexpectedEOF) {
				res.TornReason = fmt.Sprintf("partial event at offset %d", at)
			}
			break
		}
		end := at + uint64(len(ev))
		switch ev[4] {
		case FormatDescriptionEvent, RotateEvent, StopEvent:
			if !inTxn {
				res.ValidEnd = end
			}
		case PreviousGTIDsEvent:
			set, err := base.DecodeGTIDSet(Body(ev))
			if err != nil {
				return res, fmt.Errorf("%w: %s at offset %d: %v", ErrCorrupt, path, at, err)
			}
			res.PreviousGTIDs = set
			res.ValidEnd = end
		case GTIDEvent:
			g, err := ParseGTID(Body(ev))
			if err != nil {
				return res, fmt.Errorf("%s at offset %d: %w", path, at, err)
			}
			cur = &TxnSpan{GTID: g.GTID, Start: at}
			inTxn = false
		case QueryEvent:
			q, err := ParseQuery(Body(ev))
			if err != nil {
				return res, fmt.Errorf("%s at offset %d: %w", path, at, err)
			}
			if q.Query == "BEGIN" {
				inTxn = true
				continue
			}
			if cur != nil && !inTxn {
				// A DDL statement is a transaction of its own.
				cur.End, cur.DDL = end, true
				res.Transactions = append(res.Transactions, *cur)
				res.GTIDs.Add(cur.GTID)
				res.ValidEnd = end
				cur = nil
			}
		case XIDEvent, TransactionPayloadEvent:
			if cur != nil {
				cur.End = end
				res.Transactions = append(res.Transactions, *cur)
				res.GTIDs.Add(cur.GTID)
				cur = nil
			}
			inTxn = false
			res.ValidEnd = end
		}
	}
	if res.ValidEnd < res.Size-res.ZeroTail && !res.Torn {
		res.Torn, res.TornReason = true, fmt.Sprintf("incomplete transaction after offset %d", res.ValidEnd)
	}
	return res, nil
}
