package sqlengine

import (
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"petrel/internal/mysqlerr"
)

// optimizer_switch (issue 31: mysql-test-run reads and sets it). Petrel's
// planner has none of these switches, so the variable reports MySQL
// 8.0's defaults, which describe what it does as nearly as anything, and
// takes only values that keep them: 'default', or flags set to their
// default value (or to `default`). Turning a flag away from its default
// is refused with 1235 rather than accepted and ignored; an unknown flag
// or value is 1231, as in MySQL.

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

// checkOptimizerSwitch accepts a value of optimizer_switch that leaves
// every flag at its default.
func checkOptimizerSwitch(v string) error {
	v = strings.TrimSpace(v)
	if strings.EqualFold(v, "default") {
		return nil
	}
	wrong := func() error {
		return mysqlerr.New(mysqlerr.ErWrongValueForVar, "Variable 'optimizer_switch' can't be set to the value of '%s'", v)
	}
	for _, part := range strings.Split(v, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return wrong()
		}
		name, val = strings.ToLower(strings.TrimSpace(name)), strings.ToLower(strings.TrimSpace(val))
		known := false
		for _, f := range optimizerFlags {
			if f.name != name {
				continue
			}
			known = true
			switch {
			case val == "default", val == "on" && f.on, val == "off" && !f.on:
			case val == "on", val == "off":
				return mysqlerr.New(mysqlerr.ErNotSupportedYet, "This version of Petrel doesn't yet support 'optimizer_switch %s=%s' (its planner has no such switch)", name, val)
			default:
				return wrong()
			}
		}
		if !known {
			return wrong()
		}
	}
	return nil
}

func optimizerSwitchVariable() sql.SystemVariable {
	return &sql.MysqlSystemVariable{
		Name:    "optimizer_switch",
		Scope:   sql.GetMysqlScope(sql.SystemVariableScope_Both),
		Dynamic: true,
		Type:    types.NewSystemStringType("optimizer_switch"),
		Default: defaultOptimizerSwitch(),
		NotifyChanged: func(_ *sql.Context, _ sql.SystemVariableScope, value sql.SystemVarValue) error {
			s, _ := value.Val.(string)
			return checkOptimizerSwitch(s)
		},
	}
}
