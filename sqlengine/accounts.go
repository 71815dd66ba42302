package sqlengine

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/information_schema"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/failpoint"
	"petrel/internal/mysqlerr"
	"petrel/sqlengine/charset"
	"petrel/sqlengine/collate"
	"petrel/sqlengine/explain"
	"petrel/sqlengine/iters"
	"petrel/sqlengine/rewrite"
	"petrel/sqlengine/sqlerr"
	"petrel/sqlengine/storeval"
)

// Account statements (CREATE/ALTER/DROP/RENAME USER, GRANT, REVOKE, roles,
// SET PASSWORD) are replicated as MySQL replicates them: each is one
// statement event in a GTID transaction of its own, with passwords as the
// hash the server stores, never as clear text.
//
// GMS changes its in-memory account tables (MySQLDb) under its editor lock
// and then calls the persister with the whole serialised blob. Petrel
// runs every account statement through accountBuilder, which:
//
//  1. refuses it on a read-only server before anything changes;
//  2. commits the session's open transaction (MySQL's implicit commit);
//  3. runs the statement under acctMu, so account statements are applied,
//     logged and stored one at a time, in one order;
//  4. takes the blob the persister was handed (it stores nothing itself
//     during an account statement) and commits it in one storage
//     transaction with the logged statement: the binlog event and the
//     stored accounts are one commit, made durable in its turn like DDL;
//  5. on any failure reloads the in-memory tables from storage, so a failed
//     statement leaves no trace in memory, storage or the binlog.
//
// The commit runs after GMS released its editor lock: a commit waiting for
// an fsync or a semi-sync acknowledgement never blocks logins and
// privilege checks (which take that lock). The cost is that a change is
// visible to logins a moment before it is durable; a statement whose
// commit fails is undone in memory before it returns its error.

// acctChange is an account statement in progress on a session.
type acctChange struct {
	// blob is the serialised account tables the statement produced.
	blob []byte
	// stmt is the statement as written, for those logged so.
	stmt string
}

// execOverrides is Petrel's GMS exec-builder override: account statements
// (accountBuilder), CREATE DATABASE's default collation (defaultCreateDB),
// UPDATE's byte-exact "changed" test (exactupdate.go), a SET statement's
// OK (setStatement) and GROUP BY's
// grouping (iters/groupiter.go); every other
// node returns (nil, nil) and GMS builds it.
type execOverrides struct{ e *Engine }

