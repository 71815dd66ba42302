// Package cluster runs a local Petrel cluster: one primary and N replicas,
// each a `petrel server` child process with its own datadir on loopback,
// replication wired by SQL (CHANGE REPLICATION SOURCE TO ...). It is the
// README's main job (`petrel cluster`), and a supervisor: a node that dies
// is restarted, the nodes die with it. Restarting on the same directory
// resumes the same cluster.
//
// With --sites, each site gets a relay (`petrel relay`) and its replicas
// behind it; Plan (the nodes and their roles) and wireStatements (the SQL
// that wires a node) are pure functions (TestPlanSites, TestPlanProxy).
// The layout and which node is the primary are kept in Dir/cluster.json
// (layout.go; withPrimary and roleConfig are pure: TestLayoutAfterFailover).
// failover.go is the I/O shell of the failover core (package failover):
// observation rounds, promotion, `petrel failover` / `petrel switchover`
// and --auto-failover. heal.go restarts replication a full disk stopped
// (healStatement is pure: TestHealStatement); proxylayout.go writes the
// layout `petrel proxy --layout` reads.
//
// cluster runs petrel processes and imports no server package.
package cluster
