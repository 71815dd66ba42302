package node_test

import (
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"petrel/internal/leakcheck"
)

// TestMain sets what the petrel process sets for itself (go-mysql-server's
// process-wide logrus logger quiet), and fails the package's tests if a
// goroutine running Petrel code outlives them: every wait and worker has
// an owner that stops it.
func TestMain(m *testing.M) {
	logrus.SetLevel(logrus.ErrorLevel)
	leakcheck.Main(m, 5*time.Second)
}
