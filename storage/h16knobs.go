package storage

import (
	"os"
	"strconv"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable"
)

func h16env(k string) int {
	n, _ := strconv.Atoi(os.Getenv(k))
	return n
}

// h16Knobs: experiment only (not committed).
func h16Knobs(po *pebble.Options) {
	if n := h16env("H16_MEMTABLE"); n > 0 {
		po.MemTableSize = uint64(n) << 20
	}
	if n := h16env("H16_L0"); n > 0 {
		po.L0CompactionThreshold = n
		po.L0StopWritesThreshold = max(12, 3*n)
	}
	if n := h16env("H16_LBASE"); n > 0 {
		po.LBaseMaxBytes = int64(n) << 20
	}
	if n := h16env("H16_TFS"); n > 0 {
		po.TargetFileSizes[0] = int64(n) << 20
	}
	if os.Getenv("H16_COMP") == "none" {
		for i := range po.Levels {
			po.Levels[i].Compression = func() *sstable.CompressionProfile { return sstable.NoCompression }
		}
	}
	if h16env("H16_NOREADCOMP") == 1 {
		po.Experimental.ReadSamplingMultiplier = -1
	}
	if n := h16env("H16_BLOOMALL"); n == 1 {
		for i := range po.Levels {
			po.Levels[i].FilterPolicy = po.Levels[0].FilterPolicy
		}
	}
}
