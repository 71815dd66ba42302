package labrun

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"petrel/lab"
)

// Clone (issue 32, bench/clone.sh): a new server's datadir copied from a
// running primary: Petrel's `petrel clone` (the CLONE protocol) against
// mariadb-backup --backup and --prepare, then a server started on the copy
// whose rows must be the primary's.

func init() {
	register(&Experiment{
		Name: "clone",
		Description: "A running primary holding a table of rows is copied into a new datadir (Petrel: `petrel clone`; " +
			"MariaDB: mariadb-backup --backup then --prepare), a server is started on the copy and its rows compared with the primary's.",
		Needs: []string{"mariadb", "mariadb-backup"},
		Charts: []Chart{
			{ID: "seconds", Title: "Time to a startable copy", Kind: Bars, YLabel: "s", Categories: []string{"copy", "start on the copy"}},
		},
		Trial: cloneTrial,
	})
}

func cloneTrial(ctx context.Context, t *Trial) error {
	m := t.Env.Mode
	// The replica applies on 4 threads (Petrel's default): MariaDB's
	// serial applier would take a minute over the fill before the
	// end-state check, which is no part of what is measured.
	c, err := t.Start(ctx, ClusterSpec{ReplicaWorkers: 4})
	if err != nil {
		return err
	}
	if err := CreateLoadTable(ctx, c.PDB); err != nil {
		return err
	}
	fill := pick(m, 2*time.Second, 3*time.Second, 60*time.Second)
	done := t.Phase("fill the primary", fill)
	if _, err := Load(ctx, c.PDB, LoadOptions{Clients: 8, Duration: fill}); err != nil {
		done()
		return err
	}
	done()
	want, wantRows, err := lab.TableDigest(ctx, c.PDB, loadTable)
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp(t.Env.TempDir, "clone-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	target := filepath.Join(dir, "data")
	var cmds [][]string
	switch t.System {
	case "petrel":
		cmds = [][]string{{t.Env.PetrelBinary, "clone", "--from", "127.0.0.1:" + strconv.Itoa(c.Primary.Port()),
			"--user", "root", "--password", petrelPassword, "--datadir", target}}
	default:
		tool := "mariadb-backup"
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("mariadb-backup not found (Debian package mariadb-backup; scripts/deps.sh installs it)")
		}
		cmds = [][]string{
			{tool, "--backup", "--host=127.0.0.1", "--port=" + strconv.Itoa(c.Primary.Port()), "--user=root",
				"--datadir=" + c.Primary.Datadir(), "--target-dir=" + target},
			{tool, "--prepare", "--target-dir=" + target},
		}
	}
	done = t.Phase("copy the running primary", 0)
	start := time.Now()
	for _, cmd := range cmds {
		text := fmt.Sprint(cmd)
		if t.System == "petrel" {
			text = fmt.Sprintf("petrel clone --from 127.0.0.1:PORT --user root --password *** --datadir DIR")
		}
		t.Command("copy", text)
		cctx, cancel := context.WithTimeout(ctx, endStateTimeout(m))
		out, err := exec.CommandContext(cctx, cmd[0], cmd[1:]...).CombinedOutput()
		cancel()
		if err != nil {
			done()
			return fmt.Errorf("%s: %w\n%s", cmd[0], err, lastLines(string(out), 15))
		}
	}
	copySecs := time.Since(start).Seconds()
	done()
	mib := dirMiB(target)

	done = t.Phase("start a server on the copy", 0)
	defer done()
	start = time.Now()
	var node Node
	switch t.System {
	case "petrel":
		node, err = lab.StartPetrel(ctx, lab.PetrelOptions{Binary: t.Env.PetrelBinary, Datadir: target, ServerID: 9,
			RootPassword: petrelPassword, StartTimeout: nodeStart, StopTimeout: nodeStop, Logger: t.Env.Logger})
	default:
		node, err = lab.StartMariaDB(ctx, lab.MariaDBOptions{Datadir: target, ServerID: 9, ExtraArgs: mariadbDurable,
			StartTimeout: nodeStart, StopTimeout: nodeStop, Logger: t.Env.Logger})
	}
	if err != nil {
		return fmt.Errorf("start on the copy: %w", err)
	}
	defer stopNode(ctx, node)
	startSecs := time.Since(start).Seconds()
	db, err := node.DB("")
	if err != nil {
		return err
	}
	defer db.Close()
	got, gotRows, err := lab.TableDigest(ctx, db, loadTable)
	if err != nil {
		return fmt.Errorf("the copy: %w", err)
	}
	if got != want || gotRows != wantRows {
		return fmt.Errorf("the copy holds %d rows (sha256 %.12s), the primary had %d (%.12s) when the copy began", gotRows, got, wantRows, want)
	}
	t.Series("seconds", []Point{{X: 0, Y: copySecs}, {X: 1, Y: startSecs}})
	t.Metric("copy", "s", copySecs, true)
	t.Metric("copy rate", "MiB/s", mib/max(copySecs, 1e-3), false)
	t.Metric("copy size", "MiB", mib, true)
	t.Metric("start on the copy", "s", startSecs, true)
	t.Metric("rows on the copy", "rows", float64(gotRows), false)
	return nil
}
