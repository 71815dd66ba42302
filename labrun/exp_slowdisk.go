package labrun

import (
	"context"
	"fmt"
	"time"
)

// Catch-up on a slow disk (issue 34 item 5). On a fast local disk nothing
// in the apply path waits, so applier threads add nothing (parallel-apply
// measures that). The seed's replicas waited on their disks: here every
// fsync of the replica waits an injected delay (1 ms, a networked disk's
// round trip) and every applied transaction is durable before the next
// can count as applied, on both systems.

// slowDiskSyncDelay is the latency injected before every replica fsync.
const slowDiskSyncDelay = time.Millisecond

func init() {
	register(&Experiment{
		Name: "catch-up-slow-disk",
		Description: fmt.Sprintf("catch-up with %v injected before every fsync of the replica and per-transaction durability there "+
			"(Petrel petrel_storage_sync_delay and petrel_replica_durable_apply=ON; MariaDB sync_binlog=1, "+
			"innodb_flush_log_at_trx_commit=1 and lab's fsync delay library preloaded), with 1, 2, 4, 8 and 16 applier threads: "+
			"stopped / catch-up and the speedup over one thread when the apply path waits on the disk.", slowDiskSyncDelay),
		Needs: []string{"mariadb"},
		Charts: []Chart{
			{ID: "apply", Title: "Apply rate against applier threads, 1 ms per fsync", Kind: Lines, LogX: true, XLabel: "applier threads (log)", YLabel: "txn/s"},
			{ID: "speedup", Title: "Speedup over one applier thread, 1 ms per fsync", Kind: Lines, LogX: true, XLabel: "applier threads (log)", YLabel: "× one thread"},
		},
		Trial: catchUpSlowDisk,
	})
}

// slowDiskWorkers are the experiment's applier thread counts.
func slowDiskWorkers(m Mode) []int {
	return pick(m, []int{1, 4}, []int{1, 4, 16}, []int{1, 2, 4, 8, 16})
}

// slowDiskBurst is paced in every mode: MariaDB's single thread applies
// a few hundred transactions a second with 1 ms fsyncs, and the backlog
// must fit in the end-state timeout.
func slowDiskBurst(m Mode) burstPlan {
	return burstPlan{duration: pick(m, time.Second, 3*time.Second, 20*time.Second),
		clients: pick(m, 4, 8, 16), rate: pick(m, 300.0, 1000.0, 2000.0)}
}

func catchUpSlowDisk(ctx context.Context, t *Trial) error {
	var apply, speedup []Point
	var one float64
	for _, w := range slowDiskWorkers(t.Env.Mode) {
		r, err := runCatchUp(ctx, t, ClusterSpec{ReplicaWorkers: w, ReplicaSyncDelay: slowDiskSyncDelay},
			slowDiskBurst(t.Env.Mode), fmt.Sprintf("%d workers, slow disk: ", w))
		if err != nil {
			return fmt.Errorf("%d workers: %w", w, err)
		}
		if w == 1 {
			one = r.apply
		}
		s := r.apply / max(one, 1e-9)
		apply = append(apply, Point{X: float64(w), Y: r.apply})
		speedup = append(speedup, Point{X: float64(w), Y: s})
		t.Metric(fmt.Sprintf("%d workers: apply rate", w), "txn/s", r.apply, false)
		t.Metric(fmt.Sprintf("%d workers: catch-up of the backlog", w), "s", r.elapsed.Seconds(), true)
		t.Metric(fmt.Sprintf("%d workers: stopped / catch-up", w), "ratio", r.stopped.Seconds()/max(r.elapsed.Seconds(), 1e-3), false)
		t.Metric(fmt.Sprintf("%d workers: speedup over 1 worker", w), "×", s, false)
		t.Metric(fmt.Sprintf("%d workers: binlog group commits", w), "fsyncs", float64(r.groups), false)
		t.Metric(fmt.Sprintf("%d workers: transactions per group commit", w), "txn", float64(r.backlog)/float64(max(r.groups, 1)), false)
		t.Metric(fmt.Sprintf("%d workers: delayed fsyncs per transaction", w), "fsyncs", float64(r.delayedSyncs)/float64(max(r.backlog, 1)), true)
		t.Metric(fmt.Sprintf("%d workers: replica CPU per transaction", w), "ms", r.cpu.Seconds()*1000/float64(max(r.backlog, 1)), true)
		if t.System == "petrel" {
			t.Note(fmt.Sprintf("Petrel, %d workers: while catching up the applier's next transaction waited %d times for a transaction it depends on to be durable, %d times for a free worker, %d times for its commit turn (%d transactions).",
				w, r.waits[0], r.waits[1], r.waits[2], r.backlog))
		}
	}
	t.Series("apply", apply)
	t.Series("speedup", speedup)
	if t.System == "mariadb" {
		t.Note(fmt.Sprintf("MariaDB's replica waits %v in every fsync and fdatasync through lab's fsync delay library (LD_PRELOAD); "+
			"a device-mapper delay target on a loop device would also delay reads and writes, but needs a kernel with the device mapper.", slowDiskSyncDelay))
	}
	return nil
}
