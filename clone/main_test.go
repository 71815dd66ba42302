package clone

import (
	"testing"
	"time"

	"petrel/internal/leakcheck"
)

// TestMain fails the package's tests if a goroutine running Petrel code
// outlives them.
func TestMain(m *testing.M) {
	leakcheck.Main(m, 5*time.Second)
}
