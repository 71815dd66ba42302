package node

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"petrel/internal/base"
)

// watchDiskFull lets writes resume by themselves once space returns after
// a commit failed on a full disk: it probes the datadir with a real write
// and fsync, and clears storage's refusal when that works, the binlog
// undid the failed write cleanly and storage could restore its disk-space
// reserve. It runs until ctx ends.
func (n *Node) watchDiskFull(ctx context.Context, every time.Duration) {
	defer close(n.watchDone)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := n.store.WriteError()
		if err == nil || base.ClassOf(err) != base.ClassDiskFull {
			continue
		}
		if n.binlog != nil && !n.binlog.Healthy() {
			continue
		}
		if perr := probeSpace(n.opts.Datadir, 8<<20); perr != nil {
			continue
		}
		if cerr := n.store.ClearWriteError(); cerr != nil {
			n.opts.Logger.Debug("petrel: disk still too full to resume writes", "err", cerr)
			continue
		}
		n.opts.Logger.Warn("petrel: disk space is back; writes resume")
	}
}

// probeSpace writes and fsyncs size bytes in dir, then removes them.
func probeSpace(dir string, size int) error {
	p := filepath.Join(dir, ".space-probe")
	defer os.Remove(p)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(make([]byte, size)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
