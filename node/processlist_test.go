package node_test

import (
	"testing"
)

// TestProcessListNamesAccountWithoutDatabase: a connection opened with
// no database is listed under its account, as MySQL lists it. GMS told
// its process list the account only on COM_INIT_DB, so such a connection
// showed as "unauthenticated user" in SHOW PROCESSLIST (and
// information_schema.PROCESSLIST) until it ran USE.
func TestProcessListNamesAccountWithoutDatabase(t *testing.T) {
	_, open := startNode(t)
	root := open("")
	root.SetMaxOpenConns(1)
	mustExec(t, root, "CREATE DATABASE pldb")
	rows := queryRows(t, root, "SELECT USER, DB FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()")
	if len(rows) != 1 || rows[0][0] != "root" || rows[0][1] != "NULL" {
		t.Errorf("own row %v, want [[root NULL]]", rows)
	}
	withDB := open("pldb")
	withDB.SetMaxOpenConns(1)
	rows = queryRows(t, withDB, "SELECT USER, DB FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()")
	if len(rows) != 1 || rows[0][0] != "root" || rows[0][1] != "pldb" {
		t.Errorf("own row with a database %v, want [[root pldb]]", rows)
	}
	var users []string
	for _, r := range queryRows(t, root, "SHOW PROCESSLIST") {
		users = append(users, r[1])
	}
	for _, u := range users {
		if u != "root" {
			t.Errorf("SHOW PROCESSLIST users %v: want only root", users)
			break
		}
	}
}
