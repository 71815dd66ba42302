package replica

import (
	"strconv"
	"strings"
	"time"
)

// StatusColumns are SHOW REPLICA STATUS's columns, MySQL 8.0.22+ spelling
// (LegacyName gives SHOW SLAVE STATUS's).
var StatusColumns = []string{
	"Replica_IO_State",
	"Source_Host",
	"Source_User",
	"Source_Port",
	"Connect_Retry",
	"Source_Log_File",
	"Read_Source_Log_Pos",
	"Relay_Log_File",
	"Relay_Log_Pos",
	"Relay_Source_Log_File",
	"Replica_IO_Running",
	"Replica_SQL_Running",
	"Replicate_Do_DB",
	"Replicate_Ignore_DB",
	"Replicate_Do_Table",
	"Replicate_Ignore_Table",
	"Replicate_Wild_Do_Table",
	"Replicate_Wild_Ignore_Table",
	"Last_Errno",
	"Last_Error",
	"Skip_Counter",
	"Exec_Source_Log_Pos",
	"Relay_Log_Space",
	"Until_Condition",
	"Until_Log_File",
	"Until_Log_Pos",
	"Source_SSL_Allowed",
	"Source_SSL_CA_File",
	"Source_SSL_CA_Path",
	"Source_SSL_Cert",
	"Source_SSL_Cipher",
	"Source_SSL_Key",
	"Seconds_Behind_Source",
	"Source_SSL_Verify_Server_Cert",
	"Last_IO_Errno",
	"Last_IO_Error",
	"Last_SQL_Errno",
	"Last_SQL_Error",
	"Replicate_Ignore_Server_Ids",
	"Source_Server_Id",
	"Source_UUID",
	"Source_Info_File",
	"SQL_Delay",
	"SQL_Remaining_Delay",
	"Replica_SQL_Running_State",
	"Source_Retry_Count",
	"Source_Bind",
	"Last_IO_Error_Timestamp",
	"Last_SQL_Error_Timestamp",
	"Source_SSL_Crl",
	"Source_SSL_Crlpath",
	"Retrieved_Gtid_Set",
	"Executed_Gtid_Set",
	"Auto_Position",
	"Replicate_Rewrite_DB",
	"Channel_Name",
	"Source_TLS_Version",
	"Source_public_key_path",
	"Get_Source_public_key",
	"Network_Namespace",
}

// Status returns SHOW REPLICA STATUS's one row (aligned with
// StatusColumns; nil is NULL), or nil when no source is configured.
func (r *Replica) Status() []*string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.cfg.Configured() {
		return nil
	}
	now := r.opts.Clock.Now()
	cfg := r.cfg
	ioRunning := "No"
	if r.io != nil {
		ioRunning = "Connecting"
		if r.ioConnected {
			ioRunning = "Yes"
		}
	}
	sqlRunning := "No"
	if r.sqlT != nil {
		sqlRunning = "Yes"
	}
	relayFile, relayPos := r.relay.current()
	if r.relayReadFile != "" {
		relayFile, relayPos = r.relayReadFile, r.relayReadPos
	}
	executed := r.opts.Log.Executed().String()
	autoPosition := "0"
	if cfg.AutoPosition {
		autoPosition = "1"
	}
	s := func(v string) *string { return &v }
	n := func(v uint64) *string { return s(strconv.FormatUint(v, 10)) }
	errTS := func(e threadError) *string {
		if e.At.IsZero() {
			return s("")
		}
		return s(e.At.Format("060102 15:04:05"))
	}
	var lag *string
	if d, ok := r.lagLocked(now); ok {
		lag = n(uint64(d / time.Second))
	}
	return []*string{
		s(r.ioState),        // Replica_IO_State
		s(cfg.Host),         // Source_Host
		s(cfg.User),         // Source_User
		n(uint64(cfg.Port)), // Source_Port
		n(uint64(cfg.ConnectRetry / time.Second)), // Connect_Retry
		s(r.sourceFile),                    // Source_Log_File
		n(r.sourcePos),                     // Read_Source_Log_Pos
		s(relayFile),                       // Relay_Log_File
		n(relayPos),                        // Relay_Log_Pos
		s(r.execFile),                      // Relay_Source_Log_File
		s(ioRunning),                       // Replica_IO_Running
		s(sqlRunning),                      // Replica_SQL_Running
		s(""),                              // Replicate_Do_DB
		s(""),                              // Replicate_Ignore_DB
		s(""),                              // Replicate_Do_Table
		s(""),                              // Replicate_Ignore_Table
		s(""),                              // Replicate_Wild_Do_Table
		s(""),                              // Replicate_Wild_Ignore_Table
		n(uint64(r.sqlErr.Errno)),          // Last_Errno
		s(r.sqlErr.Msg),                    // Last_Error
		s("0"),                             // Skip_Counter
		n(r.execPos),                       // Exec_Source_Log_Pos
		n(r.relay.space()),                 // Relay_Log_Space
		s("None"),                          // Until_Condition
		s(""),                              // Until_Log_File
		s("0"),                             // Until_Log_Pos
		s(yesNo(cfg.SSL)),                  // Source_SSL_Allowed
		s(cfg.SSLCA),                       // Source_SSL_CA_File
		s(""),                              // Source_SSL_CA_Path
		s(cfg.SSLCert),                     // Source_SSL_Cert
		s(""),                              // Source_SSL_Cipher
		s(cfg.SSLKey),                      // Source_SSL_Key
		lag,                                // Seconds_Behind_Source
		s(yesNo(cfg.SSLVerifyServerCert)),  // Source_SSL_Verify_Server_Cert
		n(uint64(r.ioErr.Errno)),           // Last_IO_Errno
		s(r.ioErr.Msg),                     // Last_IO_Error
		n(uint64(r.sqlErr.Errno)),          // Last_SQL_Errno
		s(r.sqlErr.Msg),                    // Last_SQL_Error
		s(""),                              // Replicate_Ignore_Server_Ids
		n(uint64(r.sourceID)),              // Source_Server_Id
		s(r.sourceUUID),                    // Source_UUID
		s("mysql.slave_master_info"),       // Source_Info_File
		s("0"),                             // SQL_Delay
		nil,                                // SQL_Remaining_Delay
		s(r.sqlState),                      // Replica_SQL_Running_State
		n(uint64(cfg.RetryCount)),          // Source_Retry_Count
		s(""),                              // Source_Bind
		errTS(r.ioErr),                     // Last_IO_Error_Timestamp
		errTS(r.sqlErr),                    // Last_SQL_Error_Timestamp
		s(""),                              // Source_SSL_Crl
		s(""),                              // Source_SSL_Crlpath
		s(r.relay.retrievedSet().String()), // Retrieved_Gtid_Set
		s(executed),                        // Executed_Gtid_Set
		s(autoPosition),                    // Auto_Position
		s(""),                              // Replicate_Rewrite_DB
		s(""),                              // Channel_Name
		s(""),                              // Source_TLS_Version
		s(""),                              // Source_public_key_path
		s("0"),                             // Get_Source_public_key
		s(""),                              // Network_Namespace
	}
}

