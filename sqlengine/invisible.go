package sqlengine

import (
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/sqlmode"
)

// checkInvisible refuses INVISIBLE indexes and columns (CREATE TABLE,
// CREATE INDEX, ALTER TABLE ... ADD INDEX / ALTER INDEX ... INVISIBLE /
// a column's INVISIBLE) with 1235: vitess's grammar accepts the word and
// drops it, so the statement succeeded and the index stayed visible to
// the optimizer, a setting reported as made and not honoured. VISIBLE,
// the default, is taken.
func checkInvisible(st ast.Statement, q string) error {
	switch x := st.(type) {
	case *ast.DDL:
		if x.Action != ast.CreateStr && x.Action != ast.AlterStr && x.Action != ast.IndexStr {
			return nil
		}
	case *ast.AlterTable:
	default:
		return nil
	}
	if !sqlmode.HasWord(q, "INVISIBLE", false) {
		return nil
	}
	return mysqlerr.New(mysqlerr.ErNotSupportedYet, "This version of MySQL doesn't yet support 'INVISIBLE indexes and columns' (Petrel's optimizer would still use them)")
}
