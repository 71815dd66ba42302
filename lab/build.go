package lab

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// PetrelBinaryEnv names an environment variable that, when set, makes
// BuildPetrel return its value instead of building (for a binary built
// once by make, or a release build).
const PetrelBinaryEnv = "PETREL_BINARY"

const (
	// buildTimeout bounds go build when ctx has no deadline.
	buildTimeout = 10 * time.Minute
	// buildDirPrefix names per-process build directories in os.TempDir();
	// the owning pid follows it, so stale ones can be found and removed.
	buildDirPrefix = "petrel-lab-build-"
	// maxStaleBuildDirs bounds the stale-directory sweep.
	maxStaleBuildDirs = 256
)

// built caches a successful build for the life of the process. A failed or
// cancelled build is not cached, so a later caller with a longer deadline
// can retry.
var built struct {
	sync.Mutex
	path string
}

// BuildPetrel builds ./cmd/petrel once per process into a temporary
// directory and returns the binary's path. The module root is found by
// walking up from the working directory to go.mod. If $PETREL_BINARY is
// set, BuildPetrel returns it without building.
//
// The build directory is named after this process's pid; directories of
// earlier processes that no longer exist are removed on the next build, so
// test runs do not pile up binaries in /tmp.
func BuildPetrel(ctx context.Context) (string, error) {
	if p := os.Getenv(PetrelBinaryEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("lab: $%s: %w", PetrelBinaryEnv, err)
		}
		return filepath.Abs(p)
	}
	built.Lock()
	defer built.Unlock()
	if built.path != "" {
		return built.path, nil
	}
	root, err := ModuleRoot()
	if err != nil {
		return "", err
	}
	removeStaleBuildDirs()
	dir, err := os.MkdirTemp("", buildDirPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", fmt.Errorf("lab: build petrel: %w", err)
	}
	out := filepath.Join(dir, "petrel")

	ctx, cancel := contextWithDefaultTimeout(ctx, buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool(), "build", "-o", out, "./cmd/petrel")
	cmd.Dir = root
	cmd.WaitDelay = waitDelay
	output, err := cmd.CombinedOutput()
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("lab: go build ./cmd/petrel in %s: %w\n%s", root, err, output)
	}
	built.path = out
	return out, nil
}

// ModuleRoot returns the directory holding go.mod, found by walking up from
// the working directory. Go tests run in their package's directory, so
// this works from any package's tests as well as from the repository root.
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("lab: module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("lab: module root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// goTool returns the go command: the one on PATH, else the standard
// install location CI uses.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "/usr/local/go/bin/go"
}

// removeStaleBuildDirs deletes build directories whose owning process is
// gone. Errors are ignored: this is housekeeping, and a directory we cannot
// remove now will be tried again next time.
func removeStaleBuildDirs() {
	matches, err := filepath.Glob(filepath.Join(os.TempDir(), buildDirPrefix+"*"))
	if err != nil {
		return
	}
	if len(matches) > maxStaleBuildDirs {
		matches = matches[:maxStaleBuildDirs]
	}
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), buildDirPrefix)
		pidStr, _, ok := strings.Cut(rest, "-")
		if !ok {
			continue
		}
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			_ = os.RemoveAll(m)
		}
	}
}
