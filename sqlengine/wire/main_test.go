package wire

import (
	"testing"
	"time"

	"petrel/internal/leakcheck"
)

// TestMain fails the package's tests if a goroutine running Petrel code
// outlives them: every wait and worker has an owner that stops it.
func TestMain(m *testing.M) {
	leakcheck.Main(m, 5*time.Second)
}
