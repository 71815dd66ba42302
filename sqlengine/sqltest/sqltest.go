// Package sqltest serves a SQL engine on loopback to a real client
// (go-sql-driver), for the tests of the SQL surfaces the stages register
// (surface/binlogsql, surface/semisyncsql, surface/replsql).
package sqltest

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"petrel/sqlengine"
)

// Conn is one client connection to the engine, with t's failure helpers.
type Conn struct {
	t   testing.TB
	ctx context.Context
	DB  *sql.DB
}

// Client creates root (password "pw"), serves e on 127.0.0.1 and returns
// a one-connection client whose statements share a deadline of d; all of
// it ends with t.
func Client(t testing.TB, e *sqlengine.Engine, d time.Duration) *Conn {
	t.Helper()
	if err := e.CreateRoot("pw"); err != nil {
		t.Fatal(err)
	}
	srv, err := e.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "root", "pw", "tcp", srv.Addr()
	cfg.Timeout, cfg.ReadTimeout, cfg.WriteTimeout = 10*time.Second, 10*time.Second, 10*time.Second
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(func() { cancel(); db.Close() })
	return &Conn{t: t, ctx: ctx, DB: db}
}

// Ctx is the statements' context.
func (c *Conn) Ctx() context.Context { return c.ctx }

// Exec runs q and fails the test on an error.
func (c *Conn) Exec(q string) {
	c.t.Helper()
	if _, err := c.DB.ExecContext(c.ctx, q); err != nil {
		c.t.Fatalf("%s: %v", q, err)
	}
}

// Errno runs q, which must fail with a MySQL error, and returns its number.
func (c *Conn) Errno(q string) uint16 {
	c.t.Helper()
	_, err := c.DB.ExecContext(c.ctx, q)
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		c.t.Fatalf("%s: got %v, want a MySQL error", q, err)
	}
	return me.Number
}

// One returns the single value q selects ("" for NULL).
func (c *Conn) One(q string) string {
	c.t.Helper()
	var s sql.NullString
	if err := c.DB.QueryRowContext(c.ctx, q).Scan(&s); err != nil {
		c.t.Fatalf("%s: %v", q, err)
	}
	return s.String
}
