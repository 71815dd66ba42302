package sqlmode

import "testing"

func TestTriggerBody(t *testing.T) {
	const head = "CREATE DEFINER = `u`@`h` TRIGGER t BEFORE INSERT ON x FOR EACH ROW "
	for _, c := range []struct{ body, rest string }{
		{"IF NEW.a < 0 THEN SET NEW.a = 0; END IF", ""},
		{"IF (NEW.a < 0) THEN IF IF(NEW.b, 1, 0) THEN SET NEW.a = 0; END IF; ELSEIF NEW.a > 9 THEN SET NEW.a = 9; END IF", "; SELECT 1"},
		{"CASE NEW.b WHEN 10 THEN SET NEW.a = CASE WHEN NEW.a THEN 1 END; ELSE BEGIN END; END CASE", ";"},
		{"SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'a;b'", "; SELECT 2"},
		{"WHILE NEW.a < 5 DO SET NEW.a = REPEAT('x', 2); END WHILE", ""},
	} {
		q := head + c.body + c.rest
		r, added, span, ok := TriggerBody(q, false)
		if !ok || q[span.Start:span.End] != c.body {
			t.Fatalf("%s: body %q, %v", q, q[span.Start:span.End], ok)
		}
		if want := head + "BEGIN " + c.body + "; END" + c.rest; r != want {
			t.Fatalf("rewritten %q, want %q", r, want)
		}
		if OriginalOffset(len(r), added) != len(q) {
			t.Fatalf("%s: offsets %v", q, added)
		}
	}
	for _, q := range []string{
		"CREATE TRIGGER t BEFORE INSERT ON x FOR EACH ROW SET NEW.a = 1",
		"CREATE TRIGGER t BEFORE INSERT ON x FOR EACH ROW BEGIN IF 1 THEN SET NEW.a = 1; END IF; END",
		"SELECT 'CREATE TRIGGER t BEFORE INSERT ON x FOR EACH ROW IF 1 THEN SET NEW.a = 1; END IF'",
	} {
		if r, _, _, ok := TriggerBody(q, false); ok || r != q {
			t.Fatalf("%s: rewritten %q", q, r)
		}
	}
}