func (o execOverrides) Build(ctx *sql.Context, n sql.Node, row sql.Row) (sql.RowIter, error) {
	if alterTableNode(n) {
		// ALTER TABLE ... COMMENT = '...' (altercomment.go).
		if err := o.e.applyAlterComment(ctx); err != nil {
			return nil, err
		}
	}
	if p := profiled(ctx); p != nil {
		// EXPLAIN ANALYZE (explain/analyze.go): n measured, built
		// below when the builder comes back for it.
		if it, ok, err := p.Measure(n, func() (sql.RowIter, error) { return o.e.exec.Build(ctx, n, row) }); ok {
			return it, err
		}
	}
	if it, ok, err := o.e.showCreateProcedure(ctx, n, row); ok { // showcreateproc.go
		return it, err
	}
	if it, ok, err := o.e.routinesRows(ctx, n, row); ok { // showcreateproc.go
		return it, err
	}
	if it, ok, err := o.e.showWithDatabaseCollation(ctx, n, row); ok { // dbcollation.go
		return it, err
	}
	switch n := n.(type) {
	case *plan.Call:
		done, err := enterRoutine(ctx, n) // routines.go
		if err != nil {
			return nil, err
		}
		defer done()
		defer shareTransaction(ctx)() // routines.go
		normalizeRoutine(ctx, n)      // routineast.go
		noteCall(ctx, n)              // callresults.go
		return callInItsDatabase(ctx, n, row)
	case *plan.Signal:
		return execSignal(ctx, n) // routinecond.go
	case *plan.DescribeQuery:
		var it sql.RowIter
		var err error
		if n.Format.Analyze {
			it, err = o.e.explainAnalyze(ctx, n, row)
		} else {
			it, err = explain.Plan(ctx, n)
		}
		return charset.ClientRows(ctx, it, err)
	case *plan.Set:
		if len(row) == 0 {
			return setStatement(ctx, n)
		}
	case *plan.ShowVariables:
		if n.Global {
			return showGlobalVariables(ctx, n) // serverscope.go
		}
	case *plan.ShowStatus:
		return sql.RowsToRowIter(engineStatusRows(ctx, *n == *plan.NewShowStatus(true))...), nil // serverscope.go
	case *plan.StartTransaction:
		if n.TransChar == sql.ReadWrite && readWriteStart.MatchString(ctx.Query()) {
			// An explicit READ WRITE transaction under read_only is
			// MySQL's 1290 for an account without SUPER (readonly.go).
			if err := o.e.checkWritable(ctx); err != nil {
				return nil, err
			}
		}
	case *plan.CreateDB:
		return nil, defaultCreateDB(ctx, n)
	case *plan.DropDB:
		return nil, checkDBName(n.DbName) // charset.go
	case *plan.CreateView:
		preparedViewText(n) // viewtext.go; GMS builds it
	case *plan.Window:
		if it, err := o.e.buildWindow(ctx, n, row); it != nil || err != nil { // windowempty.go
			return it, err
		}
	case *windowInput:
		return o.e.buildWindowInput(ctx, n, row)
	case *plan.AlterIndex:
		if it, ok := disableKeys(ctx, n); ok { // disablekeys.go
			return it, nil
		}
	case *plan.TableCopier:
		if it, ok, err := o.e.buildCopierByName(ctx, n, row); ok { // ctascolumns.go
			return it, err
		}
	case *triggerRow:
		return sql.RowsToRowIter(n.row), nil // triggerdup.go
	case *plan.TriggerExecutor:
		if it, ok, err := o.e.buildAfterInsert(ctx, n, row); ok { // triggerdup.go
			return it, err
		}
		if it, ok, err := o.e.buildBeforeTrigger(ctx, n, row); ok { // triggerbefore.go
			return it, err
		}
	case *plan.AlterDB:
		if n.Database(ctx) == "" {
			// ALTER DATABASE without a name and no current database
			// (GMS: 1049 Unknown database '').
			return nil, mysqlerr.New(mysqlerr.ErNoDB, "No database selected")
		}
		if err := checkDBName(n.Database(ctx)); err != nil {
			return nil, err // a name too long is 1102 before it is looked for
		}
		return nil, implementedCollation(n.Collation)
	case *plan.Update:
		if err := o.e.refuseReadOnlyTargets(ctx, n); err != nil { // readonlytargets.go
			return nil, err
		}
		lockingWrite(ctx)
		return o.e.buildExactUpdate(ctx, n, row)
	case *plan.DeleteFrom:
		if err := o.e.refuseReadOnlyTargets(ctx, n); err != nil {
			return nil, err
		}
		lockingWrite(ctx)
		if it, ok, err := o.e.buildMultiDelete(ctx, n, row); ok { // deletemulti.go
			return it, err
		}
	case *readJoinFirst:
		return o.e.buildReadJoinFirst(ctx, n, row)
	case *plan.DropTable:
		closeHandlersOf(ctx, n) // tablehandler.go
	case *plan.Truncate:
		closeHandlersOf(ctx, n)                          // tablehandler.go
		if err := o.e.truncateNotView(ctx); err != nil { // deleterows.go
			return nil, err
		}
	case *plan.InsertInto:
		if err := o.e.refuseReadOnlyTargets(ctx, n); err != nil { // readonlytargets.go
			return nil, err
		}
		n, err := o.e.withDupTriggers(ctx, n, nil) // triggerdup.go
		if err != nil {
			return nil, err
		}
		return storeval.BuildInsert(ctx, o.e.exec, isPetrelTable, n, row)
	case *storeval.Source:
		return storeval.BuildSource(ctx, o.e.exec, n, row)
	case *plan.LoadData:
		if it, ok, err := o.e.buildLoadData(ctx, n); ok { // loaddata.go
			return it, err
		}
	case *plan.GroupBy:
		inOrder := groupsInOrder(n)
		if it, err := iters.GroupBy(ctx, o.e.exec, n, row, inOrder); it != nil || err != nil {
			if it != nil {
				o.e.groupItersBuilt.Add(1)
				if inOrder {
					o.e.groupItersInOrder.Add(1)
				}
			}
			return it, err
		}
	case *plan.HashLookup:
		if it, err := iters.HashLookup(ctx, o.e.exec, n, row); it != nil || err != nil {
			return it, err
		}
	case *plan.JoinNode:
		if it, ok, err := iters.CrossJoin(ctx, o.e.exec, n, row); ok { // iters/crossjoin.go
			return it, err
		}
	case *plan.SetOp:
		if it, ok, err := o.e.buildCollSetOp(ctx, n, row); ok { // collsetop.go
			return it, err
		}
	case *collSetOp:
		return o.e.buildCollSetOpIter(ctx, n, row)
	case *plan.Distinct:
		return o.e.buildCollDistinct(ctx, n.Child, row)
	case *plan.OrderedDistinct:
		return o.e.buildCollDistinct(ctx, n.Child, row)
	case *exactTarget:
		return o.e.exec.Build(ctx, n.child, row)
	case *rewrite.Materialized:
		return rewrite.BuildMaterialized(ctx, o.e.exec, n, row)
	case *plan.AnalyzeTable:
		return o.e.analyzeTables(ctx, n)
	case *plan.ShowIndexes:
		return o.e.showIndexes(ctx, n, row)
	case *plan.CreateTable:
		return nil, o.e.noteTableOptions(ctx, n)
	case *plan.ShowCreateTable:
		return o.e.showCreateTable(ctx, n, row)
	case *plan.ShowColumns:
		return o.e.showColumns(ctx, n, row)
	case *plan.ResolvedTable:
		if ct, ok := unwrapTable(n.Table).(*information_schema.ColumnsTable); ok {
			o.e.timeColumns(ct) // and GMS builds the scan
		}
	case *plan.ShowTableStatus:
		return o.e.showTableStatus(ctx, n, row)
	}
	return accountBuilder(o).Build(ctx, n, row)
}

