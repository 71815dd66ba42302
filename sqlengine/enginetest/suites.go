package enginetest

import (
	"testing"

	gmstest "github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/enginetest/queries"
)

// Environment of TestEngineSuites (set by cmd/enginecount).
const (
	// EnvRun enables TestEngineSuites; it fails by design (GMS suites
	// Petrel does not fully pass), so it only runs on request.
	EnvRun = "PETREL_ENGINETEST"
	// EnvBackend picks the harness: "petrel" (default) or "memory" (GMS's
	// own in-memory backend, for comparison).
	EnvBackend = "PETREL_ENGINETEST_BACKEND"
	// EnvKnownFailures overrides KnownFailuresFile (an absolute path).
	EnvKnownFailures = "PETREL_ENGINETEST_KNOWN"
	// EnvStrictSetup=1 sets Harness.StrictSetup.
	EnvStrictSetup = "PETREL_ENGINETEST_STRICT_SETUP"
	// EnvServer=1 runs the Petrel harness over the MySQL protocol.
	EnvServer = "PETREL_ENGINETEST_SERVER"
)

// Suite is one of GMS's engine test suites, runnable with any harness.
type Suite struct {
	Name string
	Run  func(t *testing.T, h gmstest.Harness)
}

// Suites are the GMS v0.20.0 suites the counting run covers, in report
// order: DML first, then DDL, then everything else. Names are the GMS
// function names (so `-run TestEngineSuites/^TestQueries$` picks one).
// Suites that need harness capabilities Petrel does not offer (AS OF
// versioned databases, read-only database wrappers, index drivers) and
// query-plan suites (pure GMS planner output) are left out.
var Suites = []Suite{
	// Queries and DML.
	{"TestQueries", gmstest.TestQueries},
	{"TestQueryErrors", gmstest.TestQueryErrors},
	{"TestJoinQueries", gmstest.TestJoinQueries},
	{"TestInsertInto", gmstest.TestInsertInto},
	{"TestInsertIgnoreInto", gmstest.TestInsertIgnoreInto},
	{"TestInsertDuplicateKeyKeyless", gmstest.TestInsertDuplicateKeyKeyless},
	{"TestIgnoreIntoWithDuplicateUniqueKeyKeyless", gmstest.TestIgnoreIntoWithDuplicateUniqueKeyKeyless},
	{"TestInsertIntoErrors", gmstest.TestInsertIntoErrors},
	{"TestUpdate", gmstest.TestUpdate},
	{"TestUpdateIgnore", gmstest.TestUpdateIgnore},
	{"TestUpdateErrors", gmstest.TestUpdateErrors},
	{"TestDelete", gmstest.TestDelete},
	{"TestDeleteErrors", gmstest.TestDeleteErrors},
	{"TestReplaceInto", gmstest.TestReplaceInto},
	{"TestReplaceIntoErrors", gmstest.TestReplaceIntoErrors},
	{"TestTruncate", gmstest.TestTruncate},
	{"TestPkOrdinalsDML", gmstest.TestPkOrdinalsDML},
	{"TestOnUpdateExprScripts", gmstest.TestOnUpdateExprScripts},
	{"TestBlobs", gmstest.TestBlobs},
	{"TestNullRanges", gmstest.TestNullRanges},
	{"TestComplexIndexQueries", gmstest.TestComplexIndexQueries},
	// DDL.
	{"TestCreateTable", gmstest.TestCreateTable},
	{"TestDropTable", gmstest.TestDropTable},
	{"TestRenameTable", gmstest.TestRenameTable},
	{"TestRenameColumn", gmstest.TestRenameColumn},
	{"TestAddColumn", gmstest.TestAddColumn},
	{"TestModifyColumn", gmstest.TestModifyColumn},
	{"TestDropColumn", gmstest.TestDropColumn},
	{"TestDropColumnKeylessTables", gmstest.TestDropColumnKeylessTables},
	{"TestAlterTable", gmstest.TestAlterTable},
	{"TestAddDropPks", gmstest.TestAddDropPks},
	{"TestAddAutoIncrementColumn", func(t *testing.T, h gmstest.Harness) {
		for _, script := range queries.AlterTableAddAutoIncrementScripts {
			gmstest.TestScript(t, h, script)
		}
	}},
	{"TestPkOrdinalsDDL", gmstest.TestPkOrdinalsDDL},
	{"TestColumnDefaults", gmstest.TestColumnDefaults},
	{"TestGeneratedColumns", gmstest.TestGeneratedColumns},
	{"TestCreateDatabase", gmstest.TestCreateDatabase},
	{"TestDropDatabase", gmstest.TestDropDatabase},
	{"TestIndexes", gmstest.TestIndexes},
	{"TestIndexPrefix", gmstest.TestIndexPrefix},
	{"TestCreateCheckConstraints", gmstest.TestCreateCheckConstraints},
	{"TestChecksOnInsert", gmstest.TestChecksOnInsert},
	{"TestChecksOnUpdate", gmstest.TestChecksOnUpdate},
	{"TestDropCheckConstraints", gmstest.TestDropCheckConstraints},
	{"TestCreateForeignKeys", gmstest.TestCreateForeignKeys},
	{"TestDropForeignKeys", gmstest.TestDropForeignKeys},
	{"TestForeignKeys", gmstest.TestForeignKeys},
	{"TestFulltextIndexes", gmstest.TestFulltextIndexes},
	// Transactions, sessions, variables.
	{"TestTransactionScripts", gmstest.TestTransactionScripts},
	{"TestConcurrentTransactions", gmstest.TestConcurrentTransactions},
	{"TestVariables", gmstest.TestVariables},
	{"TestUse", gmstest.TestUse},
	{"TestShowTableStatus", gmstest.TestShowTableStatus},
	{"TestInfoSchema", gmstest.TestInfoSchema},
	{"TestCharsetCollationEngine", gmstest.TestCharsetCollationEngine},
	// Views, triggers, procedures, JSON, everything else.
	{"TestViews", gmstest.TestViews},
	{"TestTriggers", gmstest.TestTriggers},
	{"TestRollbackTriggers", gmstest.TestRollbackTriggers},
	{"TestShowTriggers", gmstest.TestShowTriggers},
	{"TestTriggerErrors", gmstest.TestTriggerErrors},
	{"TestStoredProcedures", gmstest.TestStoredProcedures},
	{"TestJsonScripts", func(t *testing.T, h gmstest.Harness) { gmstest.TestJsonScripts(t, h, nil) }},
	{"TestJSONTableQueries", gmstest.TestJSONTableQueries},
	{"TestScripts", gmstest.TestScripts},
	{"TestWindowFunctions", gmstest.TestWindowFunctions},
	{"TestSpatialQueries", gmstest.TestSpatialQueries},
	{"TestSpatialInsertInto", gmstest.TestSpatialInsertInto},
	{"TestQueriesPrepared", gmstest.TestQueriesPrepared},
	{"TestInsertQueriesPrepared", gmstest.TestInsertQueriesPrepared},
	{"TestUpdateQueriesPrepared", gmstest.TestUpdateQueriesPrepared},
	{"TestDeleteQueriesPrepared", gmstest.TestDeleteQueriesPrepared},
}

