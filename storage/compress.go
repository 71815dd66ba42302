package storage

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"petrel/internal/base"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable/block"
)

// Table compression (CREATE TABLE ... ROW_FORMAT=COMPRESSED,
// KEY_BLOCK_SIZE=n, COMPRESSION='zstd'|'zlib'|'lz4'|'none').
//
// Pebble compresses sstable blocks, and chooses the codec of each output
// file of a flush or compaction through a span policy. A table's key
// range is written one of three ways (codecOf):
//
//   - tables without options (and COMPRESSION='lz4'): Pebble's fastest
//     codec (Snappy in the store's table format), what every table had
//     before table options, about 0.43x the text of the lab's load;
//   - compressed tables (ROW_FORMAT=COMPRESSED, a KEY_BLOCK_SIZE,
//     COMPRESSION='zstd' or 'zlib'): zstd (Snappy for what a flush
//     writes, compressedZstdLevel for compactions), about 0.31x the text;
//   - COMPRESSION='none' alone: no compression at all (data, index and
//     filter blocks as they are), about 1.1x the text: the uncompressed
//     table InnoDB has without options, against which a compressed
//     table's footprint compares like with like.
//
// An sstable never holds two kinds of range (the span policy ends an
// output file at each boundary). Rows are logged to the binlog as they
// are; only their storage changes.
//
// Pebble v2.1's span policy offers two choices per key range, the
// level's codec or the fastest; the level's codec is a function Pebble
// calls for each output file, with no key. So the policy records, per
// goroutine, the codec of the span it just answered (spanCodecs), and
// the level's codec function (compressedLevels) gives that goroutine's: Pebble
// asks the span policy and then the level's codec from the same
// goroutine, in compactAndWrite, for every file a flush or a compaction
// writes (TestTableCodecsPerGoroutine and TestUncompressedTable fail if
// a Pebble upgrade breaks that). A file written where no span was
// recorded gets zstd, the level's codec before this: never wrong, only
// compressed.
//
// What the options cannot change: Pebble's block size is the store's
// (KEY_BLOCK_SIZE is recorded and printed back, and makes the table
// compressed as it does in InnoDB), and 'lz4' keeps the store's fast
// LZ-family codec. 'zlib' (MySQL's other page codec) is stored with zstd.
//
// Why a compressed table is about 0.7x a plain one and not 0.4x (InnoDB's
// ratio): the plain table is not uncompressed, Snappy already takes 4 KiB
// blocks of text to about 0.4x, and zstd at any level cannot do better
// than about 0.26x on blocks that small (docs/PERFORMANCE.md, "Table
// compression", has the figures). Against an uncompressed table
// (COMPRESSION='none'), like InnoDB's, a compressed table is about 0.3x.

// Table option values a TableDef may hold.
const (
	RowFormatCompressed = "COMPRESSED"
	CompressionZstd     = "zstd"
	CompressionZlib     = "zlib"
	CompressionLZ4      = "lz4"
	CompressionNone     = "none"
)

// RowFormats are the ROW_FORMAT values MySQL accepts (DEFAULT is not
// recorded).
var RowFormats = []string{"DYNAMIC", "FIXED", RowFormatCompressed, "REDUNDANT", "COMPACT"}

// KeyBlockSizes are InnoDB's valid KEY_BLOCK_SIZE values (KB).
var KeyBlockSizes = []int{1, 2, 4, 8, 16}

// Compressions are the COMPRESSION values accepted.
var Compressions = []string{CompressionZstd, CompressionZlib, CompressionLZ4, CompressionNone}

// Compressed reports whether the table's ranges are written with zstd:
// ROW_FORMAT=COMPRESSED or a KEY_BLOCK_SIZE (InnoDB's compressed row
// format, which a COMPRESSION does not turn off: in MySQL that option is
// the page codec, another mechanism), or COMPRESSION='zstd' or 'zlib'.
func (d *TableDef) Compressed() bool {
	switch strings.ToLower(d.Compression) {
	case CompressionZstd, CompressionZlib:
		return true
	}
	return strings.EqualFold(d.RowFormat, RowFormatCompressed) || d.KeyBlockSize > 0
}

// codec is how a table's key range is written.
type codec uint8

const (
	codecFast codec = iota // Pebble's fastest: tables without options
	codecZstd              // compressed tables
	codecNone              // COMPRESSION='none': no compression
)

