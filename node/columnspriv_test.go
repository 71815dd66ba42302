package node_test

import (
	"reflect"
	"testing"
)

// mysql.columns_priv exists as MySQL 8's empty grant table: reads give
// its columns and no rows, a DELETE deletes nothing (mtr's read_only and
// trigger_notembedded clean it; 1146 before).
func TestColumnsPrivEmptyTable(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	res, err := db.Exec("DELETE FROM mysql.columns_priv WHERE User LIKE 'mysqltest_%'")
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 0 {
		t.Fatalf("rows affected %d, want 0", n)
	}
	if got := queryRows(t, db, "SELECT COUNT(*) FROM mysql.columns_priv"); !reflect.DeepEqual(got, [][]string{{"0"}}) {
		t.Fatalf("count: %v", got)
	}
	rows, err := db.Query("SELECT * FROM mysql.columns_priv c WHERE c.User = 'x'")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	rows.Close()
	want := []string{"Host", "Db", "User", "Table_name", "Column_name", "Timestamp", "Column_priv"}
	if !reflect.DeepEqual(cols, want) {
		t.Fatalf("columns %v, want %v", cols, want)
	}
	for _, q := range []string{"SELECT * FROM mysql.tables_priv", "SELECT * FROM mysql.procs_priv"} {
		queryRows(t, db, q)
	}
}
