package sqlmode

import "strings"

// MySQL 8's combination modes: setting one sets the modes it stands for,
// and @@sql_mode then lists them with it. GMS kept the name alone, so
// SET sql_mode = 'TRADITIONAL' left strict mode off.
var combined = map[string][]string{
	"ANSI":        {"REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "ONLY_FULL_GROUP_BY"},
	"TRADITIONAL": {"STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "NO_ZERO_IN_DATE", "NO_ZERO_DATE", "ERROR_FOR_DIVISION_BY_ZERO", "NO_ENGINE_SUBSTITUTION"},
}

// modeOrder is the order MySQL lists sql_mode's flags in (their bits).
var modeOrder = []string{
	"REAL_AS_FLOAT", "PIPES_AS_CONCAT", "ANSI_QUOTES", "IGNORE_SPACE", "ONLY_FULL_GROUP_BY",
	"NO_UNSIGNED_SUBTRACTION", "NO_DIR_IN_CREATE", "ANSI", "NO_AUTO_VALUE_ON_ZERO", "NO_BACKSLASH_ESCAPES",
	"STRICT_TRANS_TABLES", "STRICT_ALL_TABLES", "NO_ZERO_IN_DATE", "NO_ZERO_DATE", "ALLOW_INVALID_DATES",
	"ERROR_FOR_DIVISION_BY_ZERO", "TRADITIONAL", "NO_AUTO_CREATE_USER", "HIGH_NOT_PRECEDENCE",
	"NO_ENGINE_SUBSTITUTION", "PAD_CHAR_TO_FULL_LENGTH", "TIME_TRUNCATE_FRACTIONAL",
}

// ExpandCombined is a sql_mode value with its combination modes (ANSI,
// TRADITIONAL) expanded, the flags upper-cased, without duplicates, in
// MySQL's order; names it does not know keep their place after the
// known ones (GMS then refuses them as before). ok is false when the
// value holds no combination mode (it is then returned unchanged).
func ExpandCombined(mode string) (string, bool) {
	parts := strings.Split(mode, ",")
	has := map[string]bool{}
	found := false
	var unknown []string
	for _, p := range parts {
		p = strings.ToUpper(strings.TrimSpace(p))
		if p == "" {
			continue
		}
		if sub, ok := combined[p]; ok {
			found = true
			for _, f := range sub {
				has[f] = true
			}
		}
		if !has[p] && !known(p) {
			unknown = append(unknown, p)
		}
		has[p] = true
	}
	if !found {
		return mode, false
	}
	var out []string
	for _, f := range modeOrder {
		if has[f] {
			out = append(out, f)
		}
	}
	return strings.Join(append(out, unknown...), ","), true
}

func known(f string) bool {
	for _, m := range modeOrder {
		if m == f {
			return true
		}
	}
	return false
}
