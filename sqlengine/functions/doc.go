// Package functions holds the SQL functions Petrel registers over
// go-mysql-server's built-ins (the engine's function provider is asked
// first), where GMS's answer differs from MySQL 8's or GMS lacks the
// function: ROUND of a DOUBLE, TRUNCATE, HEX of a TIME (mysqlfuncs.go),
// PERIOD_ADD and PERIOD_DIFF (periodfuncs.go). sqlengine registers
// MySQL() when it starts; the stages' own functions (MASTER_POS_WAIT and
// the like) are registered by their SQL surfaces.
//
// Contract: each function returns MySQL's value, type and warnings, and
// hands the arguments it does not answer to GMS's own expression.
package functions
