package labrun

import "testing"

// TestNames checks each system's spellings the bench programs read, and
// Broken's and FirstPair's answers on what a failed start leaves.
func TestNames(t *testing.T) {
	for system, want := range map[string]Names{
		"petrel": {PrimaryPos: "@@GLOBAL.gtid_executed", Status: "SHOW REPLICA STATUS", SQLRunning: "Replica_SQL_Running",
			Behind: "Seconds_Behind_Source", Received: "Retrieved_Gtid_Set", StopApplier: "STOP REPLICA SQL_THREAD",
			SemiEnabled: "rpl_semi_sync_source_enabled", SemiStatusPrefix: "Rpl_semi_sync_source_"},
		"mariadb": {PrimaryPos: "@@GLOBAL.gtid_binlog_pos", Status: "SHOW SLAVE STATUS", SQLRunning: "Slave_SQL_Running",
			Behind: "Seconds_Behind_Master", Received: "Gtid_IO_Pos", StopApplier: "STOP SLAVE SQL_THREAD",
			SemiEnabled: "rpl_semi_sync_master_enabled", SemiStatusPrefix: "Rpl_semi_sync_master_"},
	} {
		c := &Cluster{System: system, f: flavors[system]}
		n := c.Names()
		got := Names{PrimaryPos: n.PrimaryPos, Status: n.Status, SQLRunning: n.SQLRunning, Behind: n.Behind,
			Received: n.Received, StopApplier: n.StopApplier, SemiEnabled: n.SemiEnabled, SemiStatusPrefix: n.SemiStatusPrefix}
		if got != want {
			t.Errorf("%s: Names = %+v, want %+v", system, got, want)
		}
		if b := c.Broken(nil); b != "no replica status" {
			t.Errorf("%s: Broken(nil) = %q", system, b)
		}
		if b := c.Broken(map[string]string{n.IORunning: "Yes", n.SQLRunning: "No", n.SQLError: "Error 1062"}); b != n.SQLRunning+"=No: Error 1062" {
			t.Errorf("%s: Broken(applier error) = %q", system, b)
		}
		if b := c.Broken(map[string]string{n.IORunning: "Yes", n.SQLRunning: "No"}); b != "" {
			t.Errorf("%s: Broken(applier stopped on purpose) = %q, want none", system, b)
		}
		if p := c.FirstPair(); p.Primary != nil || p.Replica != nil || p.PDB != nil || p.RDB != nil || p.Link != nil {
			t.Errorf("%s: FirstPair of an unstarted cluster = %+v", system, p)
		}
	}
}
