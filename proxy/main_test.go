package proxy

import (
	"testing"
	"time"

	"petrel/internal/leakcheck"
)

func TestMain(m *testing.M) { leakcheck.Main(m, 5*time.Second) }
