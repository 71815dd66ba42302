package sqlengine

import (
	"testing"

	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// TestAliasCase checks that a lowercased table alias gets the case the
// statement wrote after AS, and that nothing else changes.
func TestAliasCase(t *testing.T) {
	for _, tc := range []struct{ q, table, want string }{
		{"SELECT * FROM (SELECT 1 AS one) AS A", "a", "A"},
		{"SELECT Foo.x FROM TT AS Foo", "foo", "Foo"},
		{"SELECT Foo.x FROM TT as `Foo`", "foo", "Foo"},
		{"SELECT Foo.x FROM TT\tAS\n Foo WHERE 1", "foo", "Foo"},
		{"SELECT A FROM t AS a", "a", "a"},         // the column A is not the alias
		{"SELECT Foo.x FROM TT Foo", "foo", "foo"}, // without AS: not recognised
		{"SELECT x FROM TT", "TT", "TT"},
		{"SELECT x FROM sbtest1 WHERE id = ?", "sbtest1", "sbtest1"},
		{"SELECT x FROM t AS Tx, t AS T", "t", "T"},
		{"SELECT 1", "", ""},
	} {
		fs := []*querypb.Field{{Name: "x", Table: tc.table}}
		aliasCase(tc.q, fs)
		if fs[0].Table != tc.want {
			t.Errorf("%q: table %q became %q, want %q", tc.q, tc.table, fs[0].Table, tc.want)
		}
	}
}

// TestMysqlFields checks the column definitions corrected for drivers.
func TestMysqlFields(t *testing.T) {
	fs := []*querypb.Field{
		{Name: "i", Type: sqltypes.Int32, Charset: 255},
		{Name: "f", Type: sqltypes.Float32, Charset: 255},
		{Name: "d", Type: sqltypes.Float64, Charset: 255, Decimals: 2},
		{Name: "y", Type: sqltypes.Year, Charset: 255, Flags: uint32(querypb.MySqlFlag_NOT_NULL_FLAG)},
		{Name: "b", Type: sqltypes.Bit, Charset: 255},
		{Name: "ts", Type: sqltypes.Timestamp, Charset: 255, Decimals: 6},
		{Name: "s", Type: sqltypes.VarChar, Charset: 255},
		{Name: "e", Type: sqltypes.Enum, Charset: 8},
	}
	mysqlFields(fs)
	want := []struct {
		charset, decimals, flags uint32
	}{
		{63, 0, 0},
		{63, notFixedDec, 0},
		{63, 2, 0},
		{63, 0, uint32(querypb.MySqlFlag_NOT_NULL_FLAG | querypb.MySqlFlag_UNSIGNED_FLAG | querypb.MySqlFlag_ZEROFILL_FLAG)},
		{63, 0, 0},
		{63, 6, 0},
		{255, 0, 0},
		{8, 0, 0},
	}
	for i, f := range fs {
		if f.Charset != want[i].charset || f.Decimals != want[i].decimals || f.Flags != want[i].flags {
			t.Errorf("%s: charset %d decimals %d flags %#x; want %d %d %#x", f.Name, f.Charset, f.Decimals, f.Flags, want[i].charset, want[i].decimals, want[i].flags)
		}
	}
}

func TestHasASKeyword(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT c FROM sbtest1 WHERE id = ?": false,
		"SELECT 1 AS A":                      true,
		"SELECT x FROM t as`Foo`":            true,
		"SELECT alias, has FROM t":           false,
		"AS x":                               false,
		"":                                   false,
	} {
		if got := hasASKeyword(q); got != want {
			t.Errorf("hasASKeyword(%q) = %v, want %v", q, got, want)
		}
	}
}

func BenchmarkAliasCasePointSelect(b *testing.B) {
	fs := []*querypb.Field{{Name: "c", Table: "sbtest1"}}
	for i := 0; i < b.N; i++ {
		aliasCase("SELECT c FROM sbtest1 WHERE id=?", fs)
	}
}

// TestTrailingComments: a column named by its expression loses a trailing
// comment; table columns and names that only contain one keep theirs.
func TestTrailingComments(t *testing.T) {
	for _, tc := range []struct{ name, table, want string }{
		{"RELEASE_LOCK('v01')                /* Let the first row evaluate f1 */", "", "RELEASE_LOCK('v01')"},
		{"1 + 1 /* a */ /* b */", "", "1 + 1"},
		{"'/* kept */'", "", "'/* kept */'"},
		{"c /* x */ + 1", "", "c /* x */ + 1"},
		{"weird/*x*/", "t", "weird/*x*/"}, // a table's column
		{"/* only */", "", "/* only */"},
	} {
		fs := []*querypb.Field{{Name: tc.name, OrgName: tc.name, OrgTable: tc.table}}
		trailingComments(fs)
		if fs[0].Name != tc.want {
			t.Errorf("%q: %q, want %q", tc.name, fs[0].Name, tc.want)
		}
	}
}
