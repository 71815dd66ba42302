package sqlengine

import (
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
)

// unpreparable is MySQL 8's 1295 ER_UNSUPPORTED_PS for a PREPARE of a
// statement its prepared-statement protocol does not take: CREATE
// PROCEDURE, FUNCTION, TRIGGER or EVENT and ALTER PROCEDURE, FUNCTION or
// EVENT (none is in MySQL's list of preparable statements). GMS
// prepared them and failed their EXECUTE reading the body out of the
// text "EXECUTE s" (1105 on a recovered panic, "interface conversion" or
// "slice bounds out of range": mtr's sp-dynamic), or refused some with
// 1064. MariaDB prepares them (its extension).
func unpreparable(ctx context.Context, st ast.Statement) error {
	p, ok := st.(*ast.Prepare)
	if !ok {
		return nil
	}
	text := p.Expr
	if strings.HasPrefix(text, "@") {
		c, ok := ctx.(*sql.Context)
		if !ok || c == nil || c.Session == nil {
			return nil
		}
		_, v, err := c.GetUserVariable(c, strings.TrimPrefix(text, "@"))
		if s, isStr := v.(string); err == nil && isStr {
			text = s
		}
	}
	if routineDDL(text) {
		return mysqlerr.New(mysqlerr.ErUnsupportedPS, "This command is not supported in the prepared statement protocol yet")
	}
	return nil
}

// routineDDL reports whether statement text q is a CREATE of a
// procedure, function, trigger or event or an ALTER of a procedure,
// function or event, from its leading tokens: CREATE [OR REPLACE]
// [DEFINER = user] [AGGREGATE] kind, ALTER [DEFINER = user] kind.
func routineDDL(q string) bool {
	tkn := ast.NewStringTokenizer(q)
	first := 0
	for n := 0; n < 16; n++ {
		typ, val := tkn.Scan()
		switch {
		case typ == 0 || typ == ast.LEX_ERROR:
			return false
		case typ == ast.COMMENT:
			continue
		case first == 0:
			if typ != ast.CREATE && typ != ast.ALTER {
				return false
			}
			first = typ
			continue
		}
		switch strings.ToUpper(string(val)) {
		case "PROCEDURE", "FUNCTION", "EVENT":
			return true
		case "TRIGGER":
			return first == ast.CREATE
		case "TABLE", "VIEW", "INDEX", "UNIQUE", "DATABASE", "SCHEMA", "USER", "ROLE", "TABLESPACE", "SERVER", "TEMPORARY", "FULLTEXT", "SPATIAL", "ONLINE", "IGNORE", "INSTANCE", "LOGFILE", "RESOURCE", "SPATIAL_REFERENCE", "UNDO":
			return false
		}
	}
	return false
}
