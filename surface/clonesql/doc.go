// Package clonesql is the clone stage's SQL surface: MySQL's CLONE
// INSTANCE FROM on the recipient, the statements a donor answers (CLONE
// SNAPSHOT, CLONE STREAM, CLONE READ, CLONE END: Petrel's wire for the
// clone, see package clone), clone_max_data_bandwidth, performance_schema's
// clone_status and clone_progress, and the MySQL numbers of clone's
// refusals. docs/design/clone.md has the design.
package clonesql
