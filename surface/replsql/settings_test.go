package replsql_test

import (
	"testing"
	"time"

	gms "github.com/dolthub/go-mysql-server/sql"

	"petrel/repl/replica"
	"petrel/sqlengine"
	"petrel/surface/replsql"
)

// TestSettingsPushed: a SET GLOBAL of each replica setting, under either
// spelling, is pushed (what node gives Replica.Configure); a value out of
// range is refused and changes nothing.
func TestSettingsPushed(t *testing.T) {
	g := sqlengine.NewGlobals()
	v := replsql.Variables(g)
	want := replsql.Settings{Replica: replica.Settings{NetTimeout: 10 * time.Second, SyncRelayLog: 10000, AckAfter: replica.AckRelayWrite, StrictRows: true, TransactionRetries: 10,
		Parallel: replica.Parallel{Workers: replica.DefaultParallelWorkers, Type: replica.ParallelLogicalClock, PreserveOrder: true}},
		FailoverLagTransactions: 1000, FailoverLag: 10 * time.Second}
	var pushed replsql.Settings
	v.Push(func(s replsql.Settings) { pushed = s })
	if got := v.Settings(); got != want || pushed != want {
		t.Fatalf("defaults %+v (pushed %+v), want %+v", got, pushed, want)
	}
	ctx := gms.NewEmptyContext()
	for name, val := range map[string]any{
		"slave_net_timeout": int64(3), "sync_relay_log": int64(0), "rpl_semi_sync_replica_ack_after": "relay_sync",
		"replica_exec_mode": "IDEMPOTENT", "slave_transaction_retries": int64(2), "replica_parallel_workers": int64(8),
		"slave_parallel_type": "DATABASE", "replica_preserve_commit_order": int64(0), "petrel_replica_durable_apply": int64(1),
		"replica_failover_lag_transactions": int64(5), "replica_failover_lag_seconds": int64(6),
	} {
		if err := g.Set(ctx, name, val); err != nil {
			t.Fatalf("SET GLOBAL %s = %v: %v", name, val, err)
		}
	}
	want = replsql.Settings{Replica: replica.Settings{NetTimeout: 3 * time.Second, SyncRelayLog: 0, AckAfter: replica.AckRelaySync, StrictRows: false, TransactionRetries: 2,
		Parallel:     replica.Parallel{Workers: 8, Type: replica.ParallelDatabase, PreserveOrder: false},
		DurableApply: true}, FailoverLagTransactions: 5, FailoverLag: 6 * time.Second}
	if got := v.Settings(); got != want || pushed != want {
		t.Errorf("after SET GLOBAL: %+v (pushed %+v), want %+v", got, pushed, want)
	}
	if err := g.Set(ctx, "replica_net_timeout", int64(0)); err == nil || pushed.Replica.NetTimeout != 3*time.Second {
		t.Errorf("replica_net_timeout = 0: %v, NetTimeout %v", err, pushed.Replica.NetTimeout)
	}
	// skip_replica_start is read-only: the option file's value.
	if err := g.SetFromString("skip_replica_start", "1"); err != nil || !v.Settings().SkipStart {
		t.Errorf("skip_replica_start from the option file: %v, %+v", err, v.Settings())
	}
}
