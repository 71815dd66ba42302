package binlog

// The binary log's transaction cache (issue 29), MySQL's binlog cache: a
// transaction's rows events are encoded as it makes its changes
// (storage.ChangeCache), kept in memory up to binlog_cache_size and
// spilled to a temporary file past it, so a transaction of any size holds
// a bounded amount of memory for its log events. At commit the log
// writes its GTID, BEGIN and TABLE_MAP events, then the cache's events,
// streamed from the file, then the XID (commitSpilled); a cache that never
// spilled is logged exactly as before, compression included. The file has
// no name, as MySQL's binlog cache files have none: it is removed from the
// directory as soon as it is created, and kept open when the transaction
// ends (committed or rolled back) for a later one's cache (cachePool), so
// that a transaction just past binlog_cache_size does not create and
// remove a file, two journaled directory operations, at each commit.
// Names a crash of an older release left are removed when the log opens.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/cespare/xxhash/v2"
	"github.com/dolthub/go-mysql-server/sql"

	"petrel/binlog/rowenc"
	"petrel/internal/failpoint"
	"petrel/storage"
)

// DefaultCacheSize is binlog_cache_size's default (MySQL's: 32 KiB).
const DefaultCacheSize = 32 << 10

// cachePoolMax is how many spill files the log keeps open for later
// transactions; cachePoolFileMax the most a kept file may have held (a
// larger one is closed, so the disk it took is freed).
const (
	cachePoolMax     = 16
	cachePoolFileMax = 4 << 20
)

// cachePool is the log's open, unnamed spill files.
type cachePool struct {
	mu     sync.Mutex
	files  []*os.File
	closed bool
}