// codecOf is the codec of the table's key range: zstd if Compressed(),
// none for COMPRESSION='none' alone, else the fast codec.
func codecOf(d *TableDef) codec {
	switch {
	case d.Compressed():
		return codecZstd
	case strings.EqualFold(d.Compression, CompressionNone):
		return codecNone
	}
	return codecFast
}

// Uncompressed reports whether the table's ranges are written without
// any compression (COMPRESSION='none' without ROW_FORMAT=COMPRESSED or a
// KEY_BLOCK_SIZE).
func (d *TableDef) Uncompressed() bool { return codecOf(d) == codecNone }

// compressedLevels is the store's codec for each level (Pebble calls it for
// every file a flush or a compaction writes): for a file of a
// COMPRESSION='none' span, uncompressedLevels; for any other, zstdLevels
// (which the fast spans override with Pebble's fastest codec).
func compressedLevels() pebble.DBCompressionSettings {
	switch {
	case spanCodecs.current() == codecNone:
		return uncompressedLevels
	case optimizing.Load() > 0:
		return zstdEveryLevel
	}
	return zstdLevels
}

// optimizing counts the CompactTable calls in progress. While one runs,
// compressed tables' flushes are written with zstd too (zstdEveryLevel):
// the flush CompactTable starts may write a table's only file, which
// Pebble then moves, not rewrites, to the bottom level (a lone file into
// an empty level), so a small compressed table would have stayed Snappy
// after OPTIMIZE TABLE, as large as a plain one. Process-wide: another
// store's flush meanwhile spends zstd's CPU on its compressed tables'
// level 0 files, nothing else.
var optimizing atomic.Int32

// zstdEveryLevel is zstdLevels with level 0 written by compactedProfile.
var zstdEveryLevel = func() pebble.DBCompressionSettings {
	cs := pebble.UniformDBCompressionSettings(compactedProfile)
	cs.Name = "petrel"
	return cs
}()

// zstdLevels is the codec of compressed tables' ranges: Snappy for what
// a flush writes (level 0), on the write path, where a slower flush
// holds writers back once memtables queue up; compressedZstdLevel for
// what compactions write, off that path, which is where a table's bytes
// end up (OPTIMIZE TABLE puts them all there). Level 0 files live until
// the next compaction, seconds under a load: zstd there (level 3, until
// issue 34's load-time work) cost a load its encoding at the flush and
// its decoding at the compaction, 15% of the primary's CPU loading the
// lab's text, for files about to be rewritten.
var zstdLevels = func() pebble.DBCompressionSettings {
	cs := pebble.UniformDBCompressionSettings(compactedProfile)
	cs.Name = "petrel"
	cs.Levels[0] = block.SnappyCompression
	return cs
}()

// uncompressedProfile stores every block as it is. A copy of Pebble's
// NoCompression, not the same pointer: Pebble compares a level's codec
// with that pointer to decide that the store is uncompressed and then
// ignores the span policy's fast codec.
var uncompressedProfile = func() *block.CompressionProfile {
	p := *block.NoCompression
	p.Name = "petrel-none"
	return &p
}()

// uncompressedLevels is the codec of COMPRESSION='none' ranges at every
// level.
var uncompressedLevels = func() pebble.DBCompressionSettings {
	cs := pebble.UniformDBCompressionSettings(uncompressedProfile)
	cs.Name = "petrel"
	return cs
}()

// compressedZstdLevel is the zstd level of a compressed table's
// compacted data blocks. On the lab's source text in 4 KiB blocks
// (docs/PERFORMANCE.md, "Table compression") level 5 writes 5% less than
// level 3 for about 1.8x its CPU; level 19 only 8% less for 30x: a 4 KiB
// block holds too little context for a deeper search to find more.
const compressedZstdLevel = 5

// compactedProfile is Pebble's zstd profile (zstd for every block, a
// block it would not shrink by 12% stored as it is) with data blocks at
// compressedZstdLevel. Not Pebble's "Good" profile: its index blocks use
// MinLZ, which the store's table format (Pebble's oldest supported, kept
// so existing datadirs open unchanged) lacks, and Pebble then falls back
// to Snappy for the whole file. The name is what Pebble records in each
// file's properties and its OPTIONS file; opening a store does not
// parse it back.
var compactedProfile = func() *block.CompressionProfile {
	p := *block.ZstdCompression
	p.DataBlocks.Level = compressedZstdLevel
	p.ValueBlocks.Level = compressedZstdLevel
	p.Name = fmt.Sprintf("petrel-zstd%d", compressedZstdLevel)
	return &p
}()