// SmokeSuites are the suites TestEngineSmoke runs (in this order, in one
// process): the core DML, DDL, index, transaction, trigger, view and JSON
// suites, about half of all leaf tests, in well under a minute.
// TestVariables goes last because it changes process-global variables.
var SmokeSuites = []string{
	"TestQueries", "TestQueryErrors", "TestJoinQueries",
	"TestInsertInto", "TestInsertIgnoreInto", "TestInsertIntoErrors", "TestInsertDuplicateKeyKeyless",
	"TestUpdate", "TestUpdateErrors", "TestDelete", "TestDeleteErrors",
	"TestReplaceInto", "TestReplaceIntoErrors", "TestPkOrdinalsDML", "TestNullRanges", "TestComplexIndexQueries",
	"TestCreateTable", "TestDropTable", "TestRenameTable", "TestAddColumn", "TestModifyColumn",
	"TestDropColumn", "TestDropColumnKeylessTables", "TestAlterTable", "TestColumnDefaults",
	"TestCreateDatabase", "TestDropDatabase", "TestIndexes", "TestIndexPrefix",
	"TestChecksOnInsert", "TestChecksOnUpdate",
	"TestTransactionScripts", "TestViews", "TestTriggers", "TestJsonScripts", "TestScripts",
	"TestVariables",
}

// KnownFailuresFile lists the smoke tests known to fail on Petrel, relative
// to the package directory (go test's working directory);
// PETREL_ENGINETEST_KNOWN overrides it.
const KnownFailuresFile = "testdata/smoke_known_failures.txt"

// SuiteByName returns the named suite.
func SuiteByName(name string) (Suite, bool) {
	for _, s := range Suites {
		if s.Name == name {
			return s, true
		}
	}
	return Suite{}, false
}
