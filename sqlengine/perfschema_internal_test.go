package sqlengine

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"petrel/sqlengine/sysschema"

	"petrel/sqlengine/sqlerr"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"

	"petrel/storage"
)

// TestPerformanceSchemaTables: a registered table is computed at each scan
// (its rows change between two SELECTs), filters and joins work on it,
// performance_schema is listed, and it cannot be written, created in or
// dropped.
func TestPerformanceSchemaTables(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := New(Options{Store: st, ServerUUID: "3e11fa47-71ca-11e1-9e33-c80aa9429562", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	var scans atomic.Int64
	e.RegisterSystemTable(sysschema.Table{
		Name: "workers",
		Schema: sql.Schema{
			{Name: "WORKER_ID", Type: types.Uint64},
			{Name: "STATE", Type: types.MustCreateStringWithDefaults(sqltypes.VarChar, 16)},
		},
		Rows: func(*sql.Context) ([]sql.Row, error) {
			n := scans.Add(1)
			return []sql.Row{{uint64(1), "idle"}, {uint64(2), fmt.Sprintf("scan%d", n)}}, nil
		},
	})
	s := e.NewInternalSession()
	query, must := internalQueries(t, e, s)
	for _, tc := range []struct{ q, want string }{
		{"SELECT * FROM performance_schema.workers ORDER BY WORKER_ID", "[[1 idle] [2 scan1]]"},
		{"SELECT STATE FROM performance_schema.WORKERS WHERE worker_id = 2", "[[scan2]]"},
		{"SELECT COUNT(*) FROM performance_schema.workers w JOIN performance_schema.workers v ON w.worker_id = v.worker_id", "[[2]]"},
	} {
		if got := must(tc.q); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.q, got, tc.want)
		}
	}
	if got := must("SHOW DATABASES"); !strings.Contains(got, "performance_schema") {
		t.Errorf("SHOW DATABASES: %s", got)
	}
	if got := must("SHOW TRIGGERS FROM performance_schema"); got != "[]" {
		t.Errorf("SHOW TRIGGERS FROM performance_schema: %s", got)
	}
	if got := must("SELECT COUNT(*) FROM information_schema.TRIGGERS"); got != "[[0]]" {
		t.Errorf("information_schema.TRIGGERS: %s", got)
	}
	if got := must("SHOW TABLES FROM performance_schema"); got != "[[global_status] [global_variables] [metadata_locks] [session_account_connect_attrs] [session_connect_attrs] [session_status] [session_variables] [threads] [workers]]" {
		t.Errorf("SHOW TABLES FROM performance_schema: %s", got)
	}
	must("CREATE DATABASE d")
	s.SetCurrentDatabase("d") // as a client's session usually has one
	for q, want := range map[string]uint16{
		"INSERT INTO performance_schema.workers VALUES (3, 'x')": 1142,
		"UPDATE performance_schema.workers SET STATE = 'x'":      1142,
		"DELETE FROM performance_schema.workers":                 1142,
		"TRUNCATE performance_schema.workers":                    1142,
		"CREATE TABLE performance_schema.t (i INT)":              1044,
		"DROP TABLE performance_schema.workers":                  1044,
		"DROP DATABASE performance_schema":                       1044,
		"CREATE DATABASE performance_schema":                     1007,
		"CREATE VIEW performance_schema.v AS SELECT 1":           1044,
		"CREATE TRIGGER performance_schema.tr BEFORE INSERT ON performance_schema.workers FOR EACH ROW SET @x = 1": 1044,
	} {
		_, err := query(q)
		if err == nil {
			t.Errorf("%s: accepted", q)
			continue
		}
		var me *mysql.SQLError
		if !errors.As(sqlerr.ClientError(err), &me) || uint16(me.Num) != want {
			t.Errorf("%s: %v, want MySQL error %d", q, sqlerr.ClientError(err), want)
		}
	}
	if got := must("SELECT COUNT(*) FROM performance_schema.workers"); got != "[[2]]" {
		t.Errorf("rows after the refused writes: %s", got)
	}
}
