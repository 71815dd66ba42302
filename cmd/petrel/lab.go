package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// runLab runs `petrel lab ...` as the petrel-lab binary (cmd/petrel-lab):
// the experiments, their servers' orchestration, the WAN emulator and the
// report drawing live there, so the server binary carries none of them.
// It looks next to this executable first, then on PATH, and replaces this
// process with it, so signals (^C) reach it directly.
func runLab(args []string, stderr io.Writer) int {
	var candidates []string
	if self, err := os.Executable(); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(self), "petrel-lab"))
	}
	if p, err := exec.LookPath("petrel-lab"); err == nil {
		candidates = append(candidates, p)
	}
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			err := syscall.Exec(c, append([]string{c}, args...), os.Environ())
			fmt.Fprintf(stderr, "petrel lab: exec %s: %v\n", c, err)
			return 1
		}
	}
	fmt.Fprintln(stderr, "petrel lab: the petrel-lab binary is not next to petrel nor on PATH; build it with: go build -o bin/petrel-lab ./cmd/petrel-lab (or make lab)")
	return 2
}