// buildCollDistinct builds a DISTINCT whose rows have strings needing
// collation keys (collate.NewDistinct); (nil, nil) lets GMS build the
// others.
func (e *Engine) buildCollDistinct(ctx *sql.Context, child sql.Node, row sql.Row) (sql.RowIter, error) {
	sch := child.Schema()
	if !collate.NeedsDistinctKeys(sch) {
		return nil, nil
	}
	it, err := e.exec.Build(ctx, child, row)
	if err != nil {
		return nil, err
	}
	return collate.NewDistinct(it, sch), nil
}

// accountBuilder is the GMS exec-builder override that intercepts account
// statements; every other node returns (nil, nil) and GMS builds it.
type accountBuilder struct{ e *Engine }

var _ sql.NodeExecBuilder = accountBuilder{}

func (b accountBuilder) Build(ctx *sql.Context, n sql.Node, row sql.Row) (sql.RowIter, error) {
	switch n.(type) {
	case *plan.CreateUser, *plan.AlterUser, *plan.DropUser, *plan.RenameUser,
		*plan.CreateRole, *plan.DropRole, *plan.Grant, *plan.Revoke, *plan.RevokeAll,
		*plan.GrantRole, *plan.RevokeRole, *plan.FlushPrivileges:
		return b.e.execAccount(ctx, n, row)
	}
	return nil, nil
}

// execAccount runs one account statement (see the comment at the top).
func (e *Engine) execAccount(ctx *sql.Context, n sql.Node, row sql.Row) (sql.RowIter, error) {
	s, ok := ctx.Session.(*Session)
	if !ok {
		return nil, nil
	}
	if _, flush := n.(*plan.FlushPrivileges); !flush {
		if err := e.checkWritable(ctx); err != nil {
			return nil, err
		}
		if err := s.implicitCommit(ctx); err != nil {
			return nil, err
		}
	}
	verbatim, err := verbatimStatement(ctx, n)
	if err != nil {
		return nil, err
	}
	e.acctMu.Lock()
	defer e.acctMu.Unlock()
	e.defaultPlugins(ctx, n)
	// Computed before the statement runs: CREATE USER IF NOT EXISTS must
	// see which accounts existed.
	ssl := e.sslAfter(n)
	s.acct = &acctChange{stmt: verbatim}
	defer func() { s.acct = nil }()

	var iter sql.RowIter
	switch n := n.(type) {
	case *plan.RenameUser:
		iter, err = e.renameUsers(ctx, n)
	case *plan.RevokeAll:
		iter, err = e.revokeAll(ctx, n)
	default:
		iter, err = rowexec.DefaultBuilder.Build(ctx, n, row)
	}
	if err == nil && s.acct.blob != nil {
		err = failpoint.Inject("sqlengine.beforeAccountCommit")
	}
	if err == nil && s.acct.blob != nil {
		err = e.commitAccounts(ctx, s, n, ssl)
	}
	if err != nil {
		// GMS may have changed memory before failing (CREATE USER a, b
		// with b existing adds a), and a failed commit stored nothing.
		if rerr := e.reloadAccounts(); rerr != nil {
			e.log.Error("sqlengine: reloading accounts after a failed statement", "err", rerr)
		}
		return nil, err
	}
	if ssl != nil {
		e.requireSSL.Store(&ssl)
	}
	if _, flush := n.(*plan.FlushPrivileges); flush {
		e.sha2.Flush()
	}
	return iter, nil
}

