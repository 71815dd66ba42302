package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/vitess/go/mysql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// defaultPlugins gives the accounts of CREATE USER and ALTER USER that set
// a password without naming a plugin the plugin MySQL 8 gives them: for
// CREATE USER default_authentication_plugin (caching_sha2_password unless
// configured), for ALTER USER the account's current plugin. (GMS hashes
// every such password as mysql_native_password and cannot tell it from
// IDENTIFIED WITH mysql_native_password, so the statement's own text
// says which accounts named a plugin.)
func (e *Engine) defaultPlugins(ctx *sql.Context, n sql.Node) {
	switch n := n.(type) {
	case *plan.CreateUser:
		named := namedPlugins(ctx)
		def := defaultPlugin(e.globals)
		for i := range n.Users {
			if i < len(named) && named[i] {
				continue
			}
			n.Users[i].Auth1 = withPlugin(n.Users[i].Auth1, def)
		}
	case *plan.AlterUser:
		named := namedPlugins(ctx)
		if len(named) > 0 && named[0] {
			return
		}
		udb := e.gms.Analyzer.Catalog.MySQLDb
		rd := udb.Reader()
		u, ok := rd.GetUser(userKey(n.User.UserName))
		rd.Close()
		if ok {
			n.User.Auth1 = withPlugin(n.User.Auth1, u.Plugin)
		}
	}
}

// withPlugin is a password (given without a plugin) for plugin.
func withPlugin(a plan.Authentication, plugin string) plan.Authentication {
	pw, ok := a.(plan.AuthenticationMysqlNativePassword)
	if !ok || plugin != string(mysql.CachingSha2Password) {
		return a
	}
	return plan.NewCachingSha2PasswordAuthentication(string(pw))
}

func defaultPlugin(g *Globals) string {
	return g.String("default_authentication_plugin", string(mysql.CachingSha2Password))
}

// namedPlugins reports, per account of the current CREATE/ALTER USER
// statement, whether it names its plugin (IDENTIFIED WITH).
func namedPlugins(ctx *sql.Context) []bool {
	stmt, _ := splitFirst(ctx.Query())
	if !strings.Contains(strings.ToUpper(stmt), "WITH") {
		return nil
	}
	parsed, err := ast.Parse(stmt)
	if err != nil {
		return nil
	}
	var users []ast.AccountWithAuth
	switch p := parsed.(type) {
	case *ast.CreateUser:
		users = p.Users
	case *ast.DDL:
		if p.Authentication != nil {
			users = []ast.AccountWithAuth{{AccountName: p.User, Auth1: p.Authentication}}
		}
	}
	out := make([]bool, len(users))
	for i, u := range users {
		out[i] = u.Auth1 != nil && u.Auth1.Plugin != ""
	}
	return out
}
