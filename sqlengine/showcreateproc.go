package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/plan"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/sqlengine/storedfn"
	"petrel/storage"
)

// A procedure as MySQL shows it. SHOW CREATE PROCEDURE gives the
// routine's sql_mode (GMS: "") and its CREATE statement as MySQL
// writes it: CREATE DEFINER=`user`@`host` PROCEDURE `name`(params),
// a line, the characteristics other than the defaults, each on a line of
// its own, then the body (mtr's truncate). A procedure created without
// DEFINER is stored with its creator's account (withDefiner), as MySQL
// records the definer. information_schema.ROUTINES' SQL_MODE is each
// routine's own (GMS gave the session's, and a session sql_mode with a
// flag its SET type lacks, NO_AUTO_CREATE_USER, failed the whole table
// with 1105).

// routinesSQLModeCol is SQL_MODE's ordinal in GMS's ROUTINES rows
// (routine_schema 2, routine_name 3, routine_type 4).
const routinesSQLModeCol = 25

// routinesRows reads information_schema.ROUTINES with each routine's
// sql_mode; ok=false for other nodes. (GMS's table keeps its row source
// in an unexported field: the rows are fixed where the table is read.)
func (e *Engine) routinesRows(ctx *sql.Context, n sql.Node, row sql.Row) (sql.RowIter, bool, error) {
	rt, ok := n.(*plan.ResolvedTable)
	if !ok || !strings.EqualFold(rt.Name(), information_schema.RoutinesTableName) || rt.Database() == nil ||
		!strings.EqualFold(rt.Database().Name(), sql.InformationSchemaDatabaseName) {
		return nil, false, nil
	}
	it, err := gmsRows(ctx, n, row, func(r sql.Row) error {
		if len(r) <= routinesSQLModeCol {
			return nil
		}
		db, _ := r[2].(string)
		name, _ := r[3].(string)
		kind, _ := r[4].(string)
		if strings.EqualFold(kind, "FUNCTION") {
			name = storedfn.HiddenName(name)
		}
		r[routinesSQLModeCol] = ""
		if p := e.procedureDef(db, name); p != nil {
			r[routinesSQLModeCol] = orderedModes(p.SqlMode, true)
		}
		return nil
	})
	return it, true, err
}

// procedureDef is the catalog record of procedure name of database db.
func (e *Engine) procedureDef(db, name string) *storage.ProcedureDef {
	d := e.store.Catalog().Database(db)
	if d == nil {
		return nil
	}
	for i, p := range d.Def().Procedures {
		if strings.EqualFold(p.Name, name) {
			return &d.Def().Procedures[i]
		}
	}
	return nil
}

// modeOrder lists sql_mode's flags in the order of their bits, the
// order MySQL prints a mode in; NO_AUTO_CREATE_USER (MySQL 5.7's, which
// Petrel accepts as MariaDB does) has the bit 8.0 left unused.
var modeOrder = []string{
	"REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "ONLY_FULL_GROUP_BY",
	"NO_UNSIGNED_SUBTRACTION", "NO_DIR_IN_CREATE", "ANSI", "NO_AUTO_VALUE_ON_ZERO", "NO_BACKSLASH_ESCAPES",
	"STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "NO_ZERO_IN_DATE", "NO_ZERO_DATE", "ALLOW_INVALID_DATES",
	"ERROR_FOR_DIVISION_BY_ZERO", "TRADITIONAL", "NO_AUTO_CREATE_USER", "HIGH_NOT_PRECEDENCE",
	"NO_ENGINE_SUBSTITUTION", "PAD_CHAR_TO_FULL_LENGTH", "TIME_TRUNCATE_FRACTIONAL",
}

// orderedModes is mode's flags in MySQL's order; without
// NO_AUTO_CREATE_USER when mysql8 (information_schema's SQL_MODE
// columns hold MySQL 8's flags only).
func orderedModes(mode string, mysql8 bool) string {
	set := map[string]bool{}
	for _, f := range strings.Split(mode, ",") {
		set[strings.ToUpper(strings.TrimSpace(f))] = true
	}
	var out []string
	for _, f := range modeOrder {
		if set[f] && !(mysql8 && f == "NO_AUTO_CREATE_USER") {
			out = append(out, f)
		}
	}
	return strings.Join(out, ",")
}

// showCreateProcedure is SHOW CREATE PROCEDURE with the routine's
// sql_mode and MySQL's text; ok=false for other nodes.
func (e *Engine) showCreateProcedure(ctx *sql.Context, n sql.Node, row sql.Row) (sql.RowIter, bool, error) {
	sc, ok := n.(*plan.ShowCreateProcedure)
	if !ok || sc.ExternalStoredProcedure != nil || sc.Database() == nil {
		return nil, false, nil
	}
	p := e.procedureDef(sc.Database().Name(), sc.ProcedureName)
	if p == nil || storedfn.IsHidden(p.Name) {
		return nil, false, nil
	}
	it, err := gmsRows(ctx, n, row, func(r sql.Row) error {
		if len(r) > 2 {
			r[1] = orderedModes(p.SqlMode, false)
			if text, ok := procedureText(p.CreateStmt); ok {
				r[2] = text
			}
		}
		return nil
	})
	if err != nil {
		return nil, true, err
	}
	if coll := e.collationOf(ctx, sc.Database().Name()); coll != "" {
		it, err = fixedRows(ctx, it, func(r sql.Row) error {
			if len(r) > 5 {
				r[5] = coll // dbcollation.go's column
			}
			return nil
		})
	}
	return it, true, err
}

