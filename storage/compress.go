package storage

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable/block"
)

// Table compression (CREATE TABLE ... ROW_FORMAT=COMPRESSED,
// KEY_BLOCK_SIZE=n, COMPRESSION='zstd'|'zlib'|'lz4'|'none').
//
// Pebble compresses sstable blocks, and chooses the codec of each output
// file of a flush or compaction through a span policy: the store's level
// codec is zstd (level 3 for flushes, compressedZstdLevel for
// compactions), and every key range but those of tables declared
// compressed asks for Pebble's fastest codec (Snappy in the store's table
// format; MinLZ in newer ones), which is what every table had before. So
// a compressed table's rows and index entries are written with zstd,
// from the first flush on, and an sstable never holds both kinds of range
// (the span policy ends an output file at a boundary). Rows are logged to
// the binlog as they are; only their storage changes.
//
// What the options cannot change: Pebble's block size is the store's
// (KEY_BLOCK_SIZE is recorded and printed back, and makes the table
// compressed as it does in InnoDB), and COMPRESSION='none' and 'lz4'
// alone keep the store's fast LZ-family codec: Pebble's span policy
// (v2.1) offers one choice per key range, the level's codec or the
// fastest, so no uncompressed or lz4 range beside Snappy and zstd ones.
// 'zlib' (MySQL's other page codec) is stored with zstd.
//
// Why a compressed table is about 0.7x a plain one and not 0.4x (InnoDB's
// ratio): the plain table is not uncompressed, Snappy already takes 4 KiB
// blocks of text to about 0.4x, and zstd at any level cannot do better
// than about 0.26x on blocks that small (docs/PERFORMANCE.md, "Table
// compression", has the figures). Against the text itself, the
// uncompressed baseline, a compressed table is about 0.32x.

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

// compressedLevels is the store's codec for each level, which only the
// ranges of tables declared compressed get (the others ask for the fast
// codec, Snappy in the store's table format, as every range had before):
// Snappy for what a flush writes (level 0), on the write path, where a
// slower flush holds writers back once memtables queue up;
// compressedZstdLevel for what compactions write, off that path, which
// is where a table's bytes end up (OPTIMIZE TABLE puts them all there).
// Level 0 files live until the next compaction, seconds under a load: zstd
// there (level 3, until issue 34's load-time work) cost a load its encoding
// at the flush and its decoding at the compaction, 15% of the primary's
// CPU loading the lab's text, for files about to be rewritten.
func compressedLevels() pebble.DBCompressionSettings {
	cs := pebble.UniformDBCompressionSettings(compactedProfile)
	cs.Name = "petrel"
	cs.Levels[0] = block.SnappyCompression
	return cs
}

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

// spanPolicies holds the ids of the tables declared compressed, for the
// span policy Pebble's flushes and compactions consult. Safe for
// concurrent use: readers load an immutable sorted slice.
type spanPolicies struct {
	mu  sync.Mutex // orders writers
	ids atomic.Pointer[[]uint32]
}

// set records whether table id is compressed.
func (s *spanPolicies) set(id uint32, compressed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var cur []uint32
	if p := s.ids.Load(); p != nil {
		cur = *p
	}
	i, found := slices.BinarySearch(cur, id)
	if found == compressed {
		return
	}
	next := slices.Clone(cur)
	if compressed {
		next = slices.Insert(next, i, id)
	} else {
		next = slices.Delete(next, i, i+1)
	}
	s.ids.Store(&next)
}

// reset replaces the whole set (the catalog's load).
func (s *spanPolicies) reset(ids []uint32) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := slices.Clone(ids)
	slices.Sort(next)
	next = slices.Compact(next)
	s.ids.Store(&next)
}

// policy is Pebble's SpanPolicyFunc: the policy at start and the key
// where it ends (nil: the rest of the key space). Pebble cuts every file
// a flush or a compaction writes at a span's end, so the spans also keep
// the metadata space apart from the rows: each commit writes two
// metadata keys (metaLastSeq, metaSinkPos) beside its rows, and a
// flushed file holding both spanned every row stored before its own, so
// that each compaction into the bottom level rewrote the whole table
// below (a 64 MiB load in key order wrote its rows 7-8 times over).
// Runs of consecutive compressed table ids share one span, so the data
// space splits only where the codec changes.
func (s *spanPolicies) policy(start []byte) (pebble.SpanPolicy, []byte, error) {
	fast := pebble.SpanPolicy{PreferFastCompression: true}
	if len(start) == 0 || start[0] < spaceData {
		return fast, []byte{spaceData}, nil
	}
	p := s.ids.Load()
	if p == nil || len(*p) == 0 {
		return fast, nil, nil
	}
	ids := *p
	if start[0] > spaceData {
		return fast, nil, nil
	}
	var idb [4]byte
	copy(idb[:], start[1:])
	id := binary.BigEndian.Uint32(idb[:])
	i, found := slices.BinarySearch(ids, id)
	if !found {
		if i == len(ids) {
			return fast, nil, nil
		}
		return fast, tablePrefix(ids[i]), nil
	}
	j := i
	for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
		j++
	}
	if ids[j] == math.MaxUint32 {
		return pebble.SpanPolicy{}, nil, nil
	}
	return pebble.SpanPolicy{}, tablePrefix(ids[j] + 1), nil
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
// load): its files are rewritten with the table's codec.
func (e *Engine) CompactTable(ctx context.Context, tb *Table) error {
	p := tablePrefix(tb.Def.ID)
	return e.db.Compact(ctx, p, prefixEnd(p), false)
}
