package benchkit

import (
	"strings"
	"testing"
	"time"
)

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
