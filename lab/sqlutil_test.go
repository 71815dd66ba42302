package lab

import "testing"

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
