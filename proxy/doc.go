// Package proxy is `petrel proxy`: a MySQL-protocol router in front of a
// primary and its replicas that sends writes, transactions and
// session-state changes to the primary and autocommit reads to replicas
// whose replication lag it measured itself.
//
// The package is a client of its backends, like cluster: it imports no
// server stage. Its parts:
//
//   - Router (router.go), the deterministic core: replica states from lag
//     samples and check failures, and a routing decision per statement
//     from the session's state and the statement's kind. No goroutines,
//     sockets or clocks; tested with the scenario files in testdata/router.
//   - Classify (classify.go): a statement's kind from vitess's parser
//     (never a pattern over the raw text), tested by testdata/classify.
//   - The shell: the client listener and sessions (server.go, session.go),
//     backend connections and their pools (backend.go, pool.go), the lag
//     checker (checker.go), topology discovery (discovery.go: SHOW
//     REPLICAS on the backends, the cluster's layout file) and the admin
//     port (admin.go).
//
// The per-statement path is one goroutine per client: it reads the
// command into a reused buffer, routes it, and forwards the response
// frames from the backend's read buffer into the client's write buffer
// (rows are never decoded; only OK/ERR/EOF packets are read for the
// status flags), without an allocation. A session keeps its pooled
// connection between statements (no pool hand-off per statement); a
// session that would wait for a connection to a full backend takes an
// idle held one, and a session gives its connection back when another
// waits (BenchmarkForwardProxy, TestHeldConnection).
//
// Sites: a proxy of site N (RouterOptions.Site) sends reads to its own
// site's qualifying replicas, then to other qualifying replicas, then to
// the primary; `petrel cluster --sites S --proxy` runs one per site.
//
// Invariants the core holds (and its scenarios show):
//   - unknown lag (NULL, a failed or timed-out check, a replica never
//     measured, a sample older than StaleAfter) is infinite, never 0;
//   - a replica over MaxLag is drained: it gets no new reads, while the
//     ones in flight finish (nothing is cut); it serves again after
//     RecoverChecks good checks in a row;
//   - with no qualifying replica, reads go to the primary;
//   - in read-your-writes mode a read goes to a replica only when the
//     replica is known to have applied the session's last write, or after
//     it waited for it (WAIT_FOR_EXECUTED_GTID_SET, bounded); otherwise to
//     the primary.
//   - reads are monotonic: a session stays on its replica while it
//     qualifies; moving, it waits on the new one for the primary's
//     gtid_executed (an upper bound of what it may have seen);
//   - a session's first replica is the next round-robin, or with
//     PackSessions N the one serving the most sessions while under N
//     (sessions counted per slot when routed, uncounted when they end).
package proxy
