package enginetest

import (
	"os"
	"testing"

	gmstest "github.com/dolthub/go-mysql-server/enginetest"
)

// TestEngineSuites runs every GMS suite in Suites, one subtest per suite,
// against the backend named by PETREL_ENGINETEST_BACKEND. Select suites
// with -run 'TestEngineSuites/^TestQueries$'. cmd/enginecount runs it per
// suite and counts the leaf subtests that pass and fail.
func TestEngineSuites(t *testing.T) {
	if os.Getenv(EnvRun) != "1" {
		t.Skipf("set %s=1 to run GMS's engine suites (see docs/ENGINETEST.md)", EnvRun)
	}
	backend := os.Getenv(EnvBackend)
	for _, s := range Suites {
		t.Run(s.Name, func(t *testing.T) {
			switch backend {
			case "", "petrel":
				h := NewHarness()
				h.Server = os.Getenv(EnvServer) == "1"
				defer h.Close()
				s.Run(t, h)
			case "memory":
				s.Run(t, gmstest.NewDefaultMemoryHarness())
			default:
				t.Fatalf("unknown %s %q", EnvBackend, backend)
			}
		})
	}
}
