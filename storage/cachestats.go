package storage

// CacheStats is the block cache (innodb_buffer_pool_size) at one moment,
// as Pebble counts it.
type CacheStats struct {
	// Capacity is the configured size in bytes (Options.CacheSize).
	Capacity int64
	// Bytes is what the cached blocks take; Blocks is how many there are.
	Bytes, Blocks int64
	// Hits and Misses count block lookups since the engine opened.
	Hits, Misses int64
}

// CacheStats reads the block cache's use from Pebble. Once Close has
// started it reports the capacity alone: Pebble's metrics cannot be read
// from a closing store, and a metrics scrape may come at any time.
func (e *Engine) CacheStats() CacheStats {
	s := CacheStats{Capacity: e.opts.CacheSize}
	// Registered as background work, so Close waits for the read before
	// it closes Pebble.
	e.tasksMu.Lock()
	select {
	case <-e.closing:
		e.tasksMu.Unlock()
		return s
	default:
	}
	e.tasks.Add(1)
	e.tasksMu.Unlock()
	defer e.tasks.Done()
	m := e.db.Metrics().BlockCache
	s.Bytes, s.Blocks, s.Hits, s.Misses = m.Size, m.Count, m.Hits, m.Misses
	return s
}

// PhysicalMemory is the machine's RAM in bytes (MemTotal of
// /proc/meminfo; 0 where it cannot be read).
func PhysicalMemory() int64 { return memTotal() }
