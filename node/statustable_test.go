package node_test

import (
	"strconv"
	"testing"
)

// TestDiagnosticsInformationSchemaStatus: information_schema.SESSION_STATUS and
// GLOBAL_STATUS (MariaDB's) answer SHOW [GLOBAL] STATUS, names in upper
// case; a status Petrel lacks is no row (mtr's sp-condition-handler
// reads MariaDB's MEMORY_USED in a procedure's DEFAULT).
func TestDiagnosticsInformationSchemaStatus(t *testing.T) {
	_, open := startNode(t)
	db := open("")
	if up, err := strconv.Atoi(one(t, db, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'UPTIME'")); err != nil || up < 0 {
		t.Errorf("GLOBAL_STATUS Uptime: %d, %v", up, err)
	}
	if got := one(t, db, "SELECT COUNT(*) FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'Com_select'"); got != "1" {
		t.Errorf("SESSION_STATUS rows for Com_select: %s, want 1", got)
	}
	if got := one(t, db, "SELECT COUNT(*) FROM information_schema.SESSION_STATUS WHERE VARIABLE_NAME = 'MEMORY_USED'"); got != "0" {
		t.Errorf("SESSION_STATUS rows for MEMORY_USED: %s, want 0", got)
	}
}
