package proxy

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestClassify replays testdata/classify: each "classify" block holds one
// statement per line and prints its kind, why, and its hint, database or
// proxy setting.
func TestClassify(t *testing.T) {
	datadriven.RunTest(t, "testdata/classify", func(t *testing.T, td *datadriven.TestData) string {
		if td.Cmd != "classify" {
			t.Fatalf("unknown command %q", td.Cmd)
		}
		var b strings.Builder
		for _, q := range strings.Split(strings.TrimSpace(td.Input), "\n") {
			s := Classify(q)
			fmt.Fprintf(&b, "%s: %s (%s)", q, s.Kind, s.Why)
			if s.Hint != nil {
				fmt.Fprintf(&b, " hint=%s", *s.Hint)
			}
			if s.DB != "" {
				fmt.Fprintf(&b, " db=%s", s.DB)
			}
			if s.Kind == KindProxySet {
				if s.Err != nil {
					fmt.Fprintf(&b, " error: %v", s.Err)
				} else {
					fmt.Fprintf(&b, " mode=%s", s.Mode)
				}
			}
			b.WriteString("\n")
		}
		return b.String()
	})
}
