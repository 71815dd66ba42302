package lab

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestFsyncDelayLibrary: a process with the library preloaded waits the
// injected delay at its fsync (dd conv=fsync makes one), and without the
// variable it does not.
func TestFsyncDelayLibrary(t *testing.T) {
	dir := t.TempDir()
	lib, err := BuildFsyncDelay(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	const delay = 300 * time.Millisecond
	run := func(env []string) time.Duration {
		t.Helper()
		cmd := exec.Command("dd", "if=/dev/zero", "of="+filepath.Join(dir, "f"), "bs=4096", "count=1", "conv=fsync")
		cmd.Env = append(os.Environ(), env...)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("dd: %v: %s", err, out)
		}
		return time.Since(start)
	}
	count := filepath.Join(dir, "count")
	if d := run(FsyncDelayEnv(lib, delay, count)); d < delay {
		t.Errorf("dd with a %v fsync delay preloaded took %v", delay, d)
	}
	if n, err := ReadFsyncCount(count); err != nil || n != 1 {
		t.Errorf("the library counted %d delayed calls (%v) for dd's one fsync", n, err)
	}
	run(FsyncDelayEnv(lib, delay, count))
	if n, err := ReadFsyncCount(count); err != nil || n != 2 {
		t.Errorf("the library counted %d delayed calls (%v) after a second dd", n, err)
	}
	if d := run([]string{"LD_PRELOAD=" + lib}); d >= delay {
		t.Errorf("dd with the library and no delay took %v", d)
	}
}
