// Package archtest holds the tests that keep docs/ARCHITECTURE.md true:
// TestImportRules reads `go list` and fails when a package, or a
// package's tests, imports a package the rules (the allowed table) do not
// allow, or when a package has no place in them; TestArchitectureDocMatchesRules
// fails when the document's package list or its "Allowed imports" block
// says something other than the table; TestOneClock fails when a stage
// reads the wall clock instead of its injected base.Clock;
// TestOneErrorTable fails when code outside internal/mysqlerr picks a
// MySQL error number or SQLSTATE by hand (vitess's constructor or
// constants).
package archtest
