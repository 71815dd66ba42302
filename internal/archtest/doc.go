// Package archtest holds the test that keeps the import rules of
// docs/ARCHITECTURE.md true: it reads `go list` and fails when a package,
// or a package's tests, imports a stage the rules do not allow.
package archtest