// takeCacheFile returns a spill file: one a finished transaction left,
// or a new one, removed from the directory at once.
func (l *Log) takeCacheFile() (*os.File, error) {
	p := &l.cachePool
	p.mu.Lock()
	if n := len(p.files); n > 0 {
		f := p.files[n-1]
		p.files = p.files[:n-1]
		p.mu.Unlock()
		return f, nil
	}
	p.mu.Unlock()
	f, err := os.CreateTemp(l.cacheDir(), cacheFilePrefix+"*")
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// putCacheFile keeps f, which held at most high bytes, for a later
// transaction, unless it is too large, the pool is full or the log closed.
func (l *Log) putCacheFile(f *os.File, high int64) error {
	p := &l.cachePool
	p.mu.Lock()
	if !p.closed && high <= cachePoolFileMax && len(p.files) < cachePoolMax {
		p.files = append(p.files, f)
		p.mu.Unlock()
		return nil
	}
	p.mu.Unlock()
	return f.Close()
}

// closeCachePool closes the kept spill files; files put back later are
// closed at once.
func (l *Log) closeCachePool() error {
	p := &l.cachePool
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	var err error
	for _, f := range p.files {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	p.files = nil
	return err
}

// cacheFilePrefix names the cache's temporary files.
const cacheFilePrefix = "binlog-cache-"

// cacheHashMax bounds the write-set hashes a cache keeps: a transaction
// with more unique keys is ordered after every earlier one on replicas
// (as if it had a table without keys), as MySQL orders a transaction
// whose write set overflows the history.
const cacheHashMax = 1 << 16

// SetCacheSize sets binlog_cache_size: the bytes of encoded events a
// transaction keeps in memory before its cache spills to a file. It
// applies to caches created after the call.
func (l *Log) SetCacheSize(n int64) { l.cacheSize.Store(max(n, 4096)) }

// CacheStats are MySQL's Binlog_cache_use (transactions that used the
// cache) and Binlog_cache_disk_use (those whose cache spilled to a file).
func (l *Log) CacheStats() (use, diskUse uint64) {
	return l.stats.CacheUse.Load(), l.stats.CacheDiskUse.Load()
}

// cacheDir is where spilled caches go.
func (l *Log) cacheDir() string {
	if l.opts.CacheDir != "" {
		return l.opts.CacheDir
	}
	return os.TempDir()
}

// sweepCacheDir removes the cache files a crash left in Options.CacheDir
// (only a directory of the log's own: the system's temporary directory
// may hold other servers' files).
func (l *Log) sweepCacheDir() error {
	if l.opts.CacheDir == "" {
		return nil
	}
	if err := os.MkdirAll(l.opts.CacheDir, 0o750); err != nil {
		return fmt.Errorf("binlog: cache directory: %w", err)
	}
	ents, err := os.ReadDir(l.opts.CacheDir)
	if err != nil {
		return fmt.Errorf("binlog: cache directory: %w", err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), cacheFilePrefix) {
			if err := os.Remove(filepath.Join(l.opts.CacheDir, e.Name())); err != nil {
				return fmt.Errorf("binlog: remove a stale cache file: %w", err)
			}
		}
	}
	return nil
}

// NewChangeCache implements storage.ChangeCacher.
func (l *Log) NewChangeCache() storage.ChangeCache {
	l.stats.CacheUse.Add(1)
	return &txnCache{l: l, limit: l.cacheSize.Load(), open: -1, last: -1, tracking: l.trackWritesets.Load()}
}

// txnCache is one transaction's cache: its rows events, back to back,
// each with a header whose timestamp, server id, next position and
// checksum are left for the commit (patchEvent). The first fileLen bytes
// are in f, the rest in buf, whose last event may still be open (taking
// more rows). Not safe for concurrent use.
type txnCache struct {
	l     *Log
	limit int64

	f       *os.File
	fileLen int64
	high    int64 // the most fileLen was (what the file holds on disk)
	buf     []byte
	open    int // offset in buf of the open rows event; -1: none
	kind    byte
	table   *storage.Table
	// last is the offset in the cache of the last rows event (the
	// commit gives it STMT_END_F); -1: none.
	last int64
	// tables are the tables changed, in first-change order (their
	// TABLE_MAPs are logged before the rows events).
	tables []*storage.Table

	// The write set (writeset.go), unless dependency tracking was
	// COMMIT_ORDER when the cache was made: the hash of each unique key
	// of each row image, duplicates included (deduplicated at commit),
	// so a truncation only cuts the list; overflow: too many to keep.
	tracking, missing, overflow bool
	hashes                      []uint64
	err                         error
}

func (c *txnCache) size() int64 { return c.fileLen + int64(len(c.buf)) }

// Add implements storage.ChangeCache.
func (c *txnCache) Add(ch storage.RowChange) error {
	if c.err != nil {
		return c.err
	}
	tc, err := c.l.cols.get(ch.Table)
	if err != nil {
		return err
	}
	if !slices.Contains(c.tables, ch.Table) {
		c.tables = append(c.tables, ch.Table)
	}
	if c.tracking && !c.overflow {
		for _, row := range []sql.Row{ch.Before, ch.After} {
			if row == nil {
				continue
			}
			missing, err := ch.Table.UniqueKeys(row, func(k []byte) { c.hashes = append(c.hashes, xxhash.Sum64(k)) })
			if err != nil {
				return fmt.Errorf("binlog: write set of %s.%s: %w", ch.Table.Def.Database, ch.Table.Def.Name, err)
			}
			c.missing = c.missing || missing || ch.Table.InForeignKey()
		}
		if len(c.hashes) > cacheHashMax {
			c.overflow, c.hashes = true, nil
		}
	}
	k := changeKind(ch)
	if c.open >= 0 && (k != c.kind || ch.Table != c.table || len(c.buf)-c.open-HeaderLen >= rowsEventTarget) {
		c.closeEvent()
	}
	if c.open < 0 {
		c.kind, c.table = k, ch.Table
		c.buf, c.open = startEvent(c.buf, k, 0, 0)
		c.buf = appendRowsHeader(c.buf, uint64(ch.Table.Def.ID), rowsFlags(ch.Table), len(tc.cols), k == UpdateRowsEventV2)
	}
	keep := len(c.buf)
	for _, row := range []sql.Row{ch.Before, ch.After} {
		if row == nil {
			continue
		}
		lr, err := tc.loggedRow(row)
		if err == nil {
			c.buf, err = rowenc.AppendRowImage(c.buf, tc.cols, lr)
		}
		if err != nil {
			c.buf = c.buf[:keep]
			return fmt.Errorf("binlog: %s.%s: %w", ch.Table.Def.Database, ch.Table.Def.Name, err)
		}
	}
	return c.spill()
}

// closeEvent ends the open rows event (its size; the checksum's room).
func (c *txnCache) closeEvent() {
	if c.open < 0 {
		return
	}
	c.buf = append(c.buf, 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(c.buf[c.open+9:], uint32(len(c.buf)-c.open))
	c.last = c.fileLen + int64(c.open)
	c.open = -1
}

// spill moves the closed events in memory to the file once they pass
// the limit; the open event stays in memory.
func (c *txnCache) spill() error {
	closed := len(c.buf)
	if c.open >= 0 {
		closed = c.open
	}
	if int64(closed) <= c.limit {
		return nil
	}
	if c.f == nil {
		f, err := c.l.takeCacheFile()
		if err != nil {
			c.err = fmt.Errorf("binlog: transaction cache: %w", err)
			return c.err
		}
		c.f = f
		c.l.stats.CacheDiskUse.Add(1)
	}
	if _, err := c.f.WriteAt(c.buf[:closed], c.fileLen); err != nil {
		// The cache no longer holds the transaction's changes: it fails
		// (the SQL layer rolls it back).
		c.err = fmt.Errorf("binlog: transaction cache: write %s: %w", c.f.Name(), err)
		return c.err
	}
	c.fileLen += int64(closed)
	c.high = max(c.high, c.fileLen)
	// A crash here is one before the transaction's commit (e2e kill tests).
	if err := failpoint.Inject("binlog.cacheSpill"); err != nil {
		c.err = err
		return err
	}
	n := copy(c.buf, c.buf[closed:])
	c.buf = c.buf[:n]
	if c.open >= 0 {
		c.open -= closed
	}
	return nil
}

// Mark implements storage.ChangeCache. It closes the open event: a
// statement's rows start a new event, so a truncation cuts whole events.
func (c *txnCache) Mark() storage.CacheMark {
	c.closeEvent()
	h := int64(len(c.hashes))
	if c.overflow {
		h = -1
	}
	return storage.CacheMark{A: c.size(), B: int64(len(c.tables)), C: h, D: c.last}
}

// Truncate implements storage.ChangeCache.
func (c *txnCache) Truncate(m storage.CacheMark) error {
	if c.err != nil {
		return c.err
	}
	c.open = -1
	if m.A >= c.fileLen {
		c.buf = c.buf[:m.A-c.fileLen]
	} else {
		if err := c.f.Truncate(m.A); err != nil {
			c.err = fmt.Errorf("binlog: transaction cache: truncate %s: %w", c.f.Name(), err)
			return c.err
		}
		c.fileLen, c.buf = m.A, c.buf[:0]
	}
	c.tables = c.tables[:min(int(m.B), len(c.tables))]
	if m.C >= 0 && !c.overflow {
		c.hashes = c.hashes[:min(int(m.C), len(c.hashes))]
	}
	c.last = m.D
	return nil
}

// Close implements storage.ChangeCache: the file goes back to the log's
// pool (closed instead after a failed write).
func (c *txnCache) Close() error {
	c.buf, c.hashes, c.tables = nil, nil, nil
	if c.f == nil {
		return nil
	}
	f := c.f
	c.f = nil
	if c.err != nil {
		return f.Close()
	}
	return c.l.putCacheFile(f, c.high)
}

// seal ends the cache for the commit.
func (c *txnCache) seal() error {
	c.closeEvent()
	return c.err
}

// writeset is the cache's write set for dependency tracking (nil when
// the log does not track write sets now).
func (c *txnCache) writeset(session uint32) *writeset {
	if !c.l.trackWritesets.Load() {
		return nil
	}
	ws := writeset{session: session}
	if !c.tracking || c.overflow {
		ws.missingKeys = true
		return &ws
	}
	k := newKeyHasher(len(c.hashes))
	for _, h := range c.hashes {
		if _, dup := k.seen[h]; !dup {
			k.seen[h] = struct{}{}
			k.hashes = append(k.hashes, h)
		}
	}
	ws.hashes, ws.missingKeys = k.hashes, c.missing
	return &ws
}

// patchEvent fills in an event of the cache at offset at: its stamp
// (what encodeCompressed gives every event), STMT_END_F on the last rows
// event, and, with nextPos > 0, its next position and checksum.
func (c *txnCache) patchEvent(ev []byte, at int64, serverID, ts uint32, nextPos uint64) {
	binary.LittleEndian.PutUint32(ev[0:], ts)
	binary.LittleEndian.PutUint32(ev[5:], serverID)
	if at == c.last {
		setStmtEnd(ev)
	}
	if nextPos > 0 {
		setNextPos(ev, uint32(nextPos))
	}
}

// events calls fn with each event of the cache in order and its offset
// in the cache. ev is only valid during the call (fn may change it).
func (c *txnCache) events(fn func(ev []byte, at int64) error) error {
	if c.f != nil {
		// A buffer of the file's size up to 1 MiB: a cache just past
		// binlog_cache_size (32 KiB) must not allocate and clear 1 MiB
		// at each commit.
		r := bufio.NewReaderSize(io.NewSectionReader(c.f, 0, c.fileLen), int(min(c.fileLen, 1<<20)))
		var ev []byte
		for at := int64(0); at < c.fileLen; {
			ev = slices.Grow(ev[:0], HeaderLen)[:HeaderLen]
			if _, err := io.ReadFull(r, ev); err != nil {
				return fmt.Errorf("binlog: transaction cache: read %s: %w", c.f.Name(), err)
			}
			n := int(binary.LittleEndian.Uint32(ev[9:]))
			if n < HeaderLen+ChecksumLen || at+int64(n) > c.fileLen {
				return fmt.Errorf("binlog: transaction cache: bad event size %d at %d of %s", n, at, c.f.Name())
			}
			ev = slices.Grow(ev, n-HeaderLen)[:n]
			if _, err := io.ReadFull(r, ev[HeaderLen:]); err != nil {
				return fmt.Errorf("binlog: transaction cache: read %s: %w", c.f.Name(), err)
			}
			if err := fn(ev, at); err != nil {
				return err
			}
			at += int64(n)
		}
	}
	for off := 0; off < len(c.buf); {
		n := int(binary.LittleEndian.Uint32(c.buf[off+9:]))
		if err := fn(c.buf[off:off+n], c.fileLen+int64(off)); err != nil {
			return err
		}
		off += n
	}
	return nil
}
