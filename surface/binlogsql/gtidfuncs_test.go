package binlogsql_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"petrel/sqlengine"
	"petrel/storage"
	"petrel/surface/binlogsql"
)

// TestGTIDFunctions: GTID_SUBSET and GTID_SUBTRACT give MySQL's answers
// (sets compared by their GTIDs, not their text; the result normalised;
// NULL in, NULL out) and refuse a malformed set with 1772.
func TestGTIDFunctions(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := sqlengine.New(sqlengine.Options{Store: st, ServerUUID: "3e11fa47-71ca-11e1-9e33-c80aa9429562", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	binlogsql.RegisterGTIDFunctions(e)
	s := e.NewInternalSession()
	query := func(q string) (string, error) {
		ctx := e.NewContext(context.Background(), s).WithQuery(q)
		_, iter, _, err := e.GMS().Query(ctx, q)
		if err != nil {
			return "", err
		}
		rows, err := sql.RowIterToRows(ctx, iter)
		return fmt.Sprint(rows), err
	}
	const a, b = "3e11fa47-71ca-11e1-9e33-c80aa9429562", "4e11fa47-71ca-11e1-9e33-c80aa9429562"
	for _, tc := range []struct{ q, want string }{
		{"SELECT GTID_SUBSET('" + a + ":1-5', '" + a + ":1-10')", "[[1]]"},
		{"SELECT GTID_SUBSET('" + a + ":1-5:7', '" + a + ":1-6')", "[[0]]"},
		{"SELECT gtid_subset('" + a + ":3', '" + a + ":1-2:3-4," + b + ":1')", "[[1]]"},
		{"SELECT GTID_SUBSET('', '" + a + ":1')", "[[1]]"},
		{"SELECT GTID_SUBSET('" + b + ":1', '')", "[[0]]"},
		{"SELECT GTID_SUBSET(NULL, '" + a + ":1')", "[[<nil>]]"},
		{"SELECT GTID_SUBTRACT('" + a + ":1-10', '" + a + ":3-4:8')", "[[" + a + ":1-2:5-7:9-10]]"},
		{"SELECT GTID_SUBTRACT('" + a + ":1-3," + b + ":1-2', '" + b + ":1-2')", "[[" + a + ":1-3]]"},
		{"SELECT GTID_SUBTRACT('" + a + ":1-3', '" + a + ":1-3')", "[[]]"},
		{"SELECT GTID_SUBTRACT('" + a + ":1', NULL)", "[[<nil>]]"},
	} {
		got, err := query(tc.q)
		if err != nil || got != tc.want {
			t.Errorf("%s = %s, %v; want %s", tc.q, got, err, tc.want)
		}
	}
	for _, q := range []string{"SELECT GTID_SUBSET('nonsense', '')", "SELECT GTID_SUBTRACT('" + a + ":1', '" + a + ":x')"} {
		_, err := query(q)
		var me *mysql.SQLError
		if !errors.As(err, &me) || me.Num != 1772 {
			t.Errorf("%s: %v, want error 1772", q, err)
		}
	}
}
