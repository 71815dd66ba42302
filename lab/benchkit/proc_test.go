package benchkit

import (
	"os"
	"testing"
	"time"
)

func TestProcessCPU(t *testing.T) {
	before, err := ProcessCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Burn CPU until the kernel has counted at least two more ticks.
	deadline := time.Now().Add(2 * time.Second)
	var after time.Duration
	for n := 0; time.Now().Before(deadline); n++ {
		_ = n * n
		if n%100000 == 0 {
			if after, err = ProcessCPU(os.Getpid()); err != nil {
				t.Fatal(err)
			}
			if after-before >= 20*time.Millisecond {
				break
			}
		}
	}
	if after-before < 20*time.Millisecond {
		t.Errorf("ProcessCPU(self) rose %v after up to 2 s of spinning, want >= 20ms", after-before)
	}
	if _, err := ProcessCPU(1 << 30); err == nil {
		t.Error("ProcessCPU of a pid that does not exist: no error")
	}
}
