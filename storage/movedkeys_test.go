package storage

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"testing"
)

// TestMovedKeysPacked: the keys an UPDATE moved are kept packed, about
// 14 bytes a key for index keys of 16 bytes (a slice header and a key of
// its own each took about 60), and read back as added, with their
// statement depths, through a nested statement's end.
func TestMovedKeysPacked(t *testing.T) {
	e, tb := kvFixture(t, 1)
	txn := e.Begin()
	defer txn.Rollback()
	prefix := tb.IndexKeyPrefix(1)
	key := func(i int) []byte {
		k := append([]byte(nil), prefix...)
		return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint16(k, 7), uint64(i))
	}
	const n = 200_000
	txn.StatementBegin()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	for i := 0; i < n; i++ {
		txn.moved(key(i))
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	if per := (int64(m1.HeapAlloc) - int64(m0.HeapAlloc)) / n; per > 24 {
		t.Fatalf("%d bytes a moved key, want at most 24", per)
	}
	// A nested statement's moves, then the outer statement's again.
	txn.StatementBegin()
	txn.moved(key(n))
	if !txn.writtenByStatement(key(n)) || txn.writtenByStatement(key(0)) {
		t.Fatal("nested statement: its own move not found, or the outer one's found")
	}
	txn.StatementComplete()
	txn.moved(key(n + 1))
	for _, i := range []int{0, 1, n / 2, n - 1, n + 1} {
		if !txn.writtenByStatement(key(i)) {
			t.Fatalf("key %d: not found after the nested statement", i)
		}
	}
	if txn.writtenByStatement(key(n)) {
		t.Fatal("the nested statement's move outlived it")
	}
	ms := txn.movedSetOf(prefix, false)
	if got := fmt.Sprint(len(ms.keys), ms.pending.len()); got != fmt.Sprint(n+1, 0) {
		t.Fatalf("keys, pending: %s", got)
	}
	txn.StatementComplete()
}
