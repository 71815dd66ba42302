package benchkit

import (
	"os"
	"path/filepath"
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

func TestFields(t *testing.T) {
	if got := strings.Join(Fields(" a,b\tc\n d ,"), "|"); got != "a|b|c|d" {
		t.Errorf("Fields = %q", got)
	}
}

func TestOutDir(t *testing.T) {
	if got, err := OutDir("/tmp/reports"); err != nil || got != "/tmp/reports" {
		t.Errorf("OutDir(/tmp/reports) = %q, %v", got, err)
	}
	got, err := OutDir("")
	if err != nil || !filepath.IsAbs(got) || !strings.HasSuffix(got, filepath.Join("bench", "out")) {
		t.Errorf("OutDir(\"\") = %q, %v; want <module root>/bench/out", got, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Dir(got)), "go.mod")); err != nil {
		t.Errorf("OutDir(\"\") = %q is not under the module root: %v", got, err)
	}
}
