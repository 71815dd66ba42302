package leakcheck

import (
	"strings"
	"testing"
	"time"
)

// TestRunningFindsAndForgets: a goroutine running here is reported with
// its stack, and not once it has ended.
func TestRunningFindsAndForgets(t *testing.T) {
	stop, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		<-stop
	}()
	found := false
	for _, s := range Running() {
		if strings.Contains(s, "petrel/internal/leakcheck.TestRunningFindsAndForgets") {
			found = true
		}
	}
	if !found {
		t.Fatal("the running goroutine was not reported")
	}
	close(stop)
	<-ended
	if left := Wait(2 * time.Second); len(left) != 0 {
		t.Fatalf("an ended goroutine is still reported:\n%s", strings.Join(left, "\n\n"))
	}
}
