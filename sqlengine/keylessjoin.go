package sqlengine

import (
	"context"
	"sort"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"petrel/internal/mysqlerr"
	"petrel/storage"
)

// A multiple-table UPDATE (UPDATE t1, t2 SET ... / UPDATE t1 JOIN t2
// ...) of a table without a primary key: GMS refuses it ("keyless tables
// unsupported for UPDATE JOIN", in its planner when the join is the
// statement's top node, in its analyzer otherwise), since it tells the
// rows a join brings apart by content alone and rows of equal content
// would be written once. Petrel's keyless rows have hidden keys; its
// editor writes every row of a content the join matched, each once
// (editor.updateKeyless). So a WHERE-less multiple-table UPDATE of such
// a table gets WHERE TRUE when parsed (its join is then under a filter:
// the analyzer's path), and keylessUpdateJoin gives GMS's UPDATE its join
// editors before GMS's modifyUpdateExprsForJoin refuses them.

const keylessJoinRuleID analyzer.RuleId = 1095

var (
	keylessJoinOnce sync.Once
	// GMS's applyForeignKeys.
	applyForeignKeysRule analyzer.RuleFunc
)

// installKeylessJoinRule puts keylessUpdateJoin before GMS's
// modifyUpdateExprsForJoin, once per process.
func installKeylessJoinRule() {
	keylessJoinOnce.Do(func() {
		for _, r := range analyzer.OnceAfterDefault {
			if r.Id.String() == "applyForeignKeys" {
				applyForeignKeysRule = r.Apply
			}
		}
		analyzer.OnceAfterDefault = insertAfter(analyzer.OnceAfterDefault, "assignRoutines", analyzer.Rule{Id: keylessJoinRuleID, Apply: keylessUpdateJoin})
	})
}

// joinDMLRewrites are whereForJoinUpdates and semiJoinDeletes
// (deletejoin.go) over a statement parsed in ctx's session, its
// unqualified names in the current database.
func joinDMLRewrites(ctx context.Context, st ast.Statement) {
	if c, ok := ctx.(*sql.Context); ok && c != nil {
		whereForJoinUpdates(c, c.GetCurrentDatabase(), st)
		semiJoinDeletes(c, c.GetCurrentDatabase(), st)
	}
}

// whereForJoinUpdates gives every multiple-table UPDATE in st without a
// WHERE clause, one of whose tables has no primary key, the clause
// WHERE TRUE, which selects the same rows. (Only those: under a filter
// GMS reads the targets' CHECK constraints over all the join's columns,
// where a column name both tables have is ambiguous.)
func whereForJoinUpdates(ctx *sql.Context, db string, st ast.Statement) {
	if st == nil {
		return
	}
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		u, ok := n.(*ast.Update)
		if !ok || u.Where != nil || !joinedTables(u.TableExprs) || !keylessTableIn(ctx, db, u.TableExprs) {
			return true, nil
		}
		u.Where = ast.NewWhere(ast.WhereStr, ast.BoolVal(true))
		return true, nil
	}, st)
}

// keylessTableIn reports whether te names a table without a primary key
// (a temporary table of the session's first), unqualified names in db.
func keylessTableIn(ctx *sql.Context, db string, te ast.TableExprs) bool {
	s := ctxSession(ctx)
	if s == nil || s.eng == nil {
		return false
	}
	found := false
	_ = ast.Walk(func(n ast.SQLNode) (bool, error) {
		tn, ok := n.(ast.TableName)
		if !ok || found {
			return !found, nil
		}
		d := db
		if !tn.DbQualifier.IsEmpty() {
			d = tn.DbQualifier.String()
		}
		if r := s.temps[tempKey(d, tn.Name.String())]; r != nil {
			found = len(r.t.Def.PK) == 0
		} else if t := s.eng.store.Catalog().Table(d, tn.Name.String()); t != nil {
			found = len(t.Def.PK) == 0
		}
		return !found, nil
	}, te)
	return found
}

// joinedTables reports whether an UPDATE's table list is more than one
// table.
func joinedTables(te ast.TableExprs) bool {
	if len(te) > 1 {
		return true
	}
	if len(te) == 1 {
		_, ok := te[0].(*ast.JoinTableExpr)
		return ok
	}
	return false
}

