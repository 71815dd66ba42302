package sqlmode

import "testing"

func TestUserAssign(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT @a := 5", "SELECT petrel_assign_user_var(@a ,  5)"},
		{"SELECT @n := @n + 1 AS rn, a FROM t", "SELECT petrel_assign_user_var(@n ,  @n + 1) AS rn, a FROM t"},
		{"SELECT @n := @n + 1 rn FROM t", "SELECT petrel_assign_user_var(@n ,  @n + 1) rn FROM t"},
		{"SELECT (@s := @s + b) FROM t", "SELECT (petrel_assign_user_var(@s ,  @s + b)) FROM t"},
		{"SELECT @a := @b := 1", "SELECT petrel_assign_user_var(@a ,  petrel_assign_user_var(@b ,  1))"},
		{"SELECT @d := NOW() + INTERVAL 1 DAY, 2", "SELECT petrel_assign_user_var(@d ,  NOW() + INTERVAL 1 DAY), 2"},
		{"SELECT @r := ROW_NUMBER() OVER (ORDER BY a) x FROM t", "SELECT petrel_assign_user_var(@r ,  ROW_NUMBER() OVER (ORDER BY a)) x FROM t"},
		{"SELECT @c := CASE WHEN a THEN 1 ELSE 2 END FROM t", "SELECT petrel_assign_user_var(@c ,  CASE WHEN a THEN 1 ELSE 2 END) FROM t"},
		{"SELECT a FROM t WHERE (@m := a) > 1", "SELECT a FROM t WHERE (petrel_assign_user_var(@m ,  a)) > 1"},
		{"SELECT @x := a IS NOT NULL FROM t", "SELECT petrel_assign_user_var(@x ,  a IS NOT NULL) FROM t"},
		// Left alone: SET (vitess parses it), := in a string or comment,
		// system variables.
		{"SET @a := 1", "SET @a := 1"},
		{"CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET @a := 1, @b := NEW.x", "CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET @a := 1, @b := NEW.x"},
		{"CREATE PROCEDURE p() BEGIN SET @n := 0; SELECT @n := @n + 1; END", "CREATE PROCEDURE p() BEGIN SET @n := 0; SELECT petrel_assign_user_var(@n ,  @n + 1); END"},
		{"SELECT '@a := 1' /* @b := 2 */", "SELECT '@a := 1' /* @b := 2 */"},
		{"SELECT 1", "SELECT 1"},
	} {
		got, added := userAssign(tc.in, false)
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
			continue
		}
		// Offsets map back: removing the added bytes gives the input
		// with := as ", ".
		var back []byte
		j := 0
		for i := 0; i < len(got); i++ {
			if j < len(added) && added[j] == i {
				j++
				continue
			}
			back = append(back, got[i])
		}
		if len(back) != len(tc.in) {
			t.Errorf("%q: %d bytes after removing the added ones, want %d", tc.in, len(back), len(tc.in))
		}
	}
}

func TestLockTableSingular(t *testing.T) {
	for in, want := range map[string]string{
		"LOCK TABLE t READ":          "LOCK TABLES t READ",
		"  lock table `t` WRITE":     "  lock tableS `t` WRITE",
		"LOCK TABLES t READ":         "LOCK TABLES t READ",
		"LOCK TABLEX":                "LOCK TABLEX",
		"SELECT 'LOCK TABLE t READ'": "SELECT 'LOCK TABLE t READ'",
	} {
		if got, _ := lockTableSingular(in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

func TestQuotedEngine(t *testing.T) {
	for in, want := range map[string]string{
		"CREATE TABLE t (a INT) ENGINE='MYISAM'":             "CREATE TABLE t (a INT) ENGINE= MYISAM ",
		"CREATE TABLE t (a INT) engine 'InnoDB' COMMENT 'x'": "CREATE TABLE t (a INT) engine  InnoDB  COMMENT 'x'",
		"CREATE TABLE t (a INT) ENGINE=InnoDB":               "CREATE TABLE t (a INT) ENGINE=InnoDB",
		"CREATE TABLE t (a INT) COMMENT='ENGINE=x'":          "CREATE TABLE t (a INT) COMMENT='ENGINE=x'",
		"CREATE TABLE t (a INT) ENGINE='my isam'":            "CREATE TABLE t (a INT) ENGINE='my isam'",
	} {
		if got := quotedEngine(in, false); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

func TestLockClause(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		wait     LockWait
	}{
		{"SELECT * FROM t FOR UPDATE", "SELECT * FROM t FOR UPDATE", LockWaitBlock},
		{"SELECT * FROM t FOR SHARE", "SELECT * FROM t FOR UPDATE", LockWaitBlock},
		{"SELECT * FROM t FOR UPDATE NOWAIT", "SELECT * FROM t FOR UPDATE       ", LockWaitNoWait},
		{"SELECT * FROM t FOR UPDATE SKIP LOCKED", "SELECT * FROM t FOR UPDATE SKIP LOCKED", LockWaitSkip},
		{"SELECT * FROM t FOR SHARE SKIP LOCKED", "SELECT * FROM t FOR UPDATE SKIP LOCKED", LockWaitSkip},
		{"SELECT * FROM t, u FOR UPDATE OF t, u NOWAIT", "SELECT * FROM t, u FOR UPDATE               ", LockWaitNoWait},
		{"SELECT 'FOR SHARE NOWAIT' FROM t", "SELECT 'FOR SHARE NOWAIT' FROM t", LockWaitBlock},
	} {
		got, added := lockClause(tc.in, false)
		if got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
		if len(got)-len(added) != len(tc.in) {
			t.Errorf("%q: %d bytes added, text grew by %d", tc.in, len(added), len(got)-len(tc.in))
		}
		if w := LockWaitOf(tc.in); w != tc.wait {
			t.Errorf("%q: LockWaitOf = %d, want %d", tc.in, w, tc.wait)
		}
	}
}
