package sqlengine

import (
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
)

// emptyDBName is MySQL's 1102 for CREATE, ALTER or DROP DATABASE (or
// SCHEMA) naming the database by an empty quoted name. vitess gives
// such a statement the same DBName, "", as ALTER DATABASE with no name
// (the current database), so GMS created a database named "", dropped
// it, or altered the current database; with none current ALTER was 1046
// (mtr's ctype_create). The name is read with the SQL lexer from q, the
// statement's text: the token after DATABASE or SCHEMA and an IF [NOT]
// EXISTS.
func emptyDBName(st ast.Statement, q string) error {
	d, ok := st.(*ast.DBDDL)
	if !ok || d.DBName != "" {
		return nil
	}
	tkn := ast.NewStringTokenizer(q)
	seen := false
	for n := 0; n < 8; n++ {
		typ, val := tkn.Scan()
		switch {
		case typ == 0 || typ == ast.LEX_ERROR:
			return nil
		case typ == ast.COMMENT:
			continue
		case typ == ast.DATABASE || typ == ast.SCHEMA:
			seen = true
		case seen && (typ == ast.IF || typ == ast.NOT || typ == ast.EXISTS):
		case seen && typ == ast.ID && len(val) == 0:
			return mysqlerr.New(mysqlerr.ErWrongDBName, "Incorrect database name ''")
		case seen:
			return nil
		}
	}
	return nil
}
