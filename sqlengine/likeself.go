package sqlengine

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
)

// checkLikeSelf is MySQL's 1066 ER_NONUNIQ_TABLE for CREATE [TEMPORARY]
// TABLE t LIKE t: MySQL's parser puts the new table and the LIKE source
// in one table list, which refuses the same name twice in a database
// before anything is opened, so the answer is 1066 whether or not t
// exists (GMS made a temporary t1 shadowing the base t1: mtr's
// temp_table). Names compare as MySQL compares aliases, without case;
// a qualified name against an unqualified one is left to execution, the
// current database not being known at parse time.
func checkLikeSelf(st ast.Statement) error {
	d, ok := st.(*ast.DDL)
	if !ok || d.Action != ast.CreateStr || d.OptLike == nil || len(d.OptLike.LikeTables) != 1 {
		return nil
	}
	src, dst := d.OptLike.LikeTables[0], d.Table
	if !strings.EqualFold(src.Name.String(), dst.Name.String()) || src.DbQualifier.String() != dst.DbQualifier.String() {
		return nil
	}
	return mysqlerr.New(mysqlerr.ErNonUniqTable, "Not unique table/alias: '%s'", src.Name.String())
}
