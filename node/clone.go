package node

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"

	"petrel/clone"
	"petrel/surface/clonesql"
)

// installClone runs before storage opens: a committed clone in the
// staging directory is switched in, an interrupted one removed
// (clone.Install). A datadir that held nothing but the interrupted clone
// (`petrel clone` killed) refuses to start rather than initialise an
// empty server where a clone was expected.
func (n *Node) installClone() error {
	dir := n.opts.Datadir
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	// The relay log holds transactions relative to the data replaced: the
	// replica starts from the clone's GTID set with an empty one (its
	// settings, CHANGE REPLICATION SOURCE's, stay).
	did, err := clone.Install(dir, n.opts.Logger, "relay")
	if err != nil {
		return fmt.Errorf("node: %w", err)
	}
	if did != clone.RemovedInterrupted {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, metaFile)); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("node: datadir %s held only an interrupted clone, now removed: run `petrel clone` again (or start again to initialise an empty server)", dir)
	}
	return nil
}

// clonedWithoutIdentity: a clone `petrel clone` switched into a new
// directory has storage and log but no identity file yet; the first
// start gives it its own server UUID (a clone never takes the donor's).
func clonedWithoutIdentity(dir string) bool {
	for _, p := range []string{filepath.Join(dir, "data"), filepath.Join(dir, "binlog"), filepath.Join(dir, clone.StatusFile)} {
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	return true
}

// openClone makes the instance a donor (with a binary log: the snapshot's
// GTID set is its log's) and a recipient (CLONE INSTANCE).
func (n *Node) openClone(tlsCfg *tls.Config) error {
	if n.opts.Relay {
		clonesql.Register(n.sql, clonesql.Options{Refuse: "a relay holds its source's binary log, not data: it neither gives nor takes clones"})
		return nil
	}
	var err error
	if n.binlog != nil {
		// The data port listens where the SQL port does (any free port:
		// CLONE STREAM tells the recipient which).
		n.donor, err = clone.NewDonor(clone.DonorOptions{Datadir: n.opts.Datadir, Store: n.store, Log: n.binlog,
			DataAddress: net.JoinHostPort(n.opts.BindAddress, "0"), TLS: tlsCfg, MaxBandwidth: n.cloneVars.MaxBandwidth,
			Logger: n.opts.Logger, Clock: n.opts.Clock})
		if err != nil {
			return fmt.Errorf("node: %w", err)
		}
	}
	clonesql.Register(n.sql, clonesql.Options{Donor: n.donor, Store: n.store, Log: n.binlog, Datadir: n.opts.Datadir,
		Restart: n.requestRestart, TCP: n.tcp.Options, Vars: n.cloneVars, Logger: n.opts.Logger, Clock: n.opts.Clock})
	return nil
}

// restartSignal is closed when a statement (CLONE INSTANCE) asks the
// process to restart on its datadir.
type restartSignal struct {
	once sync.Once
	ch   chan struct{}
}

func (n *Node) requestRestart() {
	n.restart.once.Do(func() { close(n.restart.ch) })
}

// RestartRequested is closed when the server must restart on its datadir
// (a CLONE INSTANCE was staged): cmd/petrel then shuts the node down and
// executes itself again, as MySQL restarts after a clone.
func (n *Node) RestartRequested() <-chan struct{} { return n.restart.ch }
