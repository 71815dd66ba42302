package sqlengine_test

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"petrel/sqlengine"
	"petrel/sqlengine/sqltest"
	"petrel/storage"
)

// TestOptimizeAndTableOptionsOverTheWire: through a real listener and
// go-sql-driver, the refused table options reach the client with
// InnoDB's numbers, SHOW CREATE TABLE prints the kept ones back, and
// OPTIMIZE TABLE answers MySQL's four columns, one status a table, and
// leaves the table's rows in files (DATA_LENGTH no longer 0).
func TestOptimizeAndTableOptionsOverTheWire(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := sqlengine.New(sqlengine.Options{Store: st, ServerID: 5, ServerUUID: "3e11fa47-71ca-11e1-9e33-c80aa9429562", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	c := sqltest.Client(t, e, 60*time.Second)
	c.Exec("CREATE DATABASE w")
	c.Exec("CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(100)) ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4 COMPRESSION='lz4'")
	for q, want := range map[string]uint16{
		"CREATE TABLE w.b1 (id INT) KEY_BLOCK_SIZE=5":                    1031,
		"CREATE TABLE w.b2 (id INT) COMPRESSION='snappy'":                1210,
		"CREATE TABLE w.b3 (id INT) ROW_FORMAT=COMPACT KEY_BLOCK_SIZE=8": 1031,
	} {
		if got := c.Errno(q); got != want {
			t.Errorf("%s: error %d, want %d", q, got, want)
		}
	}
	var name, stmt string
	if err := c.DB.QueryRowContext(c.Ctx(), "SHOW CREATE TABLE w.t").Scan(&name, &stmt); err != nil {
		t.Fatal(err)
	}
	if want := " ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4 COMPRESSION='lz4'"; !strings.HasSuffix(stmt, want) {
		t.Errorf("SHOW CREATE TABLE w.t = %q, want it to end %q", stmt, want)
	}
	c.Exec("INSERT INTO w.t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
	if got := c.One("SELECT DATA_LENGTH FROM information_schema.TABLES WHERE TABLE_SCHEMA='w' AND TABLE_NAME='t'"); got != "0" {
		t.Errorf("DATA_LENGTH before any flush = %s, want 0 (the rows are in the memtable)", got)
	}
	rows, err := c.DB.QueryContext(c.Ctx(), "OPTIMIZE TABLE w.t, w.nosuch")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var tb, op, typ, msg string
		if err := rows.Scan(&tb, &op, &typ, &msg); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{tb, op, typ, msg}, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	want := "w.t|optimize|status|OK\nw.nosuch|optimize|Error|Table 'nosuch' doesn't exist\nw.nosuch|optimize|status|Operation failed"
	if strings.Join(got, "\n") != want {
		t.Errorf("OPTIMIZE TABLE answered\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
	if got := c.One("SELECT DATA_LENGTH > 0 FROM information_schema.TABLES WHERE TABLE_SCHEMA='w' AND TABLE_NAME='t'"); got != "1" {
		t.Errorf("DATA_LENGTH > 0 after OPTIMIZE TABLE = %s, want 1", got)
	}
	var dataLen, indexLen, rowFormat, createOpts string
	if err := c.DB.QueryRowContext(c.Ctx(), "SELECT DATA_LENGTH, INDEX_LENGTH, ROW_FORMAT, CREATE_OPTIONS FROM information_schema.TABLES WHERE TABLE_SCHEMA='w' AND TABLE_NAME='t'").
		Scan(&dataLen, &indexLen, &rowFormat, &createOpts); err != nil {
		t.Fatal(err)
	}
	// SHOW TABLE STATUS says what information_schema.TABLES says.
	status := map[string]string{}
	srows, err := c.DB.QueryContext(c.Ctx(), "SHOW TABLE STATUS FROM w LIKE 't'")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := srows.Columns()
	for srows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := srows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, col := range cols {
			switch v := vals[i].(type) {
			case []byte:
				status[col] = string(v)
			case nil:
			default:
				status[col] = fmt.Sprint(v)
			}
		}
	}
	srows.Close()
	if status["Data_length"] != dataLen || status["Index_length"] != indexLen || status["Row_format"] != "Compressed" || rowFormat != "Compressed" ||
		status["Create_options"] != createOpts || createOpts != `row_format=COMPRESSED KEY_BLOCK_SIZE=4 COMPRESSION="lz4"` {
		t.Errorf("SHOW TABLE STATUS %v; information_schema.TABLES %s %s %s %s", status, dataLen, indexLen, rowFormat, createOpts)
	}
	if got := c.One("SELECT GROUP_CONCAT(v ORDER BY id) FROM w.t"); got != "a,b,c" {
		t.Errorf("rows after OPTIMIZE TABLE: %s", got)
	}
}
