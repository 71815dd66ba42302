package lab

import (
	"context"
	"encoding/binary"
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

// FsyncDelayEnvVar carries the delay, in microseconds, to the library;
// FsyncCountEnvVar names a file whose first 8 bytes it keeps as a count of
// the calls it delayed (a shared mapping: ReadFsyncCount reads it while
// the server runs).
const (
	FsyncDelayEnvVar = "PETREL_LAB_FSYNC_DELAY_US"
	FsyncCountEnvVar = "PETREL_LAB_FSYNC_COUNT_FILE"
)

const fsyncDelaySource = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static long delay_ns = -1;
static unsigned long long *count; /* shared with the count file */
static int count_tried;

static void open_count(void) {
	const char *path = getenv("` + FsyncCountEnvVar + `");
	if (!path) return;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) return;
	if (ftruncate(fd, 8) == 0) {
		void *p = mmap(0, 8, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p != MAP_FAILED) count = p;
	}
	close(fd);
}

static void wait_disk(void) {
	if (delay_ns < 0) {
		const char *s = getenv("` + FsyncDelayEnvVar + `");
		long v = s ? atol(s) * 1000L : 0;
		__atomic_store_n(&delay_ns, v > 0 ? v : 0, __ATOMIC_RELAXED);
	}
	if (!__atomic_exchange_n(&count_tried, 1, __ATOMIC_ACQ_REL)) open_count();
	if (delay_ns > 0) {
		if (count) __atomic_add_fetch(count, 1, __ATOMIC_RELAXED);
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

// FsyncDelayEnv is the environment that preloads lib with delay d,
// counting the delayed calls in countFile ("": not counted).
func FsyncDelayEnv(lib string, d time.Duration, countFile string) []string {
	env := []string{"LD_PRELOAD=" + lib, FsyncDelayEnvVar + "=" + strconv.FormatInt(d.Microseconds(), 10)}
	if countFile != "" {
		env = append(env, FsyncCountEnvVar+"="+countFile)
	}
	return env
}

// ReadFsyncCount reads how many calls the library delayed so far in the
// process given countFile (0 before its first call). The library writes
// the count in the host's byte order: little-endian on every host the lab
// runs on (amd64, arm64).
func ReadFsyncCount(countFile string) (uint64, error) {
	b, err := os.ReadFile(countFile)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(b) < 8 {
		return 0, nil
	}
	return binary.LittleEndian.Uint64(b), nil
}
