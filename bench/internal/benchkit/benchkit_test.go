package benchkit

import (
	"strings"
	"testing"
	"time"
)

func TestGTIDCount(t *testing.T) {
	const uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562"
	for _, c := range []struct {
		set  string
		want int64
	}{
		{"", 0},
		{uuid + ":1-42", 42},
		{uuid + ":1", 1},
		{"3E11FA47-71CA-11E1-9E33-C80AA9429562:1-7:9-12", 7},
		{"aaaaaaaa-71ca-11e1-9e33-c80aa9429562:1-99,\n" + uuid + ":1-5", 5},
		{uuid + ":3-5", 0}, // not applied from the start
	} {
		got, err := GTIDCount(c.set, uuid)
		if err != nil || got != c.want {
			t.Errorf("GTIDCount(%q) = %d, %v; want %d", c.set, got, err, c.want)
		}
	}
	if _, err := GTIDCount(uuid+":1-x", uuid); err == nil {
		t.Error("GTIDCount accepted a bad interval")
	}
}

func TestMariaDBSeq(t *testing.T) {
	for _, c := range []struct {
		pos  string
		want int64
	}{{"", 0}, {"0-1-1234", 1234}, {"1-2-5,0-1-77", 77}} {
		got, err := MariaDBSeq(c.pos)
		if err != nil || got != c.want {
			t.Errorf("MariaDBSeq(%q) = %d, %v; want %d", c.pos, got, err, c.want)
		}
	}
}

func TestPositions(t *testing.T) {
	const uuid = "62eb7926-f83e-474c-9788-84a2e57ee7bf"
	for set, want := range map[string]int64{
		"":                            0,
		uuid + ":1-2032":              2032,
		"aaaa:1-5,\n" + uuid + ":1-7": 7,
		uuid + ":3-9":                 0,
	} {
		if got, err := GTIDCount(set, uuid); err != nil || got != want {
			t.Errorf("GTIDCount(%q) = %d, %v; want %d", set, got, err, want)
		}
	}
	if got, err := MariaDBSeq("0-1-1234"); err != nil || got != 1234 {
		t.Errorf("MariaDBSeq = %d, %v", got, err)
	}
}

func TestParseDuration(t *testing.T) {
	for in, want := range map[string]time.Duration{"20": 20 * time.Second, "1m30s": 90 * time.Second} {
		if got, err := ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "-3", "500ms", "x"} {
		if _, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) accepted", in)
		}
	}
}

func TestFieldsAndLastLines(t *testing.T) {
	if got := strings.Join(Fields(" a,b\tc\n d ,"), "|"); got != "a|b|c|d" {
		t.Errorf("Fields = %q", got)
	}
	if got := LastLines("1\n2\n3\n", 2); got != "2\n3" {
		t.Errorf("LastLines = %q", got)
	}
}
