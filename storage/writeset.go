package storage

import "github.com/dolthub/go-mysql-server/sql"

// UniqueKeys calls fn with the key of each unique index entry (the primary
// key and every UNIQUE index) that row has: what MySQL's write-set
// extraction hashes for dependency tracking. The keys are storage keys
// (table and index ids, then the column values in the memcomparable
// encoding, which agrees with each column's collation), so two rows
// collide exactly when their unique keys are equal. A unique index with a
// NULL part has no entry (NULL conflicts with nothing). missing is true
// when the table has no primary key: its rows cannot be told apart by key,
// and MySQL falls back to commit order for the transaction. fn must not
// keep the key.
func (tb *Table) UniqueKeys(row sql.Row, fn func(key []byte)) (missing bool, err error) {
	if tb.Hidden {
		return true, nil
	}
	k, err := tb.PKKey(nil, row)
	if err != nil {
		return false, err
	}
	fn(k)
	for _, ix := range tb.Indexes {
		if !ix.Def.Unique {
			continue
		}
		k, _, hasNull, err := tb.indexKey(ix, row, nil)
		if err != nil {
			return false, err
		}
		if !hasNull {
			fn(k)
		}
	}
	return false, nil
}
