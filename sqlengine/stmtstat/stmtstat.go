// Package stmtstat counts the statements clients send, by kind, as
// MySQL's Questions, Queries and Com_* status variables do. Kind reads a
// statement's first keywords (pure, no allocation); Counters holds one
// count per status variable, for a session or a whole engine.
//
// Contract: every statement a client sends (each statement of a
// multi-statement text, each COM_STMT_EXECUTE) adds one to Questions and
// Queries and one to its Com_ variable when it has one (an execution to
// Com_stmt_execute too); COM_STMT_PREPARE adds to Com_stmt_prepare only,
// as in MySQL. A statement whose kind has no variable here is counted in
// Questions alone.
package stmtstat

import "sync/atomic"

// Kind is a statement's Com_ status variable (None: no variable).
type Kind uint8

// The kinds counted, in Names' order.
const (
	None Kind = iota
	Select
	Insert
	Update
	Delete
	Replace
	Begin
	Commit
	Rollback
	Savepoint
	RollbackToSavepoint
	ReleaseSavepoint
	SetOption
	ChangeDB
	ShowVariables
	ShowStatus
	ShowTables
	ShowDatabases
	ShowCreateTable
	ShowFields
	ShowProcesslist
	ShowWarnings
	CreateTable
	CreateDB
	CreateIndex
	DropTable
	DropDB
	DropIndex
	AlterTable
	Truncate
	LockTables
	UnlockTables
	Analyze
	Flush
	Kill
	Do
	StmtExecute
	StmtPrepare
	kinds
)

// Names are the status variables, by Kind (Names[None] is Questions).
var Names = [kinds]string{
	None: "Questions", Select: "Com_select", Insert: "Com_insert", Update: "Com_update",
	Delete: "Com_delete", Replace: "Com_replace", Begin: "Com_begin", Commit: "Com_commit",
	Rollback: "Com_rollback", Savepoint: "Com_savepoint", RollbackToSavepoint: "Com_rollback_to_savepoint",
	ReleaseSavepoint: "Com_release_savepoint", SetOption: "Com_set_option",
	ChangeDB: "Com_change_db", ShowVariables: "Com_show_variables", ShowStatus: "Com_show_status",
	ShowTables: "Com_show_tables", ShowDatabases: "Com_show_databases",
	ShowCreateTable: "Com_show_create_table", ShowFields: "Com_show_fields",
	ShowProcesslist: "Com_show_processlist", ShowWarnings: "Com_show_warnings",
	CreateTable: "Com_create_table", CreateDB: "Com_create_db", CreateIndex: "Com_create_index",
	DropTable: "Com_drop_table", DropDB: "Com_drop_db", DropIndex: "Com_drop_index",
	AlterTable: "Com_alter_table", Truncate: "Com_truncate", LockTables: "Com_lock_tables",
	UnlockTables: "Com_unlock_tables", Analyze: "Com_analyze", Flush: "Com_flush", Kill: "Com_kill",
	Do: "Com_do", StmtExecute: "Com_stmt_execute", StmtPrepare: "Com_stmt_prepare",
}

// Counters are one count per status variable: Questions (which Queries
// reads too) and each Com_ variable.
type Counters struct {
	n [kinds]atomic.Uint64
}

// Statement counts one statement of kind k sent by a client.
func (c *Counters) Statement(k Kind) {
	c.n[None].Add(1)
	if k != None {
		c.n[k].Add(1)
	}
}

// Execute counts a COM_STMT_EXECUTE of a statement of kind k: a
// question, Com_stmt_execute and k's variable, as MySQL counts them.
func (c *Counters) Execute(k Kind) {
	c.n[StmtExecute].Add(1)
	c.Statement(k)
}

// Prepare counts a COM_STMT_PREPARE (not a question, as in MySQL).
func (c *Counters) Prepare() { c.n[StmtPrepare].Add(1) }

// AddTo adds c's counts to dst (a closed session's to its engine's).
func (c *Counters) AddTo(dst *Counters) {
	for i := range c.n {
		if v := c.n[i].Load(); v != 0 {
			dst.n[i].Add(v)
		}
	}
}

// MoveTo adds c's counts to dst's and zeroes c's (FLUSH STATUS: a
// session's counts go to the global ones).
func (c *Counters) MoveTo(dst *Counters) {
	for i := range c.n {
		if v := c.n[i].Swap(0); v != 0 {
			dst.n[i].Add(v)
		}
	}
}

// Value is the count of the status variable named name (Queries is
// Questions: Petrel runs no stored programs); false for a name not
// counted here.
func (c *Counters) Value(name string) (uint64, bool) {
	if i, ok := index[name]; ok {
		return c.n[i].Load(), true
	}
	return 0, false
}

// index maps each counted name, Queries included, to its Kind.
var index = func() map[string]Kind {
	m := make(map[string]Kind, kinds+1)
	for k, n := range Names {
		m[n] = Kind(k)
	}
	m["Queries"] = None
	return m
}()

// AllNames are the counted status variables, Queries included.
func AllNames() []string {
	out := append([]string(nil), Names[:]...)
	return append(out, "Queries")
}

