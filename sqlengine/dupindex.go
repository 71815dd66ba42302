package sqlengine

import (
	"regexp"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage"
)

// Warning 1831 (ER_DUP_INDEX), "Duplicate index 'x' defined on the table
// 'db.t'", is MySQL's note that a new index has the key parts of another.
// GMS v0.20.0 compares the two indexes' columns in a loop whose
// `continue` only skips to the next column, so it warns for any two
// secondary indexes with as many columns: CREATE TABLE t (a INT, UNIQUE
// (a), b INT, KEY (b)) warned that b duplicates a (mtr's bulk_replace,
// join_crash, type_num_innodb). The session drops such a warning unless
// the table's definition has another secondary index on the same
// columns with the same prefix lengths and of the same kind (UNIQUE or
// not), which is when MySQL warns (sql_table.cc's check_duplicate_key).

var dupIndexWarning = regexp.MustCompile(`^Duplicate index '(.*)' defined on the table '([^.']*)\.([^']*)'\.`)

// falseDuplicateIndex reports whether w is GMS's 1831 for an index that
// duplicates no other index of its table.
func (s *Session) falseDuplicateIndex(w *sql.Warning) bool {
	if w.Code != 1831 || s.eng == nil || s.eng.store == nil {
		return false
	}
	m := dupIndexWarning.FindStringSubmatch(w.Message)
	if m == nil {
		return false
	}
	t := s.eng.store.Catalog().Table(m[2], m[3])
	if t == nil {
		return false
	}
	defs := t.Def.Indexes
	i := slices.IndexFunc(defs, func(d storage.IndexDef) bool { return strings.EqualFold(d.Name, m[1]) })
	if i < 0 {
		return false
	}
	for j, d := range defs {
		if j != i && sameKeyParts(d, defs[i]) {
			return false
		}
	}
	return true
}

// sameKeyParts reports whether two indexes of one kind have the same
// key parts: columns in the same order, with the same prefix lengths.
func sameKeyParts(a, b storage.IndexDef) bool {
	if len(a.Columns) != len(b.Columns) || a.Unique != b.Unique {
		return false
	}
	for k := range a.Columns {
		if !strings.EqualFold(a.Columns[k], b.Columns[k]) || prefixOf(a, k) != prefixOf(b, k) {
			return false
		}
	}
	return true
}

func prefixOf(d storage.IndexDef, k int) uint16 {
	if k < len(d.Prefix) {
		return d.Prefix[k]
	}
	return 0
}
