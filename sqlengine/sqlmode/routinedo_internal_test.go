package sqlmode

import "testing"

func TestBodyDoRewritten(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"create trigger trgi before insert on t1 for each row case new.b when 10 then set new.a = new.b; else do 1; end case",
			"create trigger trgi before insert on t1 for each row case new.b when 10 then set new.a = new.b; else IF CONCAT(ISNULL(1)) = 'x' THEN SET @petrel_do = 0; END IF; end case"},
		{"CREATE PROCEDURE p() BEGIN DO GET_LOCK('a', 0), f(1, 2); END",
			"CREATE PROCEDURE p() BEGIN IF CONCAT(ISNULL(GET_LOCK('a', 0)), ISNULL(f(1, 2))) = 'x' THEN SET @petrel_do = 0; END IF; END"},
		{"CREATE TRIGGER t BEFORE INSERT ON t1 FOR EACH ROW DO 1", "CREATE TRIGGER t BEFORE INSERT ON t1 FOR EACH ROW IF CONCAT(ISNULL(1)) = 'x' THEN SET @petrel_do = 0; END IF"},
		// WHILE's DO, an event's DO, a top-level DO, a string: left.
		{"CREATE PROCEDURE p() BEGIN WHILE x DO SET x = 0; END WHILE; END", ""},
		{"CREATE EVENT e ON SCHEDULE EVERY 1 DAY DO SELECT 'x; DO 1'", ""},
		{"DO 1", ""},
	} {
		got, added := bodyDo(tc.q, false)
		if tc.want == "" {
			if got != tc.q || added != nil {
				t.Errorf("%s: rewritten to %s", tc.q, got)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.q, got, tc.want)
		}
	}
}
