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
func runLab(args []string, stdout, stderr io.Writer) int {
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
	const missing = "petrel lab: the petrel-lab binary is not next to petrel nor on PATH; build it with: go build -o bin/petrel-lab ./cmd/petrel-lab (or make lab)"
	// Help needs no experiment: it is answered here when the binary that
	// would answer it is missing.
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		w, code := stdout, 0
		if len(args) == 0 {
			w, code = stderr, 2
		}
		fmt.Fprintln(w, labUsage)
		fmt.Fprintln(w, missing)
		return code
	}
	fmt.Fprintln(stderr, missing)
	return 2
}

const labUsage = `usage: petrel lab list
       petrel lab run EXPERIMENT...|all [--tiny|--quick] [--out DIR] [--rounds N]
                      [--systems petrel,mariadb] [--no-root] [--petrel-binary PATH] [-v]
       petrel lab sysbench [--servers petrel,mariadb,petrel-nobinlog,NAME=PATH...] [--workloads W,...]
                      [--threads N,...] [--rounds N] [--duration D] [--together] [--out DIR] ...`
