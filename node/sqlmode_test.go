package node_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// TestCombinedSQLModes: TRADITIONAL and ANSI stand for the modes MySQL
// gives them, from the option file and from SET (GMS kept the name
// alone, so TRADITIONAL left strict mode off).
func TestCombinedSQLModes(t *testing.T) {
	_, open := startNodeWith(t, map[string]string{"sql_mode": "TRADITIONAL"})
	db := open("")
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	has := func(q string, flags ...string) {
		t.Helper()
		got := callSets(t, conn, q)[0][1][0]
		for _, f := range flags {
			if !strings.Contains(","+got+",", ","+f+",") {
				t.Errorf("%s = %s, want %s in it", q, got, f)
			}
		}
	}
	has("SELECT @@GLOBAL.sql_mode", "TRADITIONAL", "STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "NO_ZERO_DATE", "ERROR_FOR_DIVISION_BY_ZERO")
	has("SELECT @@SESSION.sql_mode", "STRICT_TRANS_TABLES")
	mustExecConn(t, conn, "SET SESSION sql_mode = 'ansi'")
	has("SELECT @@SESSION.sql_mode", "ANSI", "ANSI_QUOTES", "PIPES_AS_CONCAT", "ONLY_FULL_GROUP_BY")
	mustExecConn(t, conn, "SET sql_mode = 'traditional'", "CREATE DATABASE sm", "CREATE TABLE sm.t (a TINYINT NOT NULL)")
	var me *mysql.MySQLError
	if _, err := conn.ExecContext(context.Background(), "INSERT INTO sm.t SELECT 1000"); !errors.As(err, &me) || me.Number != 1264 {
		t.Errorf("INSERT of 1000 into a TINYINT under TRADITIONAL: %v, want 1264", err)
	}
}
