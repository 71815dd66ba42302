package storage

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// Block cache defaults. The block cache is Petrel's buffer pool: its size
// is innodb_buffer_pool_size. MySQL's default is 128 MiB whatever the
// machine; Petrel defaults to an eighth of physical memory, at least
// 128 MiB and at most 8 GiB, so a server on a large machine keeps more of
// its data in memory without an option while several servers can still
// share a host (the cache fills only as blocks are read).
const (
	minDefaultCache = 128 << 20
	maxDefaultCache = 8 << 30
)

// DefaultCacheSize is the block cache size used when none is configured:
// CacheSizeFor the machine's physical memory (/proc/meminfo; unknown
// memory gives the minimum).
func DefaultCacheSize() int64 { return CacheSizeFor(memTotal()) }

// CacheSizeFor returns the default block cache size for a machine with
// mem bytes of physical memory (0: unknown), a whole number of MiB.
func CacheSizeFor(mem int64) int64 {
	n := mem / 8
	n = min(max(n, minDefaultCache), maxDefaultCache)
	return n &^ (1<<20 - 1)
}

// memTotal reads MemTotal from /proc/meminfo; 0 where it cannot.
func memTotal() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || kb <= 0 {
			return 0
		}
		return kb << 10
	}
	return 0
}
