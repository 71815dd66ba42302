package node_test

import (
	"reflect"
	"strings"
	"testing"
)

// ALTER TABLE ... MODIFY to a type a stored value does not fit is refused
// in strict mode with MySQL's error, naming the column and the row (GMS
// answered 1105 "Out of range value for column of Decimal type", 1105
// "Incorrect datetime value", 1406 naming the type), and changes nothing;
// values that fit are converted.
func TestAlterModifyRefusesWithMySQLErrors(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	db.SetMaxOpenConns(1)
	mustExec(t, db, "CREATE DATABASE am", "USE am",
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10), n INT, d DECIMAL(6,2), s VARCHAR(20))",
		"INSERT INTO t VALUES (1, 'abcdef', 300, 1234.56, '2024-01-05'), (2, 'xy', -5, 0.5, 'hello')")
	before := queryRows(t, db, "SELECT * FROM t ORDER BY id")
	for q, want := range map[string]string{
		"ALTER TABLE t MODIFY v VARCHAR(3)":         "Error 1265 (01000): Data truncated for column 'v' at row 1",
		"ALTER TABLE t MODIFY n TINYINT UNSIGNED":   "Error 1264 (22003): Out of range value for column 'n' at row 1",
		"ALTER TABLE t MODIFY d DECIMAL(4,1)":       "Error 1264 (22003): Out of range value for column 'd' at row 1",
		"ALTER TABLE t MODIFY s DATE":               "Error 1292 (22007): Incorrect date value: 'hello' for column 's' at row 2",
		"ALTER TABLE t MODIFY n VARCHAR(2)":         "Error 1406 (22001): Data too long for column 'n' at row 1",
		"ALTER TABLE t CHANGE n m TINYINT UNSIGNED": "Error 1264 (22003): Out of range value for column 'm' at row 1",
	} {
		_, err := db.Exec(q)
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", q, err, want)
		}
	}
	if got := queryRows(t, db, "SELECT * FROM t ORDER BY id"); !reflect.DeepEqual(got, before) {
		t.Errorf("rows after refused ALTERs: %v, want %v", got, before)
	}
	if c := queryRows(t, db, "SHOW CREATE TABLE t")[0][1]; !strings.Contains(c, "`v` varchar(10)") || !strings.Contains(c, "`n` int") {
		t.Errorf("table after refused ALTERs:\n%s", c)
	}
	mustExec(t, db, "ALTER TABLE t MODIFY v VARCHAR(6)", "ALTER TABLE t MODIFY n BIGINT", "ALTER TABLE t MODIFY d DECIMAL(8,3)")
	if got, want := queryRows(t, db, "SELECT v, n, d FROM t ORDER BY id"), [][]string{{"abcdef", "300", "1234.560"}, {"xy", "-5", "0.500"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("converted rows: %v, want %v", got, want)
	}
}
