// Package planstats is the planner's knowledge of the data: table and
// index statistics (ANALYZE TABLE's histograms and per-prefix distinct
// counts, persisted per table id and refreshed by InnoDB's 10% rule),
// filter selectivities from a sample of a table's rows, the coster GMS's
// memo prices plans with (lookup joins by rows per key, join
// cardinalities), and the row estimates of a chosen plan's operators
// that EXPLAIN shows.
//
// Contract: it reads tables and indexes through the Table and Index
// interfaces, which the backend (sqlengine) implements, and storage
// through *storage.Engine; it imports neither sqlengine nor explain. A
// Provider is safe for concurrent use; its background analyses run on
// storage's goroutines (storage.Engine.Go) and end when storage closes,
// and Wait waits for them. Estimates are pure functions of the plan, the
// statistics and the live row counters.
package planstats
