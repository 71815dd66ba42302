package storage

import (
	"bytes"
	"context"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/dolthub/go-mysql-server/sql"
)

// TestAbbreviatedKeyMonotone: over sorted keys of every shape (metadata,
// data keys of small and large table ids, the short prefixes around
// them, random bytes), abbreviatedKey never decreases, as Pebble's batch
// index requires; and it tells apart the INT keys of one index, which
// Pebble's default abbreviation does not.
func TestAbbreviatedKeyMonotone(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 29))
	keys := [][]byte{{}, {spaceMeta}, {spaceData}, {spaceData, 0}, {spaceData, 0, 0}, {spaceData, 0, 1}, {spaceData, 1},
		{spaceData, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {spaceData + 1}, {0xff, 0xff}}
	for range 20000 {
		var k []byte
		switch rng.IntN(4) {
		case 0: // random bytes around the spaces
			k = make([]byte, rng.IntN(12))
			for i := range k {
				k[i] = byte(rng.IntN(4))
				if rng.IntN(4) == 0 {
					k[i] = byte(rng.IntN(256))
				}
			}
		case 1: // metadata
			k = binary.BigEndian.AppendUint32([]byte{spaceMeta, byte(rng.IntN(8))}, rng.Uint32N(100))
		default: // data keys of small and large table ids, INT keys
			tid := rng.Uint32N(200)
			if rng.IntN(5) == 0 {
				tid = rng.Uint32()
			}
			k = indexPrefix(nil, tid, uint8(rng.IntN(3)))
			k = append(k, 1)
			k = binary.BigEndian.AppendUint32(k, rng.Uint32N(1<<20)^1<<31)
			if rng.IntN(3) == 0 {
				k = k[:rng.IntN(len(k)+1)]
			}
		}
		keys = append(keys, k)
	}
	slices.SortFunc(keys, bytes.Compare)
	for i := 1; i < len(keys); i++ {
		if a, b := abbreviatedKey(keys[i-1]), abbreviatedKey(keys[i]); a > b {
			t.Fatalf("%x < %x but abbreviated %x > %x", keys[i-1], keys[i], a, b)
		}
	}
	k1 := binary.BigEndian.AppendUint32(append(indexPrefix(nil, 7, 0), 1), 1^1<<31)
	k2 := binary.BigEndian.AppendUint32(append(indexPrefix(nil, 7, 0), 1), 2^1<<31)
	if abbreviatedKey(k1) >= abbreviatedKey(k2) {
		t.Fatalf("INT keys 1 and 2 abbreviated %x, %x", abbreviatedKey(k1), abbreviatedKey(k2))
	}
}

// TestBatchOrderWithAbbreviatedKeys: a transaction's batch, indexed with
// abbreviatedKey, returns its rows in key order through a scan of its
// own writes and finds each by key, rows inserted in random order.
func TestBatchOrderWithAbbreviatedKeys(t *testing.T) {
	e := openTest(t, vfs.NewMem())
	defer e.Close()
	createKV(t, e)
	tb := e.Catalog().Table("db", "kv")
	ctx := context.Background()
	txn := e.Begin()
	defer txn.Rollback()
	rng := rand.New(rand.NewPCG(1, 2))
	ids := rng.Perm(3000)
	for _, id := range ids {
		if err := insertKV(ctx, txn, tb, int64(id)-1000, int64(id)); err != nil {
			t.Fatal(err)
		}
	}
	txn.SetLockingReads(true)
	want := int64(-1000)
	lockedScan(t, txn, tb, func(row sql.Row) {
		if row[0] != want || row[1] != want+1000 {
			t.Fatalf("row %v, want id %d", row, want)
		}
		want++
	})
	if want != 2000 {
		t.Fatalf("scan ended at %d", want)
	}
	if err := insertKV(ctx, txn, tb, 1234, 0); !isDup(err, 2234) {
		t.Fatalf("duplicate: %v", err)
	}
}
