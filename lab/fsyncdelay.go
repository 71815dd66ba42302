package lab

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// The fsync delay library gives a server that is not Petrel (MariaDB) the
// injected disk latency Petrel gets from petrel_storage_sync_delay: a
// small shared library, preloaded (LD_PRELOAD), that sleeps before every
// fsync and fdatasync the process makes, as a networked disk would make
// it wait. It stands in for a device-mapper `delay` target on a loop
// device where the kernel has no device mapper (a Firecracker guest, a
// container): it delays exactly the calls Petrel's setting delays (no
// reads, no plain writes), in the server process only.

// FsyncDelayEnvVar carries the delay, in microseconds, to the library.
const FsyncDelayEnvVar = "PETREL_LAB_FSYNC_DELAY_US"

const fsyncDelaySource = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>

static long delay_ns = -1;

static void wait_disk(void) {
	if (delay_ns < 0) {
		const char *s = getenv("` + FsyncDelayEnvVar + `");
		long v = s ? atol(s) * 1000L : 0;
		__atomic_store_n(&delay_ns, v > 0 ? v : 0, __ATOMIC_RELAXED);
	}
	if (delay_ns > 0) {
		struct timespec ts = {delay_ns / 1000000000L, delay_ns % 1000000000L};
		int saved = errno;
		while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
		}
		errno = saved;
	}
}

int fsync(int fd) {
	static int (*real)(int);
	if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	wait_disk();
	return real(fd);
}

int fdatasync(int fd) {
	static int (*real)(int);
	if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
	wait_disk();
	return real(fd);
}
`

// BuildFsyncDelay compiles the fsync delay library into dir with the C
// compiler (cc) and returns its path.
func BuildFsyncDelay(ctx context.Context, dir string) (string, error) {
	cc, err := exec.LookPath("cc")
	if err != nil {
		return "", fmt.Errorf("lab: the fsync delay library needs a C compiler (apt-get install gcc): %w", err)
	}
	src := filepath.Join(dir, "fsyncdelay.c")
	lib := filepath.Join(dir, "fsyncdelay.so")
	if err := os.WriteFile(src, []byte(fsyncDelaySource), 0o644); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, cc, "-shared", "-fPIC", "-O2", "-o", lib, src, "-ldl").CombinedOutput(); err != nil {
		return "", fmt.Errorf("lab: build the fsync delay library: %w: %s", err, out)
	}
	return lib, nil
}

// FsyncDelayEnv is the environment that preloads lib with delay d.
func FsyncDelayEnv(lib string, d time.Duration) []string {
	return []string{"LD_PRELOAD=" + lib, FsyncDelayEnvVar + "=" + strconv.FormatInt(d.Microseconds(), 10)}
}
