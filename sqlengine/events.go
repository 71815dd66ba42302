package sqlengine

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
	"petrel/storage"
)

// Scheduled events (issue 31): CREATE, ALTER and DROP EVENT, SHOW
// EVENTS, SHOW CREATE EVENT and information_schema.EVENTS, each event's
// definition kept in the database's catalog record as GMS describes it
// (a restart keeps it; the statement reaches the binlog as DDL). Petrel
// runs no event scheduler: event_scheduler is DISABLED, MySQL's value for
// a server started without one, and turning it on is MySQL's 1290, so
// the server never reports a scheduler that does not run. mariadb-dump
// --events and a dump's reload carry events across servers.

// eventSchedulerVariable is event_scheduler, DISABLED.
func eventSchedulerVariable() sql.SystemVariable {
	return &sql.MysqlSystemVariable{
		Name:    "event_scheduler",
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Global),
		Dynamic: true,
		Type:    types.NewSystemEnumType("event_scheduler", "ON", "OFF", "DISABLED"),
		Default: "DISABLED",
		NotifyChanged: func(*sql.Context, sql.SystemVariableScope, sql.SystemVarValue) error {
			return mysqlerr.New(mysqlerr.ErOptionPreventsStatement, "The MySQL server is running with the --event-scheduler=DISABLED option so it cannot execute this statement")
		},
	}
}

// GetEvent implements sql.EventDatabase.
func (d *Database) GetEvent(_ *sql.Context, name string) (sql.EventDefinition, bool, error) {
	evs, err := d.events()
	if err != nil {
		return sql.EventDefinition{}, false, err
	}
	for _, ev := range evs {
		if strings.EqualFold(ev.Name, name) {
			return ev, true, nil
		}
	}
	return sql.EventDefinition{}, false, nil
}

// GetEvents implements sql.EventDatabase.
func (d *Database) GetEvents(*sql.Context) ([]sql.EventDefinition, interface{}, error) {
	evs, err := d.events()
	return evs, nil, err
}

func (d *Database) events() ([]sql.EventDefinition, error) {
	sd := d.sdb()
	if sd == nil {
		return nil, nil
	}
	var out []sql.EventDefinition
	for _, e := range sd.Def().Events {
		var ev sql.EventDefinition
		if err := json.Unmarshal(e.Def, &ev); err != nil {
			return nil, err
		}
		out = append(out, ev)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// SaveEvent implements sql.EventDatabase. Nothing runs an event, so it
// reports every event as not enabled.
func (d *Database) SaveEvent(ctx *sql.Context, ed sql.EventDefinition) (bool, error) {
	return false, d.putEvent(ctx, "", ed)
}

// UpdateEvent implements sql.EventDatabase.
func (d *Database) UpdateEvent(ctx *sql.Context, originalName string, ed sql.EventDefinition) (bool, error) {
	return false, d.putEvent(ctx, originalName, ed)
}

// putEvent stores ed, replacing the event named replace (none: a new
// event).
func (d *Database) putEvent(ctx *sql.Context, replace string, ed sql.EventDefinition) error {
	if s, ok := ctx.Session.(*Session); ok && (s.internal || s.origin != nil) && ed.Status == sql.EventStatus_Enable.String() {
		// A replica keeps a replicated event disabled, as MySQL's
		// SLAVESIDE_DISABLED: its effects arrive as the source's rows.
		ed.Status = sql.EventStatus_DisableOnSlave.String()
	}
	blob, err := json.Marshal(ed)
	if err != nil {
		return err
	}
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	return d.p.e.Catalog().UpdateDatabase(txn, d.name, func(dd *storage.DatabaseDef) error {
		at := -1
		for i, e := range dd.Events {
			switch {
			case replace != "" && strings.EqualFold(e.Name, replace):
				at = i
			case strings.EqualFold(e.Name, ed.Name):
				return sql.ErrEventAlreadyExists.New(ed.Name)
			}
		}
		def := storage.EventDef{Name: ed.Name, Def: blob}
		switch {
		case replace == "":
			dd.Events = append(dd.Events, def)
		case at < 0:
			return sql.ErrEventDoesNotExist.New(replace)
		default:
			dd.Events[at] = def
		}
		return nil
	})
}

// DropEvent implements sql.EventDatabase.
func (d *Database) DropEvent(ctx *sql.Context, name string) error {
	txn, err := ddlTxn(ctx)
	if err != nil {
		return err
	}
	return d.p.e.Catalog().UpdateDatabase(txn, d.name, func(dd *storage.DatabaseDef) error {
		for i, e := range dd.Events {
			if strings.EqualFold(e.Name, name) {
				dd.Events = append(dd.Events[:i], dd.Events[i+1:]...)
				return nil
			}
		}
		return sql.ErrEventDoesNotExist.New(name)
	})
}

// UpdateLastExecuted implements sql.EventDatabase: never called, no
// event runs.
func (d *Database) UpdateLastExecuted(*sql.Context, string, time.Time) error { return nil }

// NeedsToReloadEvents implements sql.EventDatabase.
func (d *Database) NeedsToReloadEvents(*sql.Context, interface{}) (bool, error) { return false, nil }
