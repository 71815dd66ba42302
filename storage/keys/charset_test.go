package keys

import (
	"encoding/hex"
	"errors"
	"math/rand"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// TestCheckRow checks which strings each character set holds and what the
// error says about the others.
func TestCheckRow(t *testing.T) {
	col := func(name string, c sql.CollationID) *sql.Column {
		return &sql.Column{Name: name, Type: types.MustCreateString(sqltypes.VarChar, 20, c)}
	}
	cases := []struct {
		coll    sql.CollationID
		val     string
		bad     string // the escaped offending part; "" when accepted
		charset string
	}{
		{sql.Collation_utf8mb4_0900_ai_ci, "bob é 中 😀", "", ""},
		{sql.Collation_utf8mb4_0900_ai_ci, "ab\xe9cd", `\xE9cd`, "utf8mb4"},
		{sql.Collation_utf8mb4_bin, "\xff", `\xFF`, "utf8mb4"},
		{sql.Collation_utf8mb3_general_ci, "é 中", "", ""},
		{sql.Collation_utf8mb3_general_ci, "a😀b", `\xF0\x9F\x98\x80b`, "utf8mb3"},
		{sql.Collation_latin1_swedish_ci, "café €", "", ""},
		{sql.Collation_latin1_swedish_ci, "xĀyz1234", `\xC4\x80yz12...`, "latin1"},
		{sql.Collation_ascii_general_ci, "plain", "", ""},
		{sql.Collation_ascii_general_ci, "é", `\xC3\xA9`, "ascii"},
		{sql.Collation_binary, "\xff\x00", "", ""},
	}
	for _, tc := range cases {
		sch := sql.Schema{{Name: "id", Type: types.Int32}, col("name", tc.coll)}
		err := CheckRow(sch, nil, sql.Row{int32(1), tc.val})
		if tc.bad == "" {
			if err != nil {
				t.Errorf("%s %q: %v", tc.coll.Name(), tc.val, err)
			}
			continue
		}
		var se *StringError
		if !errors.As(err, &se) {
			t.Fatalf("%s %q: want *StringError, got %v", tc.coll.Name(), tc.val, err)
		}
		if se.Column != "name" || se.Value != tc.bad || se.Charset != tc.charset || !errors.Is(err, ErrInvalidValue) {
			t.Errorf("%s %q: got %+v (%v), want value %q charset %s", tc.coll.Name(), tc.val, *se, err, tc.bad, tc.charset)
		}
	}

	// An UPDATE does not re-check a value the row already held (rows
	// stored before the check existed stay updatable), only new ones.
	sch := sql.Schema{col("a", sql.Collation_utf8mb4_0900_ai_ci), col("b", sql.Collation_utf8mb4_0900_ai_ci)}
	old := sql.Row{"\xe9", "x"}
	if err := CheckRow(sch, old, sql.Row{"\xe9", "y"}); err != nil {
		t.Errorf("unchanged invalid value re-checked: %v", err)
	}
	if err := CheckRow(sch, old, sql.Row{"\xe9", "\xe8"}); err == nil {
		t.Errorf("new invalid value accepted")
	}
}

// TestKeyFormatGolden pins the stored key bytes of strings under the
// collations Petrel offers. Keys already on disk are never re-encoded, so
// a change here breaks existing datadirs' lookups and uniqueness: it needs
// a key format version on the table instead.
func TestKeyFormatGolden(t *testing.T) {
	cases := []struct {
		coll sql.CollationID
		val  string
		want string
	}{
		// utf8mb4_0900_bin (GMS's and Petrel's old default): code points.
		{sql.Collation_utf8mb4_0900_bin, "Bob", "010242026f026200"},
		{sql.Collation_utf8mb4_0900_bin, "bob", "010262026f026200"},
		// utf8mb4_0900_ai_ci (the default now): case and accents fold.
		{sql.Collation_utf8mb4_0900_ai_ci, "Bob", "01031b9d031cae031b9d00"},
		{sql.Collation_utf8mb4_0900_ai_ci, "bób", "01031b9d031cae031b9d00"},
		{sql.Collation_utf8mb4_bin, "Bob", "010242026f026200"},
		{sql.Collation_utf8mb4_general_ci, "Bob", "010242024f024200"},
		{sql.Collation_latin1_swedish_ci, "Bob", "010242024f024200"},
	}
	for _, tc := range cases {
		typ := types.MustCreateString(sqltypes.VarChar, 20, tc.coll)
		got, err := AppendValue(nil, typ, tc.val)
		if err != nil {
			t.Fatal(err)
		}
		if hex.EncodeToString(got) != tc.want {
			t.Errorf("%s %q: key %x, want %s", tc.coll.Name(), tc.val, got, tc.want)
		}
	}
}

// TestTextComparerMatchesGMS: TextComparer agrees with GMS's Compare, whose
// order the key encoding and the range fast path's ORDER BY follow.
func TestTextComparerMatchesGMS(t *testing.T) {
	seed := testSeed(t)
	r := rand.New(rand.NewSource(seed))
	gen := genText(12)
	for _, coll := range []sql.CollationID{sql.Collation_utf8mb4_0900_ai_ci, sql.Collation_utf8mb4_0900_bin, sql.Collation_utf8mb4_bin,
		sql.Collation_utf8mb4_general_ci, sql.Collation_utf8mb4_unicode_ci, sql.Collation_latin1_swedish_ci, sql.Collation_utf8mb3_general_ci} {
		typ := types.MustCreateString(sqltypes.VarChar, 100, coll)
		cmp, ok := TextComparer(coll)
		if !ok {
			t.Fatalf("%s: no comparer", coll.Name())
		}
		vals := []string{"", "a", "A", "a ", "ab", "é", "e", "\xe9", "\xe9a", "😀"}
		for i := 0; i < 300; i++ {
			vals = append(vals, gen(r).(string))
		}
		for _, a := range vals {
			for _, b := range vals[:40] {
				got := cmp(a, b)
				want, err := typ.Compare(testCtx, a, b)
				if err != nil || got != sign(want) {
					t.Fatalf("seed %d, %s: TextComparer(%q, %q) = %d; GMS %d, %v", seed, coll.Name(), a, b, got, want, err)
				}
			}
		}
	}
}