// commitAccounts stores the statement's account tables and logs the
// statement, in one transaction.
func (e *Engine) commitAccounts(ctx *sql.Context, s *Session, n sql.Node, ssl sslSet) error {
	stmt, err := e.accountStatement(n, s.acct.stmt)
	if err != nil {
		return err
	}
	if stmt == "" {
		// Nothing another server needs (FLUSH PRIVILEGES, ALTER USER
		// without a new password): stored, not logged.
		return e.store.SetMetaSync(usersMetaKey, s.acct.blob)
	}
	tx := e.store.Begin()
	if s.origin != nil {
		tx.SetOrigin(*s.origin)
	}
	if err := tx.PutMeta(usersMetaKey, s.acct.blob); err != nil {
		tx.Rollback()
		return sqlerr.ToMySQL(err)
	}
	if ssl != nil {
		if err := tx.PutMeta(sslMetaKey, ssl.encode()); err != nil {
			tx.Rollback()
			return sqlerr.ToMySQL(err)
		}
	}
	tx.LogQuery(ctx.GetCurrentDatabase(), stmt)
	if err := tx.Commit(ctx); err != nil {
		return sqlerr.ToMySQL(err)
	}
	return nil
}

// reloadAccounts replaces the in-memory account tables with the stored
// ones.
func (e *Engine) reloadAccounts() error {
	blob, err := e.store.GetMeta(usersMetaKey)
	if err != nil || blob == nil {
		return err
	}
	udb := e.gms.Analyzer.Catalog.MySQLDb
	ed := udb.Editor()
	defer ed.Close()
	return udb.OverwriteUsersAndGrantData(sql.NewEmptyContext(), ed, blob)
}

// implicitCommit commits the session's open transaction and leaves
// explicit-transaction mode, as MySQL does before an account statement.
func (s *Session) implicitCommit(ctx *sql.Context) error {
	t, ok := s.GetTransaction().(*Transaction)
	if !ok || t == nil {
		return nil
	}
	var err error
	if t.abort != nil {
		err = t.txn.Rollback()
	} else {
		err = t.txn.Commit(ctx)
	}
	s.SetTransaction(nil)
	s.SetIgnoreAutoCommit(false)
	if t.abort != nil {
		return nil
	}
	return sqlerr.ToMySQL(err)
}

// accountStatement is the text logged for an account statement: CREATE
// USER and ALTER USER are rewritten with the stored hash (IDENTIFIED WITH
// 'plugin' AS 'hash', which MySQL and MariaDB replicas both accept);
// statements without passwords are logged as written (verbatim). ""
// means nothing to log.
func (e *Engine) accountStatement(n sql.Node, verbatim string) (string, error) {
	switch n := n.(type) {
	case *plan.FlushPrivileges:
		return "", nil
	case *plan.CreateUser:
		var b strings.Builder
		b.WriteString("CREATE USER ")
		if n.IfNotExists {
			b.WriteString("IF NOT EXISTS ")
		}
		for i, u := range n.Users {
			if i > 0 {
				b.WriteString(", ")
			}
			auth, err := e.storedAuth(u.UserName)
			if err != nil {
				return "", err
			}
			b.WriteString(auth)
		}
		if o := n.TLSOptions; o != nil && (o.SSL || o.X509 || o.Cipher != "" || o.Issuer != "" || o.Subject != "") {
			b.WriteString(" REQUIRE SSL")
		}
		return b.String(), nil
	case *plan.AlterUser:
		if n.User.Auth1 == nil {
			return "", nil
		}
		auth, err := e.storedAuth(n.User.UserName)
		if err != nil {
			return "", err
		}
		if n.IfExists {
			return "ALTER USER IF EXISTS " + auth, nil
		}
		return "ALTER USER " + auth, nil
	}
	return verbatim, nil
}

// verbatimKeyword is the first word of the statements logged as written.
func verbatimKeyword(n sql.Node) string {
	switch n.(type) {
	case *plan.DropUser, *plan.DropRole:
		return "DROP"
	case *plan.RenameUser:
		return "RENAME"
	case *plan.Grant, *plan.GrantRole:
		return "GRANT"
	case *plan.Revoke, *plan.RevokeAll, *plan.RevokeRole:
		return "REVOKE"
	case *plan.CreateRole:
		return "CREATE"
	}
	return ""
}

