package histogram

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
)

// The persisted form of a table's statistics (planstats/statspersist.go): one JSON
// record per table, key values as their SQL text.

const MetaVersion = 2

func MetaKey(tableID uint32) string { return fmt.Sprintf("stats/%d", tableID) }

type TableRecord struct {
	Version int           `json:"v"`
	Sig     string        `json:"sig"`
	Rows    uint64        `json:"rows"`
	At      int64         `json:"at"` // unix nanoseconds
	Indexes []IndexRecord `json:"indexes"`
}

type IndexRecord struct {
	Name     string         `json:"name"`
	Rows     uint64         `json:"rows"`
	Distinct uint64         `json:"distinct"`
	Nulls    uint64         `json:"nulls"`
	Prefix   []uint64       `json:"prefix"`
	Lower    []*string      `json:"lower"`
	Buckets  []BucketRecord `json:"buckets"`
}

type BucketRecord struct {
	Rows      uint64      `json:"rows"`
	Distinct  uint64      `json:"distinct"`
	Nulls     uint64      `json:"nulls"`
	Bound     uint64      `json:"bound"`
	Upper     []*string   `json:"upper"`
	Mcvs      [][]*string `json:"mcvs,omitempty"`
	McvCounts []uint64    `json:"mcv_counts,omitempty"`
}

func EncodeKey(ctx *sql.Context, types []sql.Type, row sql.Row) ([]*string, error) {
	out := make([]*string, len(row))
	for i, v := range row {
		if v == nil {
			continue
		}
		sv, err := types[i].SQL(ctx, nil, v)
		if err != nil {
			return nil, err
		}
		s := sv.ToString()
		out[i] = &s
	}
	return out, nil
}

func DecodeKey(ctx *sql.Context, types []sql.Type, vals []*string) (sql.Row, error) {
	if len(vals) != len(types) {
		return nil, fmt.Errorf("key of %d values for %d columns", len(vals), len(types))
	}
	out := make(sql.Row, len(vals))
	for i, s := range vals {
		if s == nil {
			continue
		}
		v, _, err := types[i].Convert(ctx, *s)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}
