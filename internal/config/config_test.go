package config

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	f, err := Parse(strings.NewReader(`
# comment
[mysqld]
server-id = 7
log_bin
read_only=ON   # trailing comment
[petrel]
Port = "3310"
`), "my.cnf")
	if err != nil {
		t.Fatal(err)
	}
	m := f.Merged("mysqld", "petrel")
	want := map[string]string{"server_id": "7", "log_bin": "ON", "read_only": "ON", "port": "3310"}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %q, want %q (all: %v)", k, m[k], v, m)
		}
	}
	for _, bad := range []string{"[mysqld\nx=1", "x=1", "[m]\n!include /etc/x", "[m]\n=3"} {
		if _, err := Parse(strings.NewReader(bad), "bad.cnf"); err == nil || !strings.Contains(err.Error(), "bad.cnf:") {
			t.Errorf("%q: error %v, want one naming the file and line", bad, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add("[mysqld]\nport=3306\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = Parse(strings.NewReader(s), "fuzz.cnf")
	})
}
