package node_test

import (
	"reflect"
	"testing"
)

// Functions Petrel answers over GMS's (sqlengine/mysqlfuncs.go), with
// MySQL 8's results.
func TestMySQLFunctions(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"SELECT TRUNCATE(1.999, 2), TRUNCATE(-1.999, 0), TRUNCATE(1234, -2), TRUNCATE(NULL, 1)", []string{"1.99", "-1", "1200", "NULL"}},
		{"SELECT TRUNCATE(1.999e0, 1)", []string{"1.9"}},
		{"SELECT ROUND(2.5e0), ROUND(3.5e0), ROUND(-2.5e0), ROUND(2.5), ROUND(-2.5), ROUND(1.25e0, 1)", []string{"2", "4", "-2", "3", "-3", "1.2"}},
		{"SELECT HEX(255), HEX('ab')", []string{"FF", "6162"}},
		// A DOUBLE over integers and DECIMALs too (functions/variance.go;
		// GMS typed them as the argument: 2, 1.21).
		{"SELECT VARIANCE(a), VAR_SAMP(a), STDDEV_POP(a), STDDEV_SAMP(a), VAR_SAMP(e), STD(e) FROM (SELECT 1 a, 1.10 e UNION ALL SELECT 2, 2.20 UNION ALL SELECT 4, 3.30) t",
			// Printed with their DECIMAL argument's scale plus 4
			// (doubledecimals.go), as MySQL and MariaDB print them.
			[]string{"1.5556", "2.3333", "1.2472", "1.5275", "1.21", "0.898146"}},
	} {
		got := queryRows(t, db, tc.q)
		if len(got) != 1 || !reflect.DeepEqual(got[0], tc.want) {
			t.Errorf("%s: %v, want %v", tc.q, got, tc.want)
		}
	}
}
