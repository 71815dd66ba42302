// Package benchkit holds the helpers of the benchmark programs under
// bench/cmd (now bench/cmd/fanout alone; the others moved into the lab):
// settings from flags and the environment, the run's signal handling and
// tool checks, report helpers and bounded SQL.
package benchkit

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"petrel/lab"
)

// NewLogger returns the programs' logger: text on stderr, level info.
func NewLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// SignalContext returns a context cancelled on SIGINT or SIGTERM, and the
// function that stops listening for them.
func SignalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// CheckTools reports the first of tools not found in $PATH.
func CheckTools(tools ...string) error {
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s not found; run scripts/deps.sh", tool)
		}
	}
	return nil
}

// EnvOr returns the environment variable name, or def when it is unset or
// empty.
func EnvOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// EnvInt returns the environment variable name as an int, or def when it
// is unset or not a number.
func EnvInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// Fields splits on spaces, tabs, newlines and commas.
func Fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' })
}

// ParseDuration accepts whole seconds ("20") or a Go duration ("1m30s")
// of at least a second.
func ParseDuration(s string) (time.Duration, error) {
	if n, err := strconv.Atoi(s); err == nil && n > 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < time.Second {
		return 0, fmt.Errorf("bad duration %q (want seconds >= 1 or a Go duration)", s)
	}
	return d, nil
}

// OutDir is the reports' directory: dir, or when it is empty the default,
// <module root>/bench/out.
func OutDir(dir string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	root, err := lab.ModuleRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "bench", "out"), nil
}
