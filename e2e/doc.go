// Package e2e holds Petrel's end-to-end tests: each test builds the petrel
// binary (lab.BuildPetrel), starts its own server on a fresh datadir and a
// free loopback port, and drives it with real clients: the mariadb CLI,
// mariadb-slap, sysbench and go-sql-driver/mysql.
//
// The tests assert on data (row counts, sums, status counters, exact error
// codes), never only on the absence of an error. Every wait is bounded by a
// context deadline. With PETREL_LAB_STRICT=1 (CI) a missing client tool is
// a failure, not a skip.
//
// The package has no non-test code apart from this comment.
package e2e
