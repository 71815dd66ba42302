package storage

import (
	"bytes"
	"context"
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage/keys"
)

// UpdateUnwritten replaces with new every row of tb, a table without a
// primary key, that holds old's content and whose key is not in done;
// it adds the key of each row it writes to done and returns how many it
// wrote.
//
// A multiple-table UPDATE writes a keyless table so. Its rows have no
// identity but their content (findKey), and rows of equal content match
// the join alike: MySQL updates each of them once, with the values of
// its first match, which are the same for all of them. Update, which
// writes the first row of old's content, would write one of them, or
// once the statement has made a row equal to a later row's old content,
// that row again; done, the statement's written keys, keeps both apart.
func (t *Txn) UpdateUnwritten(ctx context.Context, tb *Table, old, new sql.Row, done map[string]bool) (int, error) {
	if err := t.writable(); err != nil {
		return 0, err
	}
	want, found, err := t.unwrittenKeys(tb, old, done)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, k := range found {
		// Locked, then read again, as findKey: another transaction
		// may have changed the row while this one waited.
		if err := t.lock(ctx, k); err != nil {
			return n, err
		}
		v, ok, err := t.get(k)
		if err != nil {
			return n, err
		}
		if !ok || !bytes.Equal(v, want) {
			continue
		}
		if err := t.updateAt(ctx, tb, k, v, nil, new); err != nil {
			return n, err
		}
		done[string(k)] = true
		n++
	}
	return n, nil
}

// CountUnwritten is the number of rows of tb, a table without a primary
// key, that hold old's content and whose key is not in done: the rows
// UpdateUnwritten would write (read without locks).
func (t *Txn) CountUnwritten(tb *Table, old sql.Row, done map[string]bool) (int, error) {
	_, found, err := t.unwrittenKeys(tb, old, done)
	return len(found), err
}

// unwrittenKeys is old's content as stored and the keys of tb's rows
// (tb a table without a primary key) that hold it and are not in done.
func (t *Txn) unwrittenKeys(tb *Table, old sql.Row, done map[string]bool) ([]byte, [][]byte, error) {
	if !tb.Hidden {
		return nil, nil, fmt.Errorf("storage: table %s has a primary key", tb.Def.Name)
	}
	want, err := keys.EncodeRow(nil, tb.Schema, old)
	if err != nil {
		return nil, nil, err
	}
	p := indexPrefix(nil, tb.Def.ID, 0)
	it, err := t.newIter(p, prefixEnd(p))
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	var found [][]byte
	for it.First(); it.Valid(); it.Next() {
		if bytes.Equal(it.Value(), want) && !done[string(it.Key())] {
			found = append(found, append([]byte(nil), it.Key()...))
		}
	}
	return want, found, readErr(it.Error())
}