// tableCodec is a table whose range is not written with the fast codec.
type tableCodec struct {
	id uint32
	c  codec
}

// spanPolicies holds the tables whose ranges are not written with the
// fast codec, for the span policy Pebble's flushes and compactions
// consult. Safe for concurrent use: readers load an immutable slice
// sorted by id.
type spanPolicies struct {
	mu  sync.Mutex // orders writers
	ids atomic.Pointer[[]tableCodec]
}

func (s *spanPolicies) load() []tableCodec {
	if p := s.ids.Load(); p != nil {
		return *p
	}
	return nil
}

func searchCodec(ts []tableCodec, id uint32) (int, bool) {
	return slices.BinarySearchFunc(ts, id, func(t tableCodec, id uint32) int {
		return cmp.Compare(t.id, id)
	})
}

// set records table id's codec.
func (s *spanPolicies) set(id uint32, c codec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.load()
	i, found := searchCodec(cur, id)
	if !found && c == codecFast || found && cur[i].c == c {
		return
	}
	next := slices.Clone(cur)
	switch {
	case c == codecFast:
		next = slices.Delete(next, i, i+1)
	case found:
		next[i].c = c
	default:
		next = slices.Insert(next, i, tableCodec{id, c})
	}
	s.ids.Store(&next)
}

// reset replaces the whole set (the catalog's load).
func (s *spanPolicies) reset(ts []tableCodec) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := slices.DeleteFunc(slices.Clone(ts), func(t tableCodec) bool { return t.c == codecFast })
	slices.SortFunc(next, func(a, b tableCodec) int { return cmp.Compare(a.id, b.id) })
	next = slices.CompactFunc(next, func(a, b tableCodec) bool { return a.id == b.id })
	s.ids.Store(&next)
}

// policy is Pebble's SpanPolicyFunc: the policy at start and the key
// where it ends (nil: the rest of the key space); it records the span's
// codec for the calling goroutine (spanCodecs), which compressedLevels reads
// when Pebble then asks for the level's codec. Pebble cuts every file a
// flush or a compaction writes at a span's end, so the spans also keep
// the metadata space apart from the rows: each commit writes two
// metadata keys (metaLastSeq, metaSinkPos) beside its rows, and a
// flushed file holding both spanned every row stored before its own, so
// that each compaction into the bottom level rewrote the whole table
// below (a 64 MiB load in key order wrote its rows 7-8 times over).
// Runs of consecutive table ids with the same codec share one span, so
// the data space splits only where the codec changes.
func (s *spanPolicies) policy(start []byte) (pebble.SpanPolicy, []byte, error) {
	p, c, end := s.span(start)
	spanCodecs.record(c)
	return p, end, nil
}

// span is policy without the recording: the span's policy, codec and end.
func (s *spanPolicies) span(start []byte) (pebble.SpanPolicy, codec, []byte) {
	fast := pebble.SpanPolicy{PreferFastCompression: true}
	if len(start) == 0 || start[0] < spaceData {
		return fast, codecFast, []byte{spaceData}
	}
	ts := s.load()
	if len(ts) == 0 || start[0] > spaceData {
		return fast, codecFast, nil
	}
	var idb [4]byte
	copy(idb[:], start[1:])
	id := binary.BigEndian.Uint32(idb[:])
	i, found := searchCodec(ts, id)
	if !found {
		if i == len(ts) {
			return fast, codecFast, nil
		}
		return fast, codecFast, tablePrefix(ts[i].id)
	}
	j := i
	for j+1 < len(ts) && ts[j+1].id == ts[j].id+1 && ts[j+1].c == ts[i].c {
		j++
	}
	if ts[j].id == math.MaxUint32 {
		return pebble.SpanPolicy{}, ts[i].c, nil
	}
	return pebble.SpanPolicy{}, ts[i].c, tablePrefix(ts[j].id + 1)
}

// spanCodecs is the codec of the span each goroutine of Pebble's last
// asked the span policy for.
var spanCodecs goroutineCodecs

