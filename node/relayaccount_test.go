package node

import (
	"testing"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// TestIsAccountStatement: a relay applies the account statements it
// relays (as logged by a source: passwords as hashes) and nothing else.
func TestIsAccountStatement(t *testing.T) {
	for q, want := range map[string]bool{
		"CREATE USER 'app'@'%' IDENTIFIED WITH 'caching_sha2_password' AS '$A$005$abc'":           true,
		"CREATE USER IF NOT EXISTS 'repl'@'%' IDENTIFIED WITH 'mysql_native_password' AS '*0123'": true,
		"ALTER USER 'app'@'%' IDENTIFIED WITH 'mysql_native_password' AS '*0123'":                 true,
		"DROP USER 'app'@'%'":                          true,
		"RENAME USER 'a'@'%' TO 'b'@'%'":               true,
		"GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%'": true,
		"REVOKE INSERT ON db.* FROM 'app'@'%'":         true,
		"CREATE ROLE 'r'":                              true,
		"GRANT 'r' TO 'app'@'%'":                       true,
		"CREATE TABLE t (id INT PRIMARY KEY)":          false,
		"ALTER TABLE t ADD COLUMN c INT":               false,
		"DROP TABLE t":                                 false,
		"INSERT INTO t VALUES (1)":                     false,
		"CREATE DATABASE d":                            false,
	} {
		stmt, err := ast.Parse(q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		if got := isAccountStatement(stmt); got != want {
			t.Errorf("isAccountStatement(%s) = %v, want %v", q, got, want)
		}
	}
}
