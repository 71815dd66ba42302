package main

import (
	"strings"
	"testing"
)

// TestLabWithoutBinary: `petrel lab` with no petrel-lab next to petrel
// or on PATH says how to build it.
func TestLabWithoutBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out, errs strings.Builder
	if code := run([]string{"lab", "list"}, &out, &errs); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(errs.String(), "go build -o bin/petrel-lab ./cmd/petrel-lab") {
		t.Errorf("stderr %q", errs.String())
	}
}