// verbatimStatement is the statement being run as written, for those
// logged so. The text comes from the session (the current statement of a
// multi-statement query); a statement run through PREPARE/EXECUTE, whose
// text is not the statement's, is refused as MySQL refuses statements the
// prepared protocol does not support, before it changes anything.
func verbatimStatement(ctx *sql.Context, n sql.Node) (string, error) {
	kw := verbatimKeyword(n)
	if kw == "" {
		return "", nil
	}
	stmt, _ := splitFirst(ctx.Query())
	stmt = strings.TrimRight(strings.TrimSpace(stmt), "; \t\r\n")
	body := stmt
	for strings.HasPrefix(body, "/*") {
		end := strings.Index(body, "*/")
		if end < 0 {
			break
		}
		body = strings.TrimSpace(body[end+2:])
	}
	if f := strings.Fields(body); len(f) == 0 || !strings.EqualFold(f[0], kw) {
		return "", mysqlerr.New(mysqlerr.ErUnsupportedPS, "This command is not supported in the prepared statement protocol yet")
	}
	return stmt, nil
}

// storedAuth is "'user'@'host' IDENTIFIED WITH 'plugin' AS 'auth'" for an
// account as stored now.
func (e *Engine) storedAuth(un plan.UserName) (string, error) {
	pk := userKey(un)
	udb := e.gms.Analyzer.Catalog.MySQLDb
	rd := udb.Reader()
	u, ok := rd.GetUser(pk)
	rd.Close()
	if !ok {
		return "", fmt.Errorf("sqlengine: account %s vanished while it was being logged", accountName(pk.User, pk.Host))
	}
	plugin := u.Plugin
	if plugin == "" {
		plugin = string(mysql_db.DefaultAuthMethod)
	}
	return fmt.Sprintf("%s IDENTIFIED WITH %s AS %s", accountName(u.User, u.Host), quoteString(plugin), quoteString(u.AuthString)), nil
}

// userKey is the account's key as GMS stores it (an empty host is '%').
func userKey(un plan.UserName) mysql_db.UserPrimaryKey {
	host := un.Host
	if un.AnyHost || host == "" {
		host = "%"
	}
	return mysql_db.UserPrimaryKey{User: un.Name, Host: host}
}

// accountName is 'user'@'host'.
func accountName(user, host string) string {
	return quoteString(user) + "@" + quoteString(host)
}

