package sqlmode

import "testing"

func TestIntervalUnitsQuoted(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"SELECT DATE_ADD(d, INTERVAL '1:30' HOUR_MINUTE) FROM t", "SELECT DATE_ADD(d, INTERVAL '1:30' `HOUR_MINUTE`) FROM t"},
		{"SELECT d + interval (a) day_hour, d - INTERVAL '1-2' YEAR_MONTH", "SELECT d + interval (a) `day_hour`, d - INTERVAL '1-2' `YEAR_MONTH`"},
		// EXTRACT's unit, a simple unit and an event's schedule keep
		// the keyword, which their rules take.
		{"SELECT EXTRACT(HOUR_MINUTE FROM d), d + INTERVAL 1 DAY", ""},
		{"CREATE EVENT e ON SCHEDULE EVERY '1:30' HOUR_MINUTE STARTS NOW() + INTERVAL '1:30' HOUR_MINUTE DO SELECT 1", ""},
		{"SELECT 'INTERVAL 1 HOUR_MINUTE'", ""},
		{"SELECT INTERVAL(5, 1, 3, f(7, 8)), d + INTERVAL (1) DAY, d - INTERVAL (SELECT 1) DAY", "SELECT `INTERVAL`(5, 1, 3, f(7, 8)), d + INTERVAL (1) DAY, d - INTERVAL (SELECT 1) DAY"},
	} {
		got, added := intervalUnits(tc.q, false)
		checkInsertions(t, tc.q, tc.want, got, added) // quantified_internal_test.go
		for _, a := range added {
			if got[a] != '`' {
				t.Errorf("%s: offset %d is %q, not a backquote", tc.q, a, got[a])
			}
		}
	}
}
