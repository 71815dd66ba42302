package node_test

import (
	"database/sql"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// CREATE and DROP DATABASE need CREATE or DROP on the database named: a
// user granted ALL ON db.* creates and drops db, and under read_only
// gets read_only's 1290 rather than 1142; other databases stay refused.
func TestDatabaseDDLPrivilegeOnDatabase(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE USER 'u1'@'%' IDENTIFIED BY 'x'", "GRANT ALL ON db2.* TO 'u1'@'%'", "GRANT ALL ON db1.* TO 'u1'@'%'", "CREATE DATABASE db1")
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "u1", "x", "tcp", n.Addr()
	u, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	u.SetMaxOpenConns(1)
	mustExec(t, root, "SET GLOBAL read_only = 1")
	for _, q := range []string{"CREATE DATABASE db2", "DROP DATABASE db1"} {
		_, err := u.Exec(q)
		if n := errno(t, err); n != 1290 {
			t.Errorf("read_only %s: errno %d (%v), want 1290", q, n, err)
		}
	}
	mustExec(t, root, "SET GLOBAL read_only = 0")
	for _, q := range []string{"CREATE DATABASE db2", "DROP DATABASE db1", "DROP DATABASE db2"} {
		if _, err := u.Exec(q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
	_, err = u.Exec("CREATE DATABASE db3")
	if n := errno(t, err); n != 1044 {
		t.Errorf("CREATE DATABASE db3 without a grant: errno %d (%v), want 1044", n, err)
	}
	if got := queryRows(t, root, "SHOW DATABASES LIKE 'db%'"); len(got) != 0 {
		t.Errorf("databases left: %v", got)
	}
}