// keylessUpdateJoin is the analyzer rule: an UPDATE over a join whose
// targets include a table without a primary key or in a foreign key
// gets GMS's UpdateJoin with the targets' editors (which GMS's rule,
// finding it in place, leaves as it is), a target in a foreign key's
// behind GMS's foreign-key handler (fkJoinEditor): GMS's gave a
// multiple-table UPDATE no handler, so it broke foreign keys silently
// (a child row pointing at no parent, a parent's key changed under its
// children).
func keylessUpdateJoin(ctx *sql.Context, a *analyzer.Analyzer, n sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		u, ok := n.(*plan.Update)
		if !ok {
			return n, transform.SameTree, nil
		}
		us, ok := u.Child.(*plan.UpdateSource)
		if uj, isJoin := u.Child.(*plan.UpdateJoin); isJoin {
			// Made by GMS's planner (a join without WHERE): its editors
			// are made again here.
			us, ok = uj.Child.(*plan.UpdateSource)
		}
		if !ok {
			return n, transform.SameTree, nil
		}
		var join sql.Node
		transform.Inspect(us, func(x sql.Node) bool {
			if _, ok := x.(*plan.JoinNode); ok && join == nil {
				join = x
			}
			return join == nil
		})
		if join == nil {
			return n, transform.SameTree, nil
		}
		tables := joinTables(join)

		targets := map[string]*Table{}
		keyless := false
		// setsKey: names whose SET assigns a primary-key column.
		setsKey := map[string]bool{}
		for _, e := range us.UpdateExprs {
			sf, ok := e.(*expression.SetField)
			if !ok {
				continue
			}
			gf, ok := sf.LeftChild.(*expression.GetField)
			if !ok {
				return n, transform.SameTree, nil
			}
			name := strings.ToLower(gf.Table())
			tb, ok := tables[name]
			if !ok {
				// Not a Petrel table: GMS's rule decides.
				return n, transform.SameTree, nil
			}
			targets[name] = tb
			keyless = keyless || len(tb.t.Def.PK) == 0
			for _, o := range tb.t.Def.PK {
				if strings.EqualFold(tb.t.Schema[o].Name, gf.Name()) {
					setsKey[name] = true
				}
			}
		}
		twice, err := sameTableTwice(targets, setsKey)
		if err != nil {
			return nil, transform.SameTree, err
		}
		updaters := make(map[string]sql.RowUpdater, len(targets))
		fks := false
		for name, tb := range targets {
			h, err := fkJoinEditor(ctx, a, tb, scope, sel, qf)
			if err != nil {
				return nil, transform.SameTree, err
			}
			if h != nil {
				updaters[name], fks = h, true
				continue
			}
			updaters[name] = tb.Updater(ctx)
			if twice[name] {
				if ed, ok := updaters[name].(*editor); ok {
					updaters[name] = &currentRowUpdater{ed}
				}
			}
		}
		if !keyless && !fks && len(twice) == 0 {
			return n, transform.SameTree, nil
		}
		nu, err := u.WithChildren(plan.NewUpdateJoin(updaters, us))
		if err != nil {
			return nil, transform.SameTree, err
		}
		return nu, transform.NewTree, nil
	})
}

// joinTables maps the names a join's rows know its Petrel tables by
// (their aliases, else their names; lower case) to the tables.
func joinTables(join sql.Node) map[string]*Table {
	out := map[string]*Table{}
	transform.Inspect(join, func(x sql.Node) bool {
		switch x := x.(type) {
		case *plan.TableAlias:
			if tb := firstPetrelTable(x.Child); tb != nil {
				out[strings.ToLower(x.Name())] = tb
			}
			return false
		case *plan.ResolvedTable:
			if tb := petrelTableOf(x); tb != nil {
				out[strings.ToLower(tb.Name())] = tb
			}
		case *plan.IndexedTableAccess:
			if tb := firstPetrelTable(x.TableNode); tb != nil {
				out[strings.ToLower(tb.Name())] = tb
			}
			return false
		}
		return true
	})
	return out
}

// firstPetrelTable is the first Petrel table under n.
func firstPetrelTable(n sql.Node) *Table {
	var tb *Table
	transform.Inspect(n, func(x sql.Node) bool {
		if tb != nil {
			return false
		}
		if ita, ok := x.(*plan.IndexedTableAccess); ok {
			tb = firstPetrelTable(ita.TableNode)
			return false
		}
		tb = petrelTableOf(x)
		return tb == nil
	})
	return tb
}

// petrelTableOf is n's Petrel table when n is a ResolvedTable of one, read
// whole or by an index (indexedTable), nil otherwise.
func petrelTableOf(n sql.Node) *Table {
	if tb, ok := resolvedPetrelTable(n); ok { // groupstream.go
		return tb
	}
	if rt, ok := n.(*plan.ResolvedTable); ok {
		if it, ok := rt.Table.(*indexedTable); ok {
			return it.Table
		}
	}
	return nil
}

