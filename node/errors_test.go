package node_test

import (
	"context"
	"database/sql"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// TestClientsSeeMySQLErrorNumbers: through a real client (go-sql-driver)
// every common failure carries MySQL's error number and SQLSTATE, and
// access-denied messages name the account as 'u'@'%'.
func TestClientsSeeMySQLErrorNumbers(t *testing.T) {
	n, open := startNode(t)
	root := open("")
	mustExec(t, root, "CREATE DATABASE e", "CREATE TABLE e.t (id INT PRIMARY KEY, s VARCHAR(3), b TINYINT, v INT NOT NULL)",
		"INSERT INTO e.t VALUES (1, 'a', 1, 1)",
		"CREATE TABLE e.uk (id INT PRIMARY KEY, email VARCHAR(20), UNIQUE KEY uk_email (email))", "INSERT INTO e.uk VALUES (1, 'a@x.io')",
		"CREATE TABLE e.gc (id INT PRIMARY KEY, a INT, total INT AS (a + 1) STORED)",
		"CREATE TABLE e.secret (id INT PRIMARY KEY)", "CREATE DATABASE e2", "CREATE TABLE e.nl (id INT PRIMARY KEY, n INT)", "INSERT INTO e.nl VALUES (1, NULL)", "CREATE TABLE e.ak (pk INT AUTO_INCREMENT PRIMARY KEY)",
		"CREATE USER 'u'@'%' IDENTIFIED BY 'x'", "GRANT SELECT ON e.t TO 'u'@'%'")
	db := open("e")
	db.SetMaxOpenConns(1)
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr = "u", "x", "tcp", n.Addr()
	u, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	u.SetMaxOpenConns(1)
	for _, tc := range []struct {
		db    *sql.DB
		q     string
		num   uint16
		state string
		text  string
	}{
		{db, "CREATE TABLE t (id INT PRIMARY KEY)", 1050, "42S01", "Table 't' already exists"},
		{db, "CREATE DATABASE e", 1007, "HY000", "database exists"},
		{db, "SELECT * FROM nosuch", 1146, "42S02", "nosuch"},
		{db, "SELECT nocol FROM t", 1054, "42S22", "nocol"},
		{db, "USE nodb", 1049, "42000", "Unknown database 'nodb'"},
		{db, "INSERT INTO t VALUES (1, 'b', 1, 1)", 1062, "23000", "Duplicate entry '1' for key 'PRIMARY'"},
		{db, "INSERT INTO uk VALUES (2, 'a@x.io')", 1062, "23000", "Duplicate entry 'a@x.io' for key 'uk_email'"},
		{db, "INSERT INTO gc (id, a, total) VALUES (1, 1, 5)", 3105, "HY000", "The value specified for generated column 'total' in table 'gc' is not allowed."},
		{db, "INSERT INTO t VALUES (2, 'abcd', 1, 1)", 1406, "22001", "Data too long for column 's' at row 1"},
		{db, "INSERT INTO t VALUES (2, 'a', 1, 1), (3, 'abcd', 1, 1)", 1406, "22001", "Data too long for column 's' at row 2"},
		{db, "INSERT INTO t VALUES (2, 'a', 300, 1)", 1264, "22003", "Out of range"},
		{db, "INSERT INTO t VALUES (2, 'a', 1, NULL)", 1048, "23000", "Column 'v' cannot be null"},
		{db, "SELEC 1", 1064, "42000", "You have an error in your SQL syntax"},
		{db, "CREATE TABLE tp (a INT, b TIME(7))", 1426, "42000", "Too-big precision 7 specified for 'b'. Maximum is 6."},
		{db, "ALTER TABLE t ADD COLUMN d DATETIME(9)", 1426, "42000", "Too-big precision 9 specified for 'd'. Maximum is 6."},
		{db, "CREATE TABLE inv (id INT PRIMARY KEY, n INT, INDEX ix (n) INVISIBLE)", 1235, "42000", "INVISIBLE indexes and columns"},
		{db, "ALTER TABLE t ADD INDEX ix_b (b) INVISIBLE", 1235, "42000", "INVISIBLE indexes and columns"},
		{db, "ALTER TABLE nl MODIFY n INT NOT NULL", 1138, "22004", "Invalid use of NULL value"},
		{db, "ALTER TABLE uk RENAME INDEX nope TO other", 1176, "42000", "Key 'nope' doesn't exist in table 'uk'"},
		{db, "ALTER TABLE ak DROP PRIMARY KEY", 1075, "42000", "Incorrect table definition; there can be only one auto column and it must be defined as a key"},
		{db, "SHOW BINLOG EVENTS IN 'nosuch.000001'", 1220, "HY000", "Could not find target log"},
		{db, "SELECT WAIT_FOR_EXECUTED_GTID_SET('not-a-gtid')", 1772, "HY000", "Malformed GTID set specification"},
		{db, "PURGE BINARY LOGS BEFORE 'yesterday'", 1292, "22007", "Incorrect DATETIME value"},
		{db, "INSTALL PLUGIN nosuch SONAME 'nosuch.so'", 1126, "HY000", "nosuch.so"},
		{db, "UNINSTALL PLUGIN nosuch", 1305, "42000", "PLUGIN nosuch does not exist"},
		{db, "START REPLICA", 1200, "HY000", ""},
		{db, "CHANGE REPLICATION SOURCE TO SOURCE_HOST='127.0.0.1', SOURCE_AUTO_POSITION=1, SOURCE_LOG_FILE='binlog.000001', SOURCE_LOG_POS=4", 1776, "HY000", ""},
		{u, "SELECT * FROM e.secret", 1142, "42000", "'u'@'%'"},
		{u, "INSERT INTO e.t VALUES (5, 'a', 1, 1)", 1142, "42000", "'u'@'%'"},
		{u, "USE e2", 1044, "42000", "Access denied for user 'u'@'%' to database 'e2'"},
	} {
		_, err := tc.db.Exec(tc.q)
		var me *mysql.MySQLError
		if err == nil || !asMySQL(err, &me) {
			t.Errorf("%s: err=%v, want MySQL error %d", tc.q, err, tc.num)
			continue
		}
		if me.Number != tc.num || string(me.SQLState[:]) != tc.state || !strings.Contains(me.Message, tc.text) || strings.Contains(me.Message, "%%") {
			t.Errorf("%s: got %d (%s) %q, want %d (%s) containing %q", tc.q, me.Number, me.SQLState, me.Message, tc.num, tc.state, tc.text)
		}
	}
	if got := queryRows(t, root, "SELECT id, s, b, v FROM e.t"); len(got) != 1 || strings.Join(got[0], ",") != "1,a,1,1" {
		t.Errorf("rows after the refused statements: %v", got)
	}

	// A wrong password: 1045 with the account and host.
	cfg.Passwd = "wrong"
	bad, _ := sql.Open("mysql", cfg.FormatDSN())
	defer bad.Close()
	var me *mysql.MySQLError
	if err := bad.Ping(); err == nil || !asMySQL(err, &me) || me.Number != 1045 || string(me.SQLState[:]) != "28000" {
		t.Errorf("wrong password: %v, want 1045 (28000)", err)
	}

	// Lock wait timeout (1205) and deadlock (1213, 40001).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c1, err := root.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := root.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	for _, q := range []string{"SET SESSION innodb_lock_wait_timeout = 1", "INSERT INTO e.t VALUES (10, 'x', 1, 1), (11, 'y', 1, 1)"} {
		if _, err := c1.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []*sql.Conn{c1, c2} {
		if _, err := c.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c1.ExecContext(ctx, "UPDATE e.t SET v = 2 WHERE id = 10"); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.ExecContext(ctx, "UPDATE e.t SET v = 3 WHERE id = 10"); err == nil || !asMySQL(err, &me) || me.Number != 1205 {
		t.Errorf("lock wait: %v, want 1205", err)
	}
	if _, err := c2.ExecContext(ctx, "UPDATE e.t SET v = 3 WHERE id = 11"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*sql.Conn{c1, c2} {
		if _, err := c.ExecContext(ctx, "SET SESSION innodb_lock_wait_timeout = 20"); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := c1.ExecContext(ctx, "UPDATE e.t SET v = 2 WHERE id = 11")
		done <- err
	}()
	time.Sleep(200 * time.Millisecond) // c1 waits for c2's lock (the deadlock needs both waits)
	_, err2 := c2.ExecContext(ctx, "UPDATE e.t SET v = 3 WHERE id = 10")
	err1 := <-done
	var dead int
	for _, err := range []error{err1, err2} {
		if err != nil {
			if !asMySQL(err, &me) || me.Number != 1213 || string(me.SQLState[:]) != "40001" {
				t.Errorf("deadlock: %v, want 1213 (40001)", err)
			}
			dead++
		}
	}
	if dead != 1 {
		t.Errorf("deadlock: %d of the two statements failed (%v, %v), want one victim", dead, err1, err2)
	}
	for _, c := range []*sql.Conn{c1, c2} {
		_, _ = c.ExecContext(ctx, "ROLLBACK")
	}
}

// INSERT IGNORE's duplicate-key warnings carry MySQL's 1062 text (GMS's
// was "duplicate unique key given: a@x.io").
func TestDuplicateKeyWarnings(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE dw", "CREATE TABLE dw.t (id INT PRIMARY KEY, email VARCHAR(20), UNIQUE KEY uk_email (email))",
		"INSERT INTO dw.t VALUES (1, 'a@x.io')", "INSERT IGNORE INTO dw.t VALUES (1, 'b@x.io'), (2, 'a@x.io'), (3, 'c@x.io')")
	got := queryRows(t, db, "SHOW WARNINGS")
	want := [][]string{
		{"Warning", "1062", "Duplicate entry '1' for key 'PRIMARY'"},
		{"Warning", "1062", "Duplicate entry 'a@x.io' for key 'uk_email'"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("warnings of INSERT IGNORE: %v, want %v", got, want)
	}
	if got := queryRows(t, db, "SELECT COUNT(*) FROM dw.t"); got[0][0] != "2" {
		t.Errorf("rows after INSERT IGNORE: %v, want 2", got)
	}
}
