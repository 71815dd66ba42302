package sqlmode

import "testing"

func TestAlterTableOptions(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"ALTER TABLE t DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci", "ALTER TABLE t DEFAULT CHARACTER SET=utf8mb4, COLLATE=utf8mb4_unicode_ci"},
		{"ALTER TABLE d.t ENGINE=InnoDB COMMENT='orders'", "ALTER TABLE d.t ENGINE=InnoDB, COMMENT='orders'"},
		{"alter table `t` auto_increment = 5 comment 'a';", "alter table `t` auto_increment = 5, comment 'a';"},
		{"ALTER TABLE t ENGINE=InnoDB, DEFAULT CHARSET utf8mb4", "ALTER TABLE t ENGINE=InnoDB, DEFAULT CHARACTER SET utf8mb4"},
		{"ALTER TABLE t CHARSET latin1", "ALTER TABLE t CHARACTER SET latin1"},
		// Left as written: already vitess's form, or other clauses.
		{"ALTER TABLE t ENGINE=InnoDB, COMMENT='a'", "ALTER TABLE t ENGINE=InnoDB, COMMENT='a'"},
		{"ALTER TABLE t DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", "ALTER TABLE t DEFAULT CHARACTER SET utf8mb4, COLLATE utf8mb4_bin"},
		{"ALTER TABLE t DEFAULT ENGINE=InnoDB COMMENT 'x'", "ALTER TABLE t DEFAULT ENGINE=InnoDB COMMENT 'x'"},
		{"ALTER TABLE t ADD COLUMN c INT, ENGINE=InnoDB", "ALTER TABLE t ADD COLUMN c INT, ENGINE=InnoDB"},
		{"ALTER TABLE t ENGINE=InnoDB ADD COLUMN c INT", "ALTER TABLE t ENGINE=InnoDB ADD COLUMN c INT"},
		{"ALTER TABLE t COMMENT", "ALTER TABLE t COMMENT"},
		{"SELECT 'ALTER TABLE t ENGINE=x COMMENT=y'", "SELECT 'ALTER TABLE t ENGINE=x COMMENT=y'"},
	} {
		got, added := alterTableOptions(tc.in, false)
		if got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
			continue
		}
		if len(got)-len(tc.in) != len(added) {
			t.Errorf("%q: %d bytes added, %d offsets", tc.in, len(got)-len(tc.in), len(added))
		}
		for _, a := range added {
			if a < 0 || a >= len(got) {
				t.Errorf("%q: offset %d out of the text", tc.in, a)
			}
		}
	}
}