// fkJoinEditor is the editor a multiple-table UPDATE writes target tb
// through when tb is in a foreign key (and foreign_key_checks is on):
// GMS's foreign-key handler, made by GMS's own rule for a single-table
// UPDATE of tb, behind joinOnce. nil when tb is in no foreign key.
func fkJoinEditor(ctx *sql.Context, a *analyzer.Analyzer, tb *Table, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.RowUpdater, error) {
	if applyForeignKeysRule == nil {
		return nil, nil
	}
	out, _, err := applyForeignKeysRule(ctx, a, plan.NewUpdate(plan.NewResolvedTable(tb, tb.db, nil), false, nil), scope, sel, qf)
	if err != nil {
		return nil, err
	}
	u, ok := out.(*plan.Update)
	if !ok {
		return nil, nil
	}
	h, ok := u.Child.(*plan.ForeignKeyHandler)
	if !ok {
		return nil, nil
	}
	fe, ok := h.Editor.Editor.(*fkEditor)
	if !ok {
		return nil, nil
	}
	lockingWrite(ctx) // table.go: the handler never asks for Updater
	if len(tb.t.Def.PK) == 0 {
		// The editor writes every unwritten row of the content.
		fe.joinDone = map[string]bool{}
	}
	return &joinOnce{ForeignKeyHandler: h, ed: fe.editor, done: map[string]bool{}}, nil
}

// joinOnce is a target's foreign-key handler in a multiple-table UPDATE
// that passes it each row once: a row the statement wrote already is
// not checked, cascaded or written again (the editor's joinDone decides
// only after the handler has acted). A table without a primary key
// passes a content while an unwritten row holds it.
type joinOnce struct {
	*plan.ForeignKeyHandler
	ed   *editor
	done map[string]bool
}

// StatementBegin implements sql.TableEditor.
func (j *joinOnce) StatementBegin(ctx *sql.Context) {
	clear(j.done)
	j.ForeignKeyHandler.StatementBegin(ctx)
}

// Update implements sql.RowUpdater.
func (j *joinOnce) Update(ctx *sql.Context, old, new sql.Row) error {
	_, st, err := j.ed.target(ctx)
	if err != nil {
		return err
	}
	again := false
	if st.Hidden {
		txn, err := readTxn(ctx)
		if err != nil {
			return err
		}
		n, err := txn.CountUnwritten(st, old, j.ed.joinDone)
		if err != nil {
			return sessionError(ctx, err)
		}
		again = n == 0
	} else {
		k, err := st.PKKey(nil, old)
		if err != nil {
			return sessionError(ctx, err)
		}
		again = j.done[string(k)]
		if !again {
			j.done[string(k)] = true
			if nk, err := st.PKKey(nil, new); err == nil {
				j.done[string(nk)] = true
			}
		}
	}
	if again {
		if s, ok := ctx.Session.(*Session); ok {
			s.fewerAffected++
		}
		return nil
	}
	return j.ForeignKeyHandler.Update(ctx, old, new)
}

// sameTableTwice returns the target names whose table another target
// name updates too (UPDATE t AS a, t AS b SET a.x = 1, b.y = 2): each
// writes its columns onto the row as the other left it
// (currentRowUpdater; GMS wrote each alias's whole row, the second
// undoing the first's change). A primary-key column set through one of
// them is MySQL's error 1706: the row the other name joined would move.
// Tables without a primary key are left out (their rows are found by
// content).
func sameTableTwice(targets map[string]*Table, setsKey map[string]bool) (map[string]bool, error) {
	byTable := map[*storage.Table][]string{}
	for name, tb := range targets {
		if len(tb.t.Def.PK) > 0 {
			byTable[tb.t] = append(byTable[tb.t], name)
		}
	}
	out := map[string]bool{}
	for _, names := range byTable {
		if len(names) < 2 {
			continue
		}
		sort.Strings(names)
		for _, name := range names {
			if setsKey[name] {
				other := names[0]
				if other == name {
					other = names[1]
				}
				return nil, mysqlerr.New(mysqlerr.ErMultiUpdateKeyConflict,
					"Primary key/partition key update is not allowed since the table is updated both as '%s' and '%s'.", name, other)
			}
			out[name] = true
		}
	}
	return out, nil
}

// currentRowUpdater writes a target's changed columns onto the row as
// stored now, in a multiple-table UPDATE that updates its table under
// two names.
type currentRowUpdater struct{ *editor }

// Update implements sql.RowUpdater.
func (c *currentRowUpdater) Update(ctx *sql.Context, old, new sql.Row) error {
	txn, st, err := c.target(ctx)
	if err != nil {
		return err
	}
	so, err := tsRowToStore(ctx, st, old, c.rows+1)
	if err != nil {
		return err
	}
	k, err := st.PKKey(nil, so)
	if err != nil {
		return sessionError(ctx, err)
	}
	cur, err := txn.GetRow(ctx, st, k)
	if err != nil {
		return sessionError(ctx, err)
	}
	// cur is stored (UTC TIMESTAMPs); old and new are the session's.
	cur = tsRowFromStore(ctx, st, cur)
	if cur == nil || len(cur) != len(old) || len(new) != len(old) {
		return c.editor.Update(ctx, old, new)
	}
	merged := cur.Copy()
	for i := range new {
		if eq, err := st.Schema[i].Type.Compare(ctx, old[i], new[i]); err != nil || eq != 0 {
			merged[i] = new[i]
		}
	}
	return c.editor.Update(ctx, cur, merged)
}
