package lab

import (
	"strings"
	"testing"
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

func TestGTIDContains(t *testing.T) {
	const a, b = "3e11fa47-71ca-11e1-9e33-c80aa9429562", "aaaaaaaa-71ca-11e1-9e33-c80aa9429562"
	for _, c := range []struct {
		super, sub string
		want       bool
	}{
		{"", "", true},
		{a + ":1-42", "", true},
		{"", a + ":1", false},
		{a + ":1-42", a + ":1-42", true},
		{a + ":1-41", a + ":1-42", false},
		{a + ":1-7:9-12", a + ":10-12", true},
		{a + ":1-7:9-12", a + ":7-9", false},
		{strings.ToUpper(a) + ":1-100,\n" + b + ":1-5", a + ":1-100," + b + ":1-5", true},
		{a + ":1-100", a + ":1-100," + b + ":1", false},
	} {
		got, err := GTIDContains(c.super, c.sub)
		if err != nil || got != c.want {
			t.Errorf("GTIDContains(%q, %q) = %v, %v; want %v", c.super, c.sub, got, err, c.want)
		}
	}
	for _, bad := range []string{a + ":1-x", a, a + ":5-3"} {
		if _, err := GTIDContains(bad, ""); err == nil {
			t.Errorf("GTIDContains(%q) accepted a bad set", bad)
		}
	}
}
