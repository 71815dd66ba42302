package fastpath

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestParamText reads statements into shapes: the scenarios in
// testdata/textparam say which literals become parameters (with their
// types and values) and which statements are declined.
func TestParamText(t *testing.T) {
	datadriven.Walk(t, "testdata/textparam", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			if td.Cmd != "shape" {
				t.Fatalf("unknown command %q", td.Cmd)
			}
			ts, ok := paramText(strings.TrimSpace(td.Input))
			if !ok {
				return "declined\n"
			}
			names := make([]string, 0, len(ts.binds))
			for n := range ts.binds {
				names = append(names, n)
			}
			sort.Slice(names, func(i, j int) bool {
				return len(names[i]) < len(names[j]) || len(names[i]) == len(names[j]) && names[i] < names[j]
			})
			var b strings.Builder
			fmt.Fprintln(&b, ts.shape)
			for _, n := range names {
				fmt.Fprintf(&b, "%s %s %q\n", n, ts.binds[n].Type, ts.binds[n].Value)
			}
			return b.String()
		})
	})
}
