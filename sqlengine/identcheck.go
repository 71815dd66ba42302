package sqlengine

import (
	"unicode/utf8"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/sqlengine/sqlerr"
)

// checkIdentifiers refuses, as MySQL does (1300), a name a DDL statement
// would create that is no valid UTF-8: a client whose text is not
// decoded (utf8mb4, utf8mb3, binary) passes its bytes through, and GMS
// created a table whose name no client could spell. Only DDL is walked:
// the names it stores are the ones that last.
func checkIdentifiers(st ast.Statement) error {
	var names []string
	switch x := st.(type) {
	case *ast.DDL:
		names = append(names, x.Table.Name.String(), x.Table.DbQualifier.String())
		for _, t := range x.ToTables {
			names = append(names, t.Name.String(), t.DbQualifier.String())
		}
		if x.TableSpec != nil {
			for _, c := range x.TableSpec.Columns {
				if c != nil {
					names = append(names, c.Name.String())
				}
			}
		}
	case *ast.AlterTable:
		for _, d := range x.Statements {
			if err := checkIdentifiers(d); err != nil {
				return err
			}
		}
	case *ast.DBDDL:
		names = append(names, x.DBName)
	}
	for _, n := range names {
		if err := checkIdentifier(n); err != nil {
			return err
		}
	}
	return nil
}

func checkIdentifier(name string) error {
	if utf8.ValidString(name) {
		return nil
	}
	return mysqlerr.New(mysqlerr.ErInvalidCharacterString, "Invalid utf8mb3 character string: '%s'", sqlerr.EscapeHex(name, 64))
}
