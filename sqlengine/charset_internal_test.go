package sqlengine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"

	"petrel/storage"
)

// oldTableDef is a table definition exactly as Petrel stored it before
// utf8mb4_0900_ai_ci became the default (captured from a datadir the
// previous release wrote for CREATE TABLE old.t (id INT PRIMARY KEY, name
// VARCHAR(20), code CHAR(4) COLLATE utf8mb4_0900_ai_ci, UNIQUE KEY uname
// (name), KEY kcode (code)) in a database created without a collation).
const oldTableDef = `{"id":1,"db":"old","name":"t","columns":[{"name":"id","type":"int","pk":true},` +
	`{"name":"name","type":"varchar(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_bin","nullable":true},` +
	`{"name":"code","type":"char(4) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci","nullable":true}],` +
	`"pk":[0],"indexes":[{"id":1,"name":"uname","columns":["name"],"unique":true},{"id":2,"name":"kcode","columns":["code"]}],"collation":309}`

// TestOldDatadirKeepsItsCollations: tables and databases created before
// the default changed keep their (binary) collation, their stored keys
// and so their lookups and uniqueness; only new databases take the new
// default.
func TestOldDatadirKeepsItsCollations(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	st, err := storage.Open(storage.Options{Dir: t.TempDir(), Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bg := context.Background()
	txn := st.Begin()
	if err := st.Catalog().CreateDatabase(txn, "old", uint16(sql.Collation_utf8mb4_0900_bin)); err != nil {
		t.Fatal(err)
	}
	var def storage.TableDef
	if err := json.Unmarshal([]byte(oldTableDef), &def); err != nil {
		t.Fatal(err)
	}
	tb, err := st.Catalog().CreateTable(txn, def)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []sql.Row{{int32(1), "bob", "ab"}, {int32(2), "Bob", "AB"}, {int32(3), "alice", "x"}} {
		if err := txn.Insert(bg, tb, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(bg); err != nil {
		t.Fatal(err)
	}

	e, err := New(Options{Store: st, ServerUUID: "3e11fa47-71ca-11e1-9e33-c80aa9429562", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	s := e.NewInternalSession()
	query, must := internalQueries(t, e, s)
	if got := must("SHOW CREATE TABLE old.t"); !strings.Contains(got, "COLLATE=utf8mb4_0900_bin") || !strings.Contains(got, "`code` char(4) COLLATE utf8mb4_0900_ai_ci") {
		t.Errorf("SHOW CREATE TABLE: %s", got)
	}
	// name is binary: 'BOB' matches nothing, 'Bob' and 'bob' coexist.
	for q, want := range map[string]string{
		"SELECT id FROM old.t WHERE name = 'BOB'":            "[]",
		"SELECT id FROM old.t WHERE name = 'Bob'":            "[[2]]",
		"SELECT name FROM old.t ORDER BY name":               "[[Bob] [alice] [bob]]",
		"SELECT id FROM old.t WHERE code = 'Ab' ORDER BY id": "[[1] [2]]", // code was ai_ci already
	} {
		if got := must(q); got != want {
			t.Errorf("%s: %s, want %s", q, got, want)
		}
	}
	must("INSERT INTO old.t VALUES (4, 'BOB', 'y')")
	if _, err := query("INSERT INTO old.t VALUES (5, 'BOB', 'z')"); err == nil {
		t.Errorf("a second 'BOB' was accepted")
	}
	// A table created now in the old database takes the database's
	// collation; a new database takes the new default.
	must("CREATE TABLE old.t2 (s VARCHAR(5))")
	must("CREATE DATABASE fresh")
	must("CREATE TABLE fresh.t (s VARCHAR(5))")
	got := must("SELECT TABLE_SCHEMA, COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_NAME IN ('t2', 't') AND COLUMN_NAME = 's' ORDER BY TABLE_SCHEMA")
	if got != "[[fresh utf8mb4_0900_ai_ci] [old utf8mb4_0900_bin]]" {
		t.Errorf("new tables' collations: %s", got)
	}
}

// internalQueries runs statements on e in session s: query returns the
// rows as fmt prints them, must fails the test on an error.
func internalQueries(t *testing.T, e *Engine, s *Session) (query func(string) (string, error), must func(string) string) {
	query = func(q string) (string, error) {
		ctx := e.NewContext(context.Background(), s).WithQuery(q)
		_, iter, _, err := e.GMS().Query(ctx, q)
		if err != nil {
			return "", err
		}
		rows, err := sql.RowIterToRows(ctx, iter)
		return fmt.Sprint(rows), err
	}
	must = func(q string) string {
		t.Helper()
		out, err := query(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return out
	}
	return query, must
}
