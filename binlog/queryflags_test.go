package binlog

import "testing"

// TestQueryNoForeignKeyChecks: a statement logged with
// foreign_key_checks=0 carries OPTION_NO_FOREIGN_KEY_CHECKS in its QUERY
// event's flags2, which ParseQuery reads back (a replica applies the
// statement with the checks off); other statements do not.
func TestQueryNoForeignKeyChecks(t *testing.T) {
	for _, flags := range []uint32{0, optionNoForeignKeyChecks} {
		q, err := ParseQuery(queryBodyFlags(7, "shop", "CREATE TABLE c (p INT, FOREIGN KEY (p) REFERENCES p (id))", 0, flags))
		if err != nil {
			t.Fatal(err)
		}
		if q.NoForeignKeyChecks != (flags != 0) || q.Database != "shop" || q.ThreadID != 7 {
			t.Errorf("flags2 %#x: %+v", flags, q)
		}
	}
	if optionNoForeignKeyChecks != 0x04000000 {
		t.Fatalf("OPTION_NO_FOREIGN_KEY_CHECKS is 1 << 26 in MySQL's binlog, not %#x", optionNoForeignKeyChecks)
	}
}