// LegacyName is a column's SHOW SLAVE STATUS spelling.
func LegacyName(name string) string {
	name = strings.ReplaceAll(name, "Source", "Master")
	name = strings.ReplaceAll(name, "Replica", "Slave")
	return name
}

// lagLocked is Seconds_Behind_Source: unknown (false) when either thread is
// down or the link is silent past replica_net_timeout; while applying, the
// age of the transaction being applied; when caught up, 0 while the source
// is heard from (events or heartbeats), else the time since it was last
// heard. Unknown is never reported as 0.
func (r *Replica) lagLocked(now time.Time) (time.Duration, bool) {
	if r.io == nil || r.sqlT == nil || !r.ioConnected {
		return 0, false
	}
	if r.applying && !r.applyingOrig.IsZero() {
		d := now.Sub(r.applyingOrig) - r.clockDiff
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return r.silenceLocked(now), true
}

// silenceLocked is how long the source has been silent beyond its
// heartbeat period (0 while it keeps talking).
func (r *Replica) silenceLocked(now time.Time) time.Duration {
	grace := r.heartbeat + time.Second
	if d := now.Sub(r.lastHeard); d > grace {
		return d
	}
	return 0
}

// Lags returns the receive lag (age of the newest transaction received, or
// silence) and the apply lag (age of the transaction being applied; 0 when
// caught up), in seconds; ok is false when unknown.
func (r *Replica) Lags() (receive float64, receiveOK bool, apply float64, applyOK bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.opts.Clock.Now()
	if r.io != nil && r.ioConnected {
		receiveOK = true
		receive = r.silenceLocked(now).Seconds()
	}
	if r.sqlT != nil {
		applyOK = true
		if r.applying && !r.applyingOrig.IsZero() {
			apply = (now.Sub(r.applyingOrig) - r.clockDiff).Seconds()
			if apply < 0 {
				apply = 0
			}
		}
	}
	return
}

// Counters are cumulative replica counters (status variables).
type Counters struct {
	Heartbeats, ReceivedTxns, AppliedTxns, SkippedTxns, Connects uint64
	// RetriedTxns counts transactions applied again after a lock wait
	// timeout or a deadlock (replica_transaction_retries), since the
	// server started: COUNT_TRANSACTIONS_RETRIES.
	RetriedTxns uint64
	// AcksSent are semi-sync acknowledgements sent; RelaySyncs the relay
	// log's fdatasyncs.
	AcksSent, RelaySyncs            uint64
	IORunning, SQLRunning, SemiSync bool
	// ParallelWorkers is the running applier's worker count (0: the
	// single applier). Waits are the scheduler's, since the server
	// started: why a transaction could not start (or commit) at once.
	ParallelWorkers int
	Waits           SchedWaits
}

// SchedWaits counts the parallel scheduler's waits by reason.
type SchedWaits = schedWaits

// CountersSnapshot returns the counters.
func (r *Replica) CountersSnapshot() Counters {
	syncs := r.relay.syncCount()
	r.mu.Lock()
	par, waits := r.par, r.parWaits
	r.mu.Unlock()
	workers := 0
	if par != nil {
		workers = par.workers()
		par.mu.Lock()
		waits = waits.plus(par.core.Waits())
		par.mu.Unlock()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return Counters{ParallelWorkers: workers, Waits: waits, Heartbeats: r.heartbeats, ReceivedTxns: r.receivedTxns, AppliedTxns: r.appliedTxns,
		SkippedTxns: r.skippedTxns, RetriedTxns: r.retriedTxns, Connects: r.connects, AcksSent: r.acksSent, RelaySyncs: syncs,
		IORunning: r.io != nil && r.ioConnected, SQLRunning: r.sqlT != nil,
		SemiSync: r.io != nil && r.ioConnected && r.semiActive}
}

func yesNo(b bool) string {
	if b {
		return "Yes"
	}
	return "No"
}