// procedureText is CREATE PROCEDURE statement q as MySQL shows it.
func procedureText(q string) (string, bool) {
	st, err := ast.Parse(q)
	if err != nil {
		return "", false // a text only Petrel's rewrites parse: GMS's answer
	}
	d, ok := st.(*ast.DDL)
	if !ok || d.ProcedureSpec == nil || d.SubStatementPositionStart <= 0 || d.SubStatementPositionEnd > len(q) {
		return "", false
	}
	spec := d.ProcedureSpec
	open := strings.Index(q, "(")
	if open < 0 || open > d.SubStatementPositionStart {
		return "", false
	}
	tkn := ast.NewStringTokenizer(q[open:])
	depth, closeAt := 0, -1
	for closeAt < 0 {
		typ, _ := tkn.Scan()
		switch typ {
		case 0, ast.LEX_ERROR:
			return "", false
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				closeAt = min(open+tkn.Position, len(q)-1)
				for closeAt > open && q[closeAt] != ')' {
					closeAt--
				}
			}
		}
	}
	var b strings.Builder
	b.WriteString("CREATE DEFINER=")
	b.WriteString(quotedDefiner(spec.Definer))
	b.WriteString(" PROCEDURE `")
	b.WriteString(strings.ReplaceAll(spec.ProcName.Name.String(), "`", "``"))
	b.WriteString("`")
	b.WriteString(q[open : closeAt+1])
	b.WriteString("\n")
	for _, c := range spec.Characteristics {
		switch c.Type {
		case ast.CharacteristicValue_NoSql:
			b.WriteString("    NO SQL\n")
		case ast.CharacteristicValue_ReadsSqlData:
			b.WriteString("    READS SQL DATA\n")
		case ast.CharacteristicValue_ModifiesSqlData:
			b.WriteString("    MODIFIES SQL DATA\n")
		}
	}
	for _, c := range spec.Characteristics {
		if c.Type == ast.CharacteristicValue_Deterministic {
			b.WriteString("    DETERMINISTIC\n")
		}
	}
	for _, c := range spec.Characteristics {
		if c.Type == ast.CharacteristicValue_SqlSecurityInvoker {
			b.WriteString("    SQL SECURITY INVOKER\n")
		}
	}
	for _, c := range spec.Characteristics {
		if c.Type == ast.CharacteristicValue_Comment {
			b.WriteString("    COMMENT " + storedfn.QuoteString(c.Comment) + "\n")
		}
	}
	b.WriteString(strings.TrimSpace(q[d.SubStatementPositionStart:d.SubStatementPositionEnd]))
	return b.String(), true
}

// quotedDefiner is a DEFINER clause's user@host with each part in
// backquotes, as MySQL shows it.
func quotedDefiner(def string) string {
	user, host, _ := strings.Cut(def, "@")
	unq := func(s string) string {
		s = strings.TrimSpace(s)
		if len(s) >= 2 && (s[0] == '`' || s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
			s = s[1 : len(s)-1]
		}
		return "`" + strings.ReplaceAll(s, "`", "``") + "`"
	}
	if host == "" {
		host = "%"
	}
	return unq(user) + "@" + unq(host)
}

// withDefiner is CREATE PROCEDURE statement q with a DEFINER clause
// naming the account of ctx's session when q has none, as MySQL records
// the creator; q when it has one or the account is not known.
func withDefiner(ctx *sql.Context, q string) string {
	st, err := ast.Parse(q)
	if err != nil {
		return q
	}
	d, ok := st.(*ast.DDL)
	if !ok || d.ProcedureSpec == nil || d.ProcedureSpec.Definer != "" {
		return q
	}
	s := ctxSession(ctx)
	if s == nil || s.eng == nil {
		return q
	}
	udb := s.eng.gms.Analyzer.Catalog.MySQLDb
	if !udb.Enabled() {
		return q
	}
	client := ctx.Session.Client()
	rd := udb.Reader()
	u := udb.GetUser(rd, client.User, client.Address, false)
	rd.Close()
	if u == nil {
		return q
	}
	tkn := ast.NewStringTokenizer(q)
	for {
		typ, _ := tkn.Scan()
		switch typ {
		case ast.COMMENT:
			continue
		case ast.CREATE:
			at := tkn.Position - 1
			return q[:at] + " DEFINER=" + quotedDefiner(u.User+"@"+u.Host) + q[at:]
		}
		return q
	}
}
