// Package auth holds Petrel's authentication methods over vitess's
// handshake: caching_sha2_password as MySQL 8 runs it, with its cache
// of accounts that logged in and the RSA key exchange for clients
// without TLS (sha2auth.go). sqlengine's listener installs Sha2 over
// GMS's account table.
//
// Contract: a login succeeds only with the account's password, a wrong
// one gets MySQL's 1045; the cache never lets a changed password in.
package auth
