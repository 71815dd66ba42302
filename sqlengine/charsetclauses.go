package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
)

// checkCharsetClauses refuses a CREATE TABLE's or CREATE/ALTER
// DATABASE's character set clauses as MySQL does: two different
// character sets are 1302 (GMS took the last), a collation of another
// character set 1253 (GMS: 1105).
func checkCharsetClauses(st ast.Statement) error {
	var opts [][2]string // kind ("CHARACTER SET" or "COLLATE"), value
	switch x := st.(type) {
	case *ast.DDL:
		if x.TableSpec == nil {
			return nil
		}
		for _, o := range x.TableSpec.TableOpts {
			if o != nil {
				opts = append(opts, [2]string{o.Name, o.Value})
			}
		}
	case *ast.DBDDL:
		for _, c := range x.CharsetCollate {
			if c != nil {
				opts = append(opts, [2]string{c.Type, c.Value})
			}
		}
	default:
		return nil
	}
	var cs sql.CharacterSetID
	var csName, collName string
	for _, o := range opts {
		kind := strings.ToUpper(strings.Join(strings.Fields(o[0]), " "))
		name := strings.Trim(o[1], "'\"`")
		switch kind {
		case "CHARACTER SET", "CHARSET":
			id, err := sql.ParseCharacterSet(name)
			if err != nil {
				return nil // GMS reports the unknown set
			}
			if csName != "" && id != cs {
				return mysqlerr.New(mysqlerr.ErConflictingDeclarations, "Conflicting declarations: 'CHARACTER SET %s' and 'CHARACTER SET %s'", cs.Name(), id.Name())
			}
			cs, csName = id, name
		case "COLLATE":
			collName = name
		}
	}
	if csName == "" || collName == "" {
		return nil
	}
	coll, err := sql.ParseCollation("", collName, false)
	if err != nil || coll.CharacterSet() == cs {
		return nil
	}
	return mysqlerr.New(mysqlerr.ErCollationCharsetMismatch, "COLLATION '%s' is not valid for CHARACTER SET '%s'", coll.Name(), cs.Name())
}
