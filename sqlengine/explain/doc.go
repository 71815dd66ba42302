// Package explain answers EXPLAIN in MySQL's forms: traditional EXPLAIN's
// rows (id, select_type, table, type, possible_keys, key, key_len, ref,
// rows, filtered, Extra), FORMAT=JSON's document, FORMAT=TREE's plan with
// each operator's estimated rows, and EXPLAIN ANALYZE's actual rows,
// loops and times per operator.
//
// Contract: it reads the plan GMS built and planstats' estimates, and
// imports no backend code: the engine passes its iterator builder and
// holds the Profile in the session while EXPLAIN ANALYZE runs
// (sqlengine/explainshell.go). Only read-only statements are analysed
// (1235 for others, as MySQL).
package explain
