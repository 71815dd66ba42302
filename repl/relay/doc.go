// Package relay is the relay role's stage: what a relay (`petrel relay`)
// does with the binlog it receives from its source. The receiver
// (repl/replica) hands it whole transactions; it keeps them in the relay's
// own binary log (binlog.Log.AppendRelayed), where the dump threads
// (repl/source) serve them to downstream replicas as a primary serves its
// own. No row is applied to storage; the statements of a relayed
// transaction are handed to Options.ApplyQuery, through which node
// applies the account statements among them to the relay's own accounts.
//
// The decisions are pure functions and a small state machine, tested by
// the scenarios in testdata/: whether a received transaction follows what
// the log holds (CheckFollows), whether the source is the one the relay
// has followed (CheckSource), and the logical clock a transaction gets in
// the relay's own files (clockMap). docs/design/relay.md has the design.
package relay
