package storage

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"

	"github.com/cockroachdb/pebble/v2"
)

// CheckTable verifies a table as CHECK TABLE asks (issue 31): in one
// snapshot it decodes every row and recomputes each row's secondary
// index entries, then reads every index: each index must hold exactly the
// entries its rows call for (counted, and compared by an order-free sum
// of their hashes, so memory stays constant), each entry's value the
// primary-key suffix its key ends in. It returns the problems found
// (none: the table is sound) and how many rows it read.
func (e *Engine) CheckTable(ctx context.Context, tb *Table) (rows int64, problems []string, err error) {
	snap := e.db.NewSnapshot()
	defer snap.Close()
	type tally struct {
		n   int64
		sum uint64
	}
	want := make([]tally, len(tb.Indexes))
	hash := func(k []byte) uint64 {
		h := fnv.New64a()
		h.Write(k)
		return h.Sum64()
	}
	scan := func(prefix []byte, fn func(k, v []byte) error) error {
		it, err := snap.NewIterWithContext(ctx, &pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
		if err != nil {
			return err
		}
		defer it.Close()
		for valid := it.First(); valid; valid = it.Next() {
			if rows&4095 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if err := fn(it.Key(), it.Value()); err != nil {
				return err
			}
		}
		return it.Error()
	}
	const maxProblems = 20
	note := func(format string, args ...any) {
		if len(problems) < maxProblems {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	err = scan(indexPrefix(nil, tb.Def.ID, 0), func(k, v []byte) error {
		rows++
		row, derr := decodeRow(v, tb.Schema)
		if derr != nil {
			note("row %x does not decode: %v", k[indexPrefixLen:], derr)
			return nil
		}
		for i, ix := range tb.Indexes {
			ik, _, _, kerr := tb.indexKey(ix, row, k[indexPrefixLen:])
			if kerr != nil {
				note("row %x: index %s key: %v", k[indexPrefixLen:], ix.Def.Name, kerr)
				continue
			}
			want[i].n++
			want[i].sum += hash(ik)
		}
		return nil
	})
	if err != nil {
		return rows, problems, err
	}
	for i, ix := range tb.Indexes {
		var got tally
		err := scan(indexPrefix(nil, tb.Def.ID, ix.Def.ID), func(k, v []byte) error {
			got.n++
			got.sum += hash(k)
			if !bytes.HasSuffix(k, v) {
				note("index %s: entry %x does not end in the row key it names", ix.Def.Name, k)
			}
			return nil
		})
		if err != nil {
			return rows, problems, err
		}
		switch {
		case got.n != want[i].n:
			note("index %s has %d entries for %d rows", ix.Def.Name, got.n, want[i].n)
		case got.sum != want[i].sum:
			note("index %s: its entries differ from the ones its rows call for", ix.Def.Name)
		}
	}
	return rows, problems, nil
}
