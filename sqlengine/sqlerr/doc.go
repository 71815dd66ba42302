// Package sqlerr is the SQL layer's half of the one error mapping:
// go-mysql-server's error kinds and Petrel's own errors to MySQL's error
// numbers, SQLSTATEs and messages (errtable.go), over the table of
// numbers in internal/mysqlerr. ClientError is the protocol handler's
// boundary: everything a client sees passes through it; ToMySQL maps
// inside the engine and leaves GMS's kinds alone where GMS tests them.
//
// Contract: every error a client receives carries MySQL's number and
// SQLSTATE for its cause; an error without one is 1105 (HY000).
package sqlerr
