package sqlengine

import (
	"context"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
)

// optimizer_switch (issue 31: mysql-test-run reads and sets it). The
// variable reports MySQL 8.0's defaults and takes what MySQL takes:
// 'default', or a list of flags each set to on, off or default, merged
// into the current value (SET optimizer_switch = 'semijoin=off' changes
// that flag only, and @@optimizer_switch then lists every flag). Each
// flag chooses among plans that give the same rows (semijoin, derived
// tables merged or materialized, index merge, ...); Petrel's planner
// has none of these choices, so a flag turned away from its default is
// kept and reported but changes no plan. An unknown flag or value is
// 1231, as in MySQL.

// optimizerFlags are MySQL 8.0's optimizer_switch flags and defaults, in
// its order.
var optimizerFlags = []struct {
	name string
	on   bool
}{
	{"index_merge", true}, {"index_merge_union", true}, {"index_merge_sort_union", true},
	{"index_merge_intersection", true}, {"engine_condition_pushdown", true},
	{"index_condition_pushdown", true}, {"mrr", true}, {"mrr_cost_based", true},
	{"block_nested_loop", true}, {"batched_key_access", false}, {"materialization", true},
	{"semijoin", true}, {"loosescan", true}, {"firstmatch", true}, {"duplicateweedout", true},
	{"subquery_materialization_cost_based", true}, {"use_index_extensions", true},
	{"condition_fanout_filter", true}, {"derived_merge", true}, {"use_invisible_indexes", false},
	{"skip_scan", true}, {"hash_join", true}, {"subquery_to_derived", false},
	{"prefer_ordering_index", true}, {"hypergraph_optimizer", false},
	{"derived_condition_pushdown", true},
}

// defaultOptimizerSwitch is MySQL's default value of optimizer_switch.
func defaultOptimizerSwitch() string {
	parts := make([]string, len(optimizerFlags))
	for i, f := range optimizerFlags {
		v := "off"
		if f.on {
			v = "on"
		}
		parts[i] = f.name + "=" + v
	}
	return strings.Join(parts, ",")
}

// mergeOptimizerSwitch is the value SET optimizer_switch = v gives
// over the current value cur: every flag in MySQL's order, the ones v
// names set as it says ('default': MySQL's default). ok is false for a
// value MySQL refuses.
func mergeOptimizerSwitch(cur, v string) (merged string, ok bool) {
	v = strings.TrimSpace(v)
	if strings.EqualFold(v, "default") {
		return defaultOptimizerSwitch(), true
	}
	state := make([]bool, len(optimizerFlags))
	for i, f := range optimizerFlags {
		state[i] = f.on
	}
	set := func(list string, lenient bool) bool {
		for _, part := range strings.Split(list, ",") {
			name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
			if !ok {
				if lenient {
					continue
				}
				return false
			}
			name, val = strings.ToLower(strings.TrimSpace(name)), strings.ToLower(strings.TrimSpace(val))
			i := optimizerFlagIndex(name)
			switch {
			case i < 0 && lenient:
			case i < 0:
				return false
			case val == "on":
				state[i] = true
			case val == "off":
				state[i] = false
			case val == "default":
				state[i] = optimizerFlags[i].on
			case !lenient:
				return false
			}
		}
		return true
	}
	set(cur, true)
	if !set(v, false) {
		return v, false
	}
	parts := make([]string, len(optimizerFlags))
	for i, f := range optimizerFlags {
		parts[i] = f.name + "=off"
		if state[i] {
			parts[i] = f.name + "=on"
		}
	}
	return strings.Join(parts, ","), true
}

// optimizerFlagIndex is the flag's place in optimizerFlags, or -1.
func optimizerFlagIndex(name string) int {
	for i, f := range optimizerFlags {
		if f.name == name {
			return i
		}
	}
	return -1
}

// checkOptimizerSwitch refuses a value MySQL refuses (1231).
func checkOptimizerSwitch(v string) error {
	if _, ok := mergeOptimizerSwitch("", v); !ok {
		return mysqlerr.New(mysqlerr.ErWrongValueForVar, "Variable 'optimizer_switch' can't be set to the value of '%s'", strings.TrimSpace(v))
	}
	return nil
}

// optimizerSwitchType stores a SET's value merged into the session's
// current one (GMS's string type stores it as written).
type optimizerSwitchType struct{ sql.SystemVariableType }

func (t optimizerSwitchType) Convert(c context.Context, v any) (any, sql.ConvertInRange, error) {
	out, inRange, err := t.SystemVariableType.Convert(c, v)
	s, isStr := out.(string)
	if err != nil || !isStr {
		return out, inRange, err
	}
	// The session's value, read from GMS's session: Petrel's
	// GetSessionVariable reads global-only variables under GMS's lock of
	// the globals, which SET GLOBAL holds while it converts.
	cur := ""
	if ctx, ok := c.(*sql.Context); ok && ctx != nil {
		if sess, ok := ctx.Session.(*Session); ok && sess.BaseSession != nil {
			if v, err := sess.BaseSession.GetSessionVariable(ctx, "optimizer_switch"); err == nil {
				cur, _ = v.(string)
			}
		}
	}
	if merged, ok := mergeOptimizerSwitch(cur, s); ok {
		return merged, inRange, nil
	}
	return s, inRange, nil // refused by NotifyChanged (1231)
}

func optimizerSwitchVariable() sql.SystemVariable {
	return &sql.MysqlSystemVariable{
		Name:    "optimizer_switch",
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Both),
		Dynamic: true,
		Type:    optimizerSwitchType{types.NewSystemStringType("optimizer_switch")},
		Default: defaultOptimizerSwitch(),
		NotifyChanged: func(_ *sql.Context, _ sql.SystemVariableScope, value sql.SystemVarValue) error {
			s, _ := value.Val.(string)
			return checkOptimizerSwitch(s)
		},
	}
}
