package storage

import "testing"

// The default block cache is an eighth of memory within [128 MiB, 8 GiB],
// in whole MiB; this machine's memory is read.
func TestCacheSizeFor(t *testing.T) {
	for _, c := range []struct{ mem, want int64 }{
		{0, 128 << 20},
		{512 << 20, 128 << 20},
		{2 << 30, 256 << 20},
		{24105 << 20, 3013 << 20},
		{128 << 30, 8 << 30},
	} {
		if got := CacheSizeFor(c.mem); got != c.want {
			t.Errorf("CacheSizeFor(%d) = %d, want %d", c.mem, got, c.want)
		}
	}
	if m := memTotal(); m <= 0 {
		t.Errorf("MemTotal of this machine: %d", m)
	} else if d := DefaultCacheSize(); d != CacheSizeFor(m) {
		t.Errorf("DefaultCacheSize %d, want %d for %d bytes", d, CacheSizeFor(m), m)
	}
}