// goroutineCodecs maps goroutine ids to the codec of their current
// span. Flushes and compactions each run in a goroutine of their own, so
// entries of ended goroutines are dropped once more than
// maxGoroutineCodecs are held, the least recently used first; a live
// one is touched at every output file it writes.
type goroutineCodecs struct {
	mu    sync.Mutex
	m     map[uint64]goroutineCodec
	clock uint64
}

type goroutineCodec struct {
	c    codec
	used uint64
}

// maxGoroutineCodecs bounds goroutineCodecs: Pebble runs a handful of
// flushes and compactions at once, so only entries of ended goroutines
// are ever dropped.
const maxGoroutineCodecs = 256

// record sets the calling goroutine's codec.
func (g *goroutineCodecs) record(c codec) {
	id := goroutineID()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = make(map[uint64]goroutineCodec)
	}
	g.clock++
	g.m[id] = goroutineCodec{c: c, used: g.clock}
	if len(g.m) > maxGoroutineCodecs {
		// Keep the newer half.
		cut := g.clock - maxGoroutineCodecs/2
		for k, v := range g.m {
			if v.used <= cut {
				delete(g.m, k)
			}
		}
	}
}

// current is the calling goroutine's codec, zstd when it has none
// recorded.
func (g *goroutineCodecs) current() codec {
	id := goroutineID()
	g.mu.Lock()
	defer g.mu.Unlock()
	v, ok := g.m[id]
	if !ok {
		return codecZstd
	}
	g.clock++
	v.used = g.clock
	g.m[id] = v
	return v.c
}

// goroutineID is the calling goroutine's id, from the first line of its
// stack trace ("goroutine 123 [running]:"). Go has no other way to name
// a goroutine; it costs a few microseconds, once per span and per file.
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	var id uint64
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			break
		}
		id = id*10 + uint64(ch-'0')
	}
	return id
}

// TableDiskUsage is Pebble's estimate of the bytes a table's rows
// (primary index) and secondary index entries take in sstables on disk,
// after compression: information_schema.TABLES's DATA_LENGTH and
// INDEX_LENGTH. Rows still only in the memtable (and the WAL) count
// once a flush writes them. The two add up to the estimate for the
// table's whole range, which counts a file the range covers whole at its
// size, index and filter blocks included (the files of a compressed
// table, which the span policy keeps to itself: its exact bytes on
// disk); the estimate for each index's range alone counts only the data
// blocks of a file it shares, so it gives the split, not the sum.
func (e *Engine) TableDiskUsage(tb *Table) (data, index uint64, err error) {
	t := tablePrefix(tb.Def.ID)
	total, err := e.db.EstimateDiskUsage(t, prefixEnd(t))
	if err != nil {
		return 0, 0, err
	}
	p := indexPrefix(nil, tb.Def.ID, 0)
	if data, err = e.db.EstimateDiskUsage(p, prefixEnd(p)); err != nil {
		return 0, 0, err
	}
	ix := indexPrefix(nil, tb.Def.ID, 1)
	if index, err = e.db.EstimateDiskUsage(ix, prefixEnd(t)); err != nil {
		return 0, 0, err
	}
	if data+index == 0 {
		return total, 0, nil
	}
	d := uint64(float64(total) * float64(data) / float64(data+index))
	return d, total - d, nil
}

// CompactTable compacts the table's key range, flushing the memtable
// first when it holds keys of the range (a footprint measured after a
// load), and leaves every file of the range written with the table's
// codec (what the span policy answers for it now, so also after ALTER
// TABLE changed it).
//
// A compaction does not always rewrite: Pebble moves a lone file into a
// level where nothing overlaps it (a move compaction), and a manual
// compaction never rewrites a file already at the bottom level. A moved
// file keeps the codec it was written with: a compressed table's file
// flushed with Snappy before OPTIMIZE TABLE, which its compaction (or an
// earlier automatic one) moved alone into an empty bottom level, or any
// table's files after ALTER TABLE changed its codec, stayed as they were.
// Pebble's public API has no way to forbid a move (the span policy cannot)
// or to compact the bottom level by itself, so CompactTable checks the
// files' codecs (recorded in their properties) once it has compacted, and
// makes Pebble rewrite the span of those written otherwise: a range key
// deletion over that span (rewriteSpan) gives the next compaction a file
// that overlaps them, so they are merged with it, not moved, and the
// compaction into the bottom level drops the deletion. At most
// maxCodecRewrites such rounds; files still written otherwise after them
// (a concurrent ALTER TABLE each time) are an error. optimizing makes the
// flush CompactTable starts write a compressed table's file with zstd, so
// that a small table's lone flushed file needs no second round.
func (e *Engine) CompactTable(ctx context.Context, tb *Table) error {
	optimizing.Add(1)
	defer optimizing.Add(-1)
	p := tablePrefix(tb.Def.ID)
	end := prefixEnd(p)
	if err := e.db.Compact(ctx, p, end, false); err != nil {
		return err
	}
	for round := 0; ; round++ {
		_, c, _ := e.spans.span(p)
		lo, hi, files, err := e.otherCodecSpan(p, end, c)
		if err != nil || files == 0 {
			return err
		}
		if round == maxCodecRewrites {
			return fmt.Errorf("storage: table %s.%s: %d files not written with the table's codec after %d rewrites", tb.Def.Database, tb.Def.Name, files, round)
		}
		if err := e.rewriteSpan(ctx, lo, hi, p, end); err != nil {
			return err
		}
	}
}

