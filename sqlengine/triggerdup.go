package sqlengine

import (
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql/plan"

	"petrel/internal/mysqlerr"
)

// INSERT ... ON DUPLICATE KEY UPDATE on a table with UPDATE triggers,
// and REPLACE on a table with DELETE triggers, are refused. MySQL fires
// the table's UPDATE triggers for each row the first updates, and its
// DELETE triggers for each row the second replaces; GMS's insert fires
// only the INSERT triggers, so a trigger's SET NEW.x or its writes
// elsewhere were silently skipped for those rows. Until Petrel runs
// them, such a statement is an error (1235), never a write that skips a
// trigger.

// triggerEventRE reads a trigger's time, event and table from its
// CREATE TRIGGER text.
var triggerEventRE = regexp.MustCompile("(?is)\\bTRIGGER\\b.*?\\b(BEFORE|AFTER)\\s+(INSERT|UPDATE|DELETE)\\s+ON\\s+((?:`[^`]+`|[^\\s.`]+)(?:\\s*\\.\\s*(?:`[^`]+`|[^\\s.`]+))?)\\s+FOR\\s+EACH\\s+ROW")

// refuseSkippedTriggers returns 1235 for n, an INSERT with ON DUPLICATE
// KEY UPDATE or a REPLACE, when its table has a trigger GMS would skip.
func refuseSkippedTriggers(n *plan.InsertInto) error {
	var event, what string
	switch {
	case len(n.OnDupExprs) > 0:
		event, what = "UPDATE", "INSERT ... ON DUPLICATE KEY UPDATE on a table with UPDATE triggers"
	case n.IsReplace:
		event, what = "DELETE", "REPLACE on a table with DELETE triggers"
	default:
		return nil
	}
	dest := n.Destination
	if d, ok := dest.(*plan.InsertDestination); ok {
		dest = d.Child
	}
	tb, ok := resolvedPetrelTable(dest) // groupstream.go
	if !ok || tb.db == nil {
		return nil
	}
	sd := tb.db.sdb()
	if sd == nil {
		return nil
	}
	for _, tr := range sd.Def().Triggers {
		m := triggerEventRE.FindStringSubmatch(tr.CreateStmt)
		if m == nil || !strings.EqualFold(m[2], event) {
			continue
		}
		if strings.EqualFold(triggerTable(m[3]), tb.t.Def.Name) {
			return mysqlerr.New(mysqlerr.ErNotSupportedYet,
				"This version of Petrel doesn't yet support '%s (trigger %s)'", what, tr.Name)
		}
	}
	return nil
}

// triggerTable is the table name of a trigger's ON clause (db.t, `db`.`t`
// or t), unquoted.
func triggerTable(on string) string {
	on = strings.TrimSpace(on)
	if strings.HasSuffix(on, "`") {
		if i := strings.LastIndex(on[:len(on)-1], "`"); i >= 0 {
			return on[i+1 : len(on)-1]
		}
	}
	if i := strings.LastIndex(on, "."); i >= 0 {
		on = on[i+1:]
	}
	return strings.Trim(strings.TrimSpace(on), "`")
}
