package node_test

import (
	"encoding/binary"
	"fmt"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/mysql"
)

// changeUser sends COM_CHANGE_USER for user (password pw, database db)
// as a client does: a scramble of the login's salt first, then the
// answer to the server's AuthSwitchRequest. It returns the final reply.
func (f *fuzzConn) changeUser(t *testing.T, user, pw, db string) []byte {
	t.Helper()
	p := append([]byte{0x11}, user...)
	p = append(p, 0, 0) // an empty auth response (the server asks again)
	p = append(append(p, db...), 0)
	p = binary.LittleEndian.AppendUint16(p, 45)
	p = append(append(p, "mysql_native_password"...), 0)
	f.seq = 0
	if err := f.write(p); err != nil {
		t.Fatal(err)
	}
	sw, err := f.read(5 * time.Second)
	if err != nil || len(sw) < 2 || sw[0] != 0xfe {
		t.Fatalf("COM_CHANGE_USER: %x %v, want an AuthSwitchRequest", sw, err)
	}
	name := sw[1:]
	i := 0
	for i < len(name) && name[i] != 0 {
		i++
	}
	if string(name[:i]) != "mysql_native_password" || len(name) < i+21 {
		t.Fatalf("AuthSwitchRequest %q", sw)
	}
	salt := name[i+1 : i+21]
	var reply []byte
	if pw != "" {
		reply = mysql.ScrambleMysqlNativePassword(salt, []byte(pw))
	}
	if err := f.write(reply); err != nil {
		t.Fatal(err)
	}
	r, err := f.read(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// row runs q and returns its first row's values as text (NULL for
// NULL).
func (f *fuzzConn) row(t *testing.T, q string) []string {
	t.Helper()
	f.seq = 0
	if err := f.write(append([]byte{0x03}, q...)); err != nil {
		t.Fatal(err)
	}
	first, err := f.read(5 * time.Second)
	if err != nil || len(first) == 0 || first[0] == 0xff || first[0] == 0 {
		t.Fatalf("%s: %x %v", q, first, err)
	}
	var out []string
	eofs := 0
	for eofs < 2 {
		p, err := f.read(5 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case len(p) > 0 && p[0] == 0xfe && len(p) < 9:
			eofs++
		case eofs == 1 && out == nil:
			for len(p) > 0 {
				if p[0] == 0xfb {
					out, p = append(out, "NULL"), p[1:]
					continue
				}
				n := int(p[0]) // values here are short
				out, p = append(out, string(p[1:1+n])), p[1+n:]
			}
		}
	}
	return out
}

// COM_CHANGE_USER (1047 before): the connection logs in as another
// account and starts a fresh session as COM_RESET_CONNECTION does (user
// variables, temporary tables and the open transaction gone), with the
// database it names; a wrong password is 1045 and ends the connection
// (mtr's read_only).
func TestChangeUser(t *testing.T) {
	n, open := startNode(t)
	mustExec(t, open(""), "CREATE DATABASE test", "CREATE TABLE test.t (a INT)",
		"CREATE USER u1@'%' IDENTIFIED WITH mysql_native_password BY 'secret'", "GRANT ALL ON test.* TO u1@'%'",
		"CREATE USER u2@'%'")
	f, err := dialFuzz(n.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer f.c.Close()
	if err := f.login("root", "pw"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"USE test", "SET @v = 7", "CREATE TEMPORARY TABLE tmp (x INT)", "BEGIN", "INSERT INTO t VALUES (1)"} {
		if r, err := f.cmd(append([]byte{0x03}, q...)); err != nil || len(r) == 0 || r[0] != 0 {
			t.Fatalf("%s: %x %v", q, r, err)
		}
	}
	if r := f.changeUser(t, "u1", "secret", "test"); len(r) == 0 || r[0] != 0 {
		t.Fatalf("change to u1: %x", r)
	}
	if got := fmt.Sprint(f.row(t, "SELECT CURRENT_USER(), @v, DATABASE(), (SELECT COUNT(*) FROM t), (SELECT COUNT(*) FROM information_schema.tables WHERE table_name = 'tmp')")); got != "[u1@% NULL test 0 0]" {
		t.Errorf("after change to u1: %s", got)
	}
	if r := f.changeUser(t, "u2", "", ""); len(r) == 0 || r[0] != 0 {
		t.Fatalf("change to u2: %x", r)
	}
	if got := fmt.Sprint(f.row(t, "SELECT CURRENT_USER(), DATABASE()")); got != "[u2@% NULL]" {
		t.Errorf("after change to u2: %s", got)
	}
	r := f.changeUser(t, "u1", "wrong", "")
	if len(r) < 3 || r[0] != 0xff || binary.LittleEndian.Uint16(r[1:]) != 1045 {
		t.Fatalf("wrong password: %x, want error 1045", r)
	}
	if _, err := f.read(2 * time.Second); err == nil {
		t.Errorf("the connection is open after a failed COM_CHANGE_USER")
	}
}
