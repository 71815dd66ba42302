package sqlmode

import "strings"

// MySQL 8's locking-read clause, as far as vitess parses it (FOR UPDATE,
// FOR UPDATE SKIP LOCKED, LOCK IN SHARE MODE): FOR SHARE is read as FOR
// UPDATE (Petrel takes shared locks as exclusive ones: stronger, never
// weaker), and OF tbl [, tbl] and NOWAIT are blanked in place;
// LockWaitOf reads NOWAIT and SKIP LOCKED from the client's text, which
// the session keeps for the statement's locking reads.

// LockWait is how a locking read treats a row another transaction holds.
type LockWait uint8

const (
	LockWaitBlock  LockWait = iota // wait, up to innodb_lock_wait_timeout
	LockWaitNoWait                 // NOWAIT: fail at once (3572)
	LockWaitSkip                   // SKIP LOCKED: leave the row out
)

// hasLockWords is a cheap filter: the text holds FOR and a lock word.
// It runs on every prepared execution, so it allocates nothing.
func hasLockWords(q string) bool {
	return containsFold(q, "FOR ") && (containsFold(q, "SHARE") || containsFold(q, "NOWAIT") || containsFold(q, " OF ") || containsFold(q, "SKIP"))
}

// containsFold reports whether q holds upper (ASCII upper case) in any
// case, without allocating.
func containsFold(q, upper string) bool {
	n := len(upper)
	for i := 0; i+n <= len(q); i++ {
		j := 0
		for j < n {
			c := q[i+j]
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			if c != upper[j] {
				break
			}
			j++
		}
		if j == n {
			return true
		}
	}
	return false
}

// lockClauses finds each FOR UPDATE / FOR SHARE clause: the token index
// of FOR, and of its last token.
func (t tokText) lockClauses() [][2]int {
	var out [][2]int
	for i := 0; i+1 < len(t.toks); i++ {
		if t.word(i) != "FOR" || (t.word(i+1) != "UPDATE" && t.word(i+1) != "SHARE") {
			continue
		}
		end := i + 1
		if t.word(end+1) == "OF" {
			end += 2
			for t.is(end+1, ",") || t.is(end+1, ".") {
				end += 2
			}
		}
		switch {
		case t.word(end+1) == "NOWAIT":
			end++
		case t.word(end+1) == "SKIP" && t.word(end+2) == "LOCKED":
			end += 2
		}
		out = append(out, [2]int{i, end})
		i = end
	}
	return out
}

// noWaitMark prefixes a prepared statement's text whose NOWAIT the
// prepare rewrite blanked (PreparedLockClause): executions read the mode
// from the text kept at prepare.
const noWaitMark = "/*petrel:nowait*/ "

// PreparedLockClause is a COM_STMT_PREPARE text with its lock clause as
// vitess parses it (vitess parses a prepare's text itself, before any
// handler): lockClause's rewrite, marked when it blanked a NOWAIT.
func PreparedLockClause(q string) string {
	if !hasLockWords(q) {
		return q
	}
	r, added := lockClause(q, false)
	if added == nil {
		return q
	}
	if LockWaitOf(q) == LockWaitNoWait {
		return noWaitMark + r
	}
	return r
}

// LockWaitOf reads q's lock clause for NOWAIT or SKIP LOCKED.
func LockWaitOf(q string) LockWait {
	if strings.HasPrefix(q, noWaitMark) {
		return LockWaitNoWait
	}
	if !hasLockWords(q) {
		return LockWaitBlock
	}
	t := tokText{q: q, toks: sqlTokens(q, false)}
	for _, c := range t.lockClauses() {
		switch {
		case t.word(c[1]) == "NOWAIT":
			return LockWaitNoWait
		case t.word(c[1]) == "LOCKED":
			return LockWaitSkip
		}
	}
	return LockWaitBlock
}

// lockClause rewrites q's lock clauses into what vitess parses.
func lockClause(q string, ansiQuotes bool) (string, []int) {
	if !hasLockWords(q) {
		return q, nil
	}
	t := tokText{q: q, toks: sqlTokens(q, ansiQuotes)}
	var b []byte
	var ins []insert // an E after each SHARE made UPDAT
	blank := func(from, to int) {
		if b == nil {
			b = []byte(q)
		}
		for k := t.toks[from].start; k < t.toks[to].end; k++ {
			b[k] = ' '
		}
	}
	for _, c := range t.lockClauses() {
		kw := c[0] + 1
		j := kw + 1
		if t.word(j) == "OF" {
			k := j + 1
			for t.is(k+1, ",") || t.is(k+1, ".") {
				k += 2
			}
			blank(j, k)
			j = k + 1
		}
		if t.word(j) == "NOWAIT" {
			blank(j, j)
		}
		if t.word(kw) == "SHARE" {
			if b == nil {
				b = []byte(q)
			}
			copy(b[t.toks[kw].start:], "UPDAT")
			ins = append(ins, insert{t.toks[kw].end, "E"})
		}
	}
	if b == nil {
		return q, nil
	}
	if len(ins) == 0 {
		return string(b), []int{}
	}
	return applyInserts(string(b), nil, ins)
}
