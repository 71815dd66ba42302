// Package histogram is the deterministic core of Petrel's index
// statistics: from a sample of one index's keys it builds the distinct
// count of each column prefix (SHOW INDEX's CARDINALITY) and GMS's
// equi-depth histogram (statsbuild.go), keeps GMS's Statistic usable for
// ranges inside one bucket (statstype.go), and defines the record a
// table's statistics persist as (statsrecord.go). sqlengine's statistics
// provider (planstats/stats.go) samples the keys, refreshes and persists them.
//
// Contract: Build is a pure function of its input (the same keys give
// the same statistics); nothing here reads a table or storage.
package histogram