// Of is the kind of statement q: its first keyword, after spaces,
// comments and opening parentheses, and the next one where MySQL's
// variable depends on it (SHOW ..., CREATE ..., DROP ...).
func Of(q string) Kind {
	w1, rest := word(q)
	switch w1 {
	case "SELECT", "WITH", "VALUES", "TABLE":
		return Select
	case "INSERT":
		return Insert
	case "UPDATE":
		return Update
	case "DELETE":
		return Delete
	case "REPLACE":
		return Replace
	case "BEGIN":
		return Begin
	case "START":
		if w2, _ := word(rest); w2 == "TRANSACTION" {
			return Begin
		}
	case "COMMIT":
		return Commit
	case "ROLLBACK":
		w2, r2 := word(rest)
		if w2 == "WORK" {
			w2, _ = word(r2)
		}
		if w2 == "TO" {
			return RollbackToSavepoint
		}
		return Rollback
	case "RELEASE":
		return ReleaseSavepoint
	case "SAVEPOINT":
		return Savepoint
	case "SET":
		return SetOption
	case "USE":
		return ChangeDB
	case "SHOW":
		return show(rest)
	case "CREATE":
		return create(rest)
	case "DROP":
		return drop(rest)
	case "ALTER":
		if w2, _ := word(rest); w2 == "TABLE" {
			return AlterTable
		}
	case "TRUNCATE":
		return Truncate
	case "LOCK":
		return LockTables
	case "UNLOCK":
		return UnlockTables
	case "ANALYZE":
		return Analyze
	case "FLUSH":
		return Flush
	case "KILL":
		return Kill
	case "DO":
		return Do
	}
	return None
}

func show(rest string) Kind {
	w, r := word(rest)
	for w == "GLOBAL" || w == "SESSION" || w == "FULL" || w == "LOCAL" {
		w, r = word(r)
	}
	switch w {
	case "VARIABLES":
		return ShowVariables
	case "STATUS":
		return ShowStatus
	case "TABLES":
		return ShowTables
	case "DATABASES", "SCHEMAS":
		return ShowDatabases
	case "CREATE":
		if w2, _ := word(r); w2 == "TABLE" {
			return ShowCreateTable
		}
	case "COLUMNS", "FIELDS":
		return ShowFields
	case "PROCESSLIST":
		return ShowProcesslist
	case "WARNINGS":
		return ShowWarnings
	}
	return None
}

func create(rest string) Kind {
	w, r := word(rest)
	for w == "TEMPORARY" || w == "UNIQUE" || w == "FULLTEXT" || w == "SPATIAL" || w == "OR" || w == "REPLACE" {
		w, r = word(r)
	}
	switch w {
	case "TABLE":
		return CreateTable
	case "DATABASE", "SCHEMA":
		return CreateDB
	case "INDEX":
		return CreateIndex
	}
	return None
}

func drop(rest string) Kind {
	w, r := word(rest)
	if w == "TEMPORARY" {
		w, _ = word(r)
	}
	switch w {
	case "TABLE", "TABLES":
		return DropTable
	case "DATABASE", "SCHEMA":
		return DropDB
	case "INDEX":
		return DropIndex
	}
	return None
}

// word is s's first keyword in upper case, when it is one of keywords
// ("" otherwise), and the text after it, skipping spaces, comments
// (/* */, -- and #) and opening parentheses before it. It does not
// allocate: the upper-cased bytes only index keywords.
func word(s string) (string, string) {
	i := skip(s)
	j := i
	for j < len(s) && (isLetter(s[j]) || s[j] == '_') {
		j++
	}
	if j == i || j-i > len(upperBuf{}) {
		return "", s[j:]
	}
	var b upperBuf
	for k := i; k < j; k++ {
		c := s[k]
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		b[k-i] = c
	}
	return keywords[string(b[:j-i])], s[j:]
}

type upperBuf [16]byte

// keywords are the words Of reads.
var keywords = func() map[string]string {
	m := map[string]string{}
	for _, w := range []string{"SELECT", "WITH", "VALUES", "TABLE", "INSERT", "UPDATE", "DELETE", "REPLACE",
		"BEGIN", "START", "TRANSACTION", "COMMIT", "ROLLBACK", "TO", "WORK", "SAVEPOINT", "RELEASE", "SET", "USE",
		"SHOW", "GLOBAL", "SESSION", "FULL", "LOCAL", "VARIABLES", "STATUS", "TABLES", "DATABASES",
		"SCHEMAS", "CREATE", "COLUMNS", "FIELDS", "PROCESSLIST", "WARNINGS", "TEMPORARY", "UNIQUE",
		"FULLTEXT", "SPATIAL", "OR", "DATABASE", "SCHEMA", "INDEX", "DROP", "ALTER", "TRUNCATE", "LOCK",
		"UNLOCK", "ANALYZE", "FLUSH", "KILL", "DO"} {
		m[w] = w
	}
	return m
}()

func isLetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// skip is the offset of s's first byte after spaces, comments and '('.
func skip(s string) int {
	i := 0
	for i < len(s) {
		switch c := s[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '(':
			i++
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '-' && i+2 < len(s) && s[i+1] == '-' && (s[i+2] == ' ' || s[i+2] == '\t'):
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := indexFrom(s, "*/", i+2)
			if end < 0 {
				return len(s)
			}
			i = end + 2
		default:
			return i
		}
	}
	return i
}

func indexFrom(s, sub string, from int) int {
	for i := from; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
