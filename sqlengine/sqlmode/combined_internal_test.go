package sqlmode

import "testing"

func TestExpandCombined(t *testing.T) {
	for in, want := range map[string]string{
		"traditional": "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_ENGINE_SUBSTITUTION",
		"ANSI":        "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ONLY_FULL_GROUP_BY,ANSI",
		"NO_BACKSLASH_ESCAPES, ansi,STRICT_TRANS_TABLES": "REAL_AS_FLOAT,PIPES_AS_CONCAT,ANSI_QUOTES,IGNORE_SPACE,ONLY_FULL_GROUP_BY,ANSI,NO_BACKSLASH_ESCAPES,STRICT_TRANS_TABLES",
		"TRADITIONAL,BOGUS": "STRICT_TRANS_TABLES,STRICT_ALL_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,TRADITIONAL,NO_ENGINE_SUBSTITUTION,BOGUS",
	} {
		if got, ok := ExpandCombined(in); !ok || got != want {
			t.Errorf("ExpandCombined(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	if got, ok := ExpandCombined("STRICT_TRANS_TABLES,ONLY_FULL_GROUP_BY"); ok || got != "STRICT_TRANS_TABLES,ONLY_FULL_GROUP_BY" {
		t.Errorf("no combination mode: %q, %v", got, ok)
	}
}
