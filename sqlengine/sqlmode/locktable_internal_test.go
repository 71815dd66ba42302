package sqlmode

import (
	"reflect"
	"testing"
)

func TestAlterSchema(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		added    []int
	}{
		{"ALTER SCHEMA s1 DEFAULT CHARACTER SET utf8", "ALTER DATABASE s1 DEFAULT CHARACTER SET utf8", []int{12, 13}},
		{"  alter  schema `s` CHARSET latin1", "  alter  DATABASE `s` CHARSET latin1", []int{15, 16}},
		{"ALTER SCHEMAS x", "ALTER SCHEMAS x", nil},
		{"ALTER DATABASE s CHARSET latin1", "ALTER DATABASE s CHARSET latin1", nil},
		{"ALTER TABLE schema ADD c INT", "ALTER TABLE schema ADD c INT", nil},
	} {
		got, added := alterSchema(tc.in)
		if got != tc.want || !reflect.DeepEqual(added, tc.added) {
			t.Errorf("%q: got %q %v, want %q %v", tc.in, got, added, tc.want, tc.added)
		}
	}
}

func TestDropTables(t *testing.T) {
	for in, want := range map[string]string{
		"DROP TABLES t1, t2":                 "DROP TABLE  t1, t2",
		"drop temporary tables if exists t1": "drop temporary table  if exists t1",
		"DROP TABLE tables":                  "DROP TABLE tables",
		"SELECT 'DROP TABLES'":               "SELECT 'DROP TABLES'",
	} {
		if got := dropTables(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}