// quoteString is a single-quoted SQL string literal that MySQL and
// MariaDB read back byte for byte (the binlog's statements run with the
// default sql_mode, so backslash escapes apply).
func quoteString(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			b.WriteString(`\'`)
		case '\\':
			b.WriteString(`\\`)
		case 0:
			b.WriteString(`\0`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case 0x1a:
			b.WriteString(`\Z`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// cannotUser is MySQL's ER_CANNOT_USER (1396).
func cannotUser(op string, accounts []string) error {
	return mysqlerr.New(mysqlerr.ErCannotUser, "Operation %s failed for %s", op, strings.Join(accounts, ","))
}

func okResult() sql.RowIter { return sql.RowsToRowIter(sql.Row{types.NewOkResult(0)}) }

// renameUsers is RENAME USER (GMS parses it but does not run it): every
// account is renamed, with its privileges and role grants, or none is.
func (e *Engine) renameUsers(ctx *sql.Context, n *plan.RenameUser) (sql.RowIter, error) {
	udb := e.gms.Analyzer.Catalog.MySQLDb
	ed := udb.Editor()
	defer ed.Close()
	var failed []string
	for i := range n.OldName {
		from, to := userKey(n.OldName[i]), userKey(n.NewName[i])
		u, ok := ed.GetUser(from)
		if _, taken := ed.GetUser(to); !ok || taken {
			failed = append(failed, accountName(from.User, from.Host))
			continue
		}
		var edges []*mysql_db.RoleEdge
		ed.VisitRoleEdges(func(re *mysql_db.RoleEdge) {
			if (re.FromUser == from.User && re.FromHost == from.Host) || (re.ToUser == from.User && re.ToHost == from.Host) {
				edges = append(edges, re)
			}
		})
		renamed := *u
		renamed.User, renamed.Host = to.User, to.Host
		ed.RemoveUser(from)
		ed.PutUser(&renamed)
		for _, re := range edges {
			ed.RemoveRoleEdge(mysql_db.RoleEdgesPrimaryKey{FromHost: re.FromHost, FromUser: re.FromUser, ToHost: re.ToHost, ToUser: re.ToUser})
			c := *re
			if c.FromUser == from.User && c.FromHost == from.Host {
				c.FromUser, c.FromHost = to.User, to.Host
			}
			if c.ToUser == from.User && c.ToHost == from.Host {
				c.ToUser, c.ToHost = to.User, to.Host
			}
			ed.PutRoleEdge(&c)
		}
	}
	if len(failed) > 0 {
		return nil, cannotUser("RENAME USER", failed)
	}
	if err := udb.Persist(ctx, ed); err != nil {
		return nil, err
	}
	return okResult(), nil
}

// revokeAll is REVOKE ALL PRIVILEGES, GRANT OPTION FROM ... (GMS parses it
// but does not run it): every privilege at every level goes; role grants
// stay, as in MySQL.
func (e *Engine) revokeAll(ctx *sql.Context, n *plan.RevokeAll) (sql.RowIter, error) {
	udb := e.gms.Analyzer.Catalog.MySQLDb
	ed := udb.Editor()
	defer ed.Close()
	var failed []string
	for _, un := range n.Users {
		pk := userKey(un)
		u, ok := ed.GetUser(pk)
		if !ok {
			failed = append(failed, accountName(pk.User, pk.Host))
			continue
		}
		c := *u
		c.PrivilegeSet = mysql_db.NewPrivilegeSet()
		// PutUser replaces only an equal entry: remove the old one first.
		ed.RemoveUser(pk)
		ed.PutUser(&c)
	}
	if len(failed) > 0 {
		return nil, mysqlerr.New(mysqlerr.ErCantRevokeAll, "Can't revoke all privileges for one or more of the requested users")
	}
	if err := udb.Persist(ctx, ed); err != nil {
		return nil, err
	}
	return okResult(), nil
}

// setPasswordRE matches MySQL 8's SET PASSWORD [FOR account] = 'auth'
// on the statement as written (the password literal is kept verbatim).
var setPasswordRE = regexp.MustCompile(`(?is)^\s*SET\s+PASSWORD(?:\s+FOR\s+(.+?))?\s*=\s*('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")\s*;?\s*$`)

// setPassword runs SET PASSWORD as the ALTER USER it stands for (MySQL 8
// logs it that way too): GMS checks the privilege (anyone may change their
// own password) and the statement is logged with the hash.
func (e *Engine) setPassword(ctx context.Context, s *Session, _ []string) (*AdminResult, error) {
	m := setPasswordRE.FindStringSubmatch(s.adminQuery)
	if m == nil {
		return nil, mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax; Petrel supports SET PASSWORD [FOR account] = 'password'")
	}
	acct := strings.TrimSpace(m[1])
	if acct == "" || strings.EqualFold(acct, "CURRENT_USER") || strings.EqualFold(strings.ReplaceAll(acct, " ", ""), "CURRENT_USER()") {
		c := s.Client()
		acct = accountName(c.User, c.Address)
	}
	q := "ALTER USER " + acct + " IDENTIFIED BY " + m[2]
	if err := e.execOnSession(ctx, s, q); err != nil {
		return nil, err
	}
	return &AdminResult{}, nil
}

// execOnSession runs one statement through GMS on a client's session
// (for admin statements that stand for another statement).
func (e *Engine) execOnSession(ctx context.Context, s *Session, query string) error {
	// A query pid of its own: the process list ends the connection's
	// current query by pid.
	pid := sql.WithPid(internalPids + e.nextPid.Add(1))
	sctx, err := e.gms.ProcessList.BeginQuery(sql.NewContext(ctx, sql.WithSession(s), sql.WithProcessList(e.gms.ProcessList), sql.WithQuery(query), pid), query)
	if err != nil {
		return err
	}
	defer e.gms.ProcessList.EndQuery(sctx)
	if err := s.CommandBegin(); err != nil {
		return err
	}
	defer s.CommandEnd()
	_, iter, _, err := e.gms.Query(sctx, query)
	if err == nil {
		_, err = sql.RowIterToRows(sctx, iter)
	}
	if err != nil {
		return sql.CastSQLError(err)
	}
	return nil
}

// internalPids is where the query pids of statements Petrel runs on a
// client's behalf start, far above GMS's own counter.
const internalPids = 1 << 40

// isPetrelTable reports a table of Petrel's backend.
func isPetrelTable(t sql.Table) bool {
	_, ok := t.(*Table)
	return ok
}