// maxCodecRewrites bounds CompactTable's rewrites of files moved with
// another codec: one round rewrites them all unless the codec changes
// meanwhile.
const maxCodecRewrites = 3

// otherCodecSpan is the part of [start, end) held by files that were not
// written with codec c (recorded as Pebble's CompressionName property),
// from the smallest key of any of them to just past the largest, within
// [start, end), and how many such files there are (0: none, and no span).
func (e *Engine) otherCodecSpan(start, end []byte, c codec) (lo, hi []byte, files int, err error) {
	levels, err := e.db.SSTables(pebble.WithProperties(), pebble.WithKeyRangeFilter(start, end))
	if err != nil {
		return nil, nil, 0, err
	}
	for _, lf := range levels {
		for _, f := range lf {
			if f.Properties == nil || writtenWith(c, f.Properties.CompressionName) {
				continue
			}
			if small := f.Smallest.UserKey; files == 0 || bytes.Compare(small, lo) < 0 {
				lo = bytes.Clone(small)
			}
			if large := f.Largest.UserKey; files == 0 || bytes.Compare(large, hi) > 0 {
				hi = bytes.Clone(large)
			}
			files++
		}
	}
	if files == 0 {
		return nil, nil, 0, nil
	}
	if bytes.Compare(lo, start) < 0 {
		lo = start
	}
	// Past the largest key: an inclusive bound becomes exclusive.
	if hi = append(hi, 0); bytes.Compare(hi, end) > 0 {
		hi = end
	}
	return lo, hi, files, nil
}

// writtenWith reports whether a file Pebble recorded as compressed with
// the profile named name is written with codec c: zstd with
// compactedProfile, none with uncompressedProfile (what compactions, and
// flushes during CompactTable, write for them); the fast codec with
// whatever Pebble's fastest is in the store's table format (Snappy), so
// any profile but the store's two own.
func writtenWith(c codec, name string) bool {
	switch c {
	case codecZstd:
		return name == compactedProfile.Name
	case codecNone:
		return name == uncompressedProfile.Name
	}
	return name != compactedProfile.Name && name != uncompressedProfile.Name
}

// rewriteSpan makes Pebble rewrite the files overlapping [lo, hi), part
// of the table range [start, end), with the span's codec: it writes a
// range key deletion over [lo, hi) and compacts the table's range. The
// store has no range keys, so the deletion deletes nothing and no reader
// sees it (iterators read point keys only); but it is a key of the range,
// flushed into a level 0 file spanning [lo, hi), which the compaction
// cannot move past the files it overlaps: it merges them, and writes
// their keys anew. At the bottom level the deletion is dropped (kept only
// while a snapshot older than it is open; a later compaction drops it).
// Not in the commit sink's log: lost in a crash before its flush, it only
// leaves the rewrite undone.
func (e *Engine) rewriteSpan(ctx context.Context, lo, hi, start, end []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := e.WriteError(); err != nil {
		return err
	}
	if err := e.db.RangeKeyDelete(lo, hi, pebble.NoSync); err != nil {
		e.refuseWrites(err)
		return base.Wrap(classifyWriteErr(err), err, "storage: mark %x..%x for rewriting", lo, hi)
	}
	return e.db.Compact(ctx, start, end, false)
}
