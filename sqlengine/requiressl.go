package sqlengine

import (
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"petrel/sqlengine/sqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"petrel/internal/mysqlerr"
)

// Accounts created or altered with REQUIRE SSL (or X509, ISSUER, SUBJECT,
// CIPHER, which Petrel enforces as SSL) may log in over TLS only; a
// plaintext login is refused with ER_ACCESS_DENIED_ERROR, as MySQL does.
// GMS's account tables have no ssl_type, so the set of such accounts is
// stored beside them (sslMetaKey), in the same storage transaction as the
// account statement that changes it, and replicated with it: CREATE USER
// is logged with REQUIRE SSL, ALTER USER ... REQUIRE (which GMS does not
// parse; an admin statement here) as written.

const sslMetaKey = "mysql_db_require_ssl"

type sslSet map[mysql_db.UserPrimaryKey]struct{}

func (e *Engine) loadRequireSSL() error {
	b, err := e.store.GetMeta(sslMetaKey)
	if err != nil {
		return err
	}
	set := sslSet{}
	if b != nil {
		var list [][2]string
		if err := json.Unmarshal(b, &list); err != nil {
			return err
		}
		for _, a := range list {
			set[mysql_db.UserPrimaryKey{User: a[0], Host: a[1]}] = struct{}{}
		}
	}
	e.requireSSL.Store(&set)
	return nil
}

func (s sslSet) encode() []byte {
	list := make([][2]string, 0, len(s))
	for k := range s {
		list = append(list, [2]string{k.User, k.Host})
	}
	sort.Slice(list, func(i, j int) bool {
		return list[i][0] < list[j][0] || (list[i][0] == list[j][0] && list[i][1] < list[j][1])
	})
	b, _ := json.Marshal(list)
	return b
}

func (s sslSet) clone() sslSet {
	c := make(sslSet, len(s)+1)
	for k := range s {
		c[k] = struct{}{}
	}
	return c
}

// requiresSSL reports whether the account (user, host pattern) must log
// in over TLS.
func (e *Engine) requiresSSL(user, host string) bool {
	p := e.requireSSL.Load()
	if p == nil {
		return false
	}
	_, ok := (*p)[mysql_db.UserPrimaryKey{User: user, Host: host}]
	return ok
}

// sslAfter is the REQUIRE SSL set once account statement n, not run yet,
// is applied; nil when n does not change it.
func (e *Engine) sslAfter(n sql.Node) sslSet {
	cur := sslSet{}
	if p := e.requireSSL.Load(); p != nil {
		cur = *p
	}
	switch n := n.(type) {
	case *plan.CreateUser:
		want := n.TLSOptions != nil && (n.TLSOptions.SSL || n.TLSOptions.X509 ||
			n.TLSOptions.Cipher != "" || n.TLSOptions.Issuer != "" || n.TLSOptions.Subject != "")
		next := cur.clone()
		udb := e.gms.Analyzer.Catalog.MySQLDb
		rd := udb.Reader()
		defer rd.Close()
		for _, u := range n.Users {
			if _, exists := rd.GetUser(userKey(u.UserName)); exists {
				// IF NOT EXISTS leaves an existing account as it is
				// (without it the statement fails).
				continue
			}
			if want {
				next[userKey(u.UserName)] = struct{}{}
			} else {
				delete(next, userKey(u.UserName))
			}
		}
		return next
	case *plan.DropUser:
		next := cur.clone()
		for _, u := range n.Users {
			delete(next, userKey(u))
		}
		return next
	case *plan.RenameUser:
		next := cur.clone()
		for i := range n.OldName {
			from := userKey(n.OldName[i])
			if _, ok := next[from]; ok {
				delete(next, from)
				next[userKey(n.NewName[i])] = struct{}{}
			}
		}
		return next
	}
	return nil
}

// alterRequireRE is ALTER USER account REQUIRE SSL|X509|NONE.
var alterRequireRE = regexp.MustCompile(`(?is)^\s*ALTER\s+USER\s+(IF\s+EXISTS\s+)?(\S+)\s+REQUIRE\s+(SSL|X509|NONE)\s*;?\s*$`)

// alterRequire runs ALTER USER ... REQUIRE (m: alterRequireRE's
// submatches) on session s: stored and logged as written, in one commit.
func (e *Engine) alterRequire(ctx context.Context, s *Session, stmt string, m []string) error {
	sctx := e.NewContext(ctx, s)
	if err := e.checkWritable(sctx); err != nil {
		return err
	}
	if err := s.implicitCommit(sctx); err != nil {
		return err
	}
	user, host := parseAccount(m[2])
	key := mysql_db.UserPrimaryKey{User: user, Host: host}
	e.acctMu.Lock()
	defer e.acctMu.Unlock()
	udb := e.gms.Analyzer.Catalog.MySQLDb
	rd := udb.Reader()
	_, exists := rd.GetUser(key)
	rd.Close()
	if !exists {
		if strings.TrimSpace(m[1]) != "" {
			return nil
		}
		return cannotUser("ALTER USER", []string{accountName(user, host)})
	}
	next := sslSet{}
	if p := e.requireSSL.Load(); p != nil {
		next = p.clone()
	}
	if strings.EqualFold(m[3], "NONE") {
		delete(next, key)
	} else {
		next[key] = struct{}{}
	}
	tx := e.store.Begin()
	if s.origin != nil {
		tx.SetOrigin(*s.origin)
	}
	if err := tx.PutMeta(sslMetaKey, next.encode()); err != nil {
		tx.Rollback()
		return sqlerr.ToMySQL(err)
	}
	tx.LogQuery(sctx.GetCurrentDatabase(), strings.TrimRight(strings.TrimSpace(stmt), "; \t\r\n"))
	if err := tx.Commit(sctx); err != nil {
		return sqlerr.ToMySQL(err)
	}
	e.requireSSL.Store(&next)
	return nil
}

// adminAlterRequire is the admin handler of ALTER USER ... REQUIRE.
func (e *Engine) adminAlterRequire(ctx context.Context, s *Session, _ []string) (*AdminResult, error) {
	m := alterRequireRE.FindStringSubmatch(s.adminQuery)
	if m == nil {
		return nil, mysqlerr.New(mysqlerr.ErParse, "You have an error in your SQL syntax; Petrel supports ALTER USER account REQUIRE SSL|X509|NONE")
	}
	if err := e.alterRequire(ctx, s, s.adminQuery, m); err != nil {
		return nil, err
	}
	return &AdminResult{}, nil
}

// parseAccount reads 'user'@'host' (quotes optional; no host is '%').
func parseAccount(s string) (string, string) {
	s = strings.TrimSpace(s)
	user, host := s, "%"
	if i := strings.LastIndex(s, "@"); i >= 0 {
		user, host = s[:i], s[i+1:]
	}
	unq := func(x string) string {
		x = strings.TrimSpace(x)
		if len(x) >= 2 && (x[0] == '\'' || x[0] == '"' || x[0] == '`') && x[len(x)-1] == x[0] {
			x = x[1 : len(x)-1]
		}
		return x
	}
	return unq(user), unq(host)
}
