package benchkit

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"petrel/lab"
)

// WriteReport writes report to path, creating its directory, and says
// where on stderr.
func WriteReport(path, report string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(report), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "report written to", path)
	return nil
}

// ToolVersion returns the first line of `name args...`, bounded in time.
func ToolVersion(name string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return name + " (version unknown)"
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// PetrelBuild says which petrel binary lab.BuildPetrel used.
func PetrelBuild() string {
	if bin := os.Getenv(lab.PetrelBinaryEnv); bin != "" {
		return "$" + lab.PetrelBinaryEnv + "=" + bin
	}
	commit, err := git("rev-parse", "--short", "HEAD")
	if err != nil {
		return "built from the working tree"
	}
	if dirty, err := git("status", "--porcelain", "--untracked-files=no"); err == nil && dirty != "" {
		commit += " plus uncommitted changes"
	}
	return "built from the working tree at " + commit
}

// git runs a git command in the module root, bounded in time.
func git(args ...string) (string, error) {
	root, err := lab.ModuleRoot()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = root
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// OneLine keeps the first line of an error.
func OneLine(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")
	return line
}
