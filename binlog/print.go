package binlog

import (
	"errors"
	"fmt"
	"io"
	"time"

	"petrel/binlog/rowenc"
)

// PrintOptions configures Print.
type PrintOptions struct {
	// Verbose decodes row events to pseudo-SQL, as mysqlbinlog -v does.
	Verbose bool
}

// PrintSummary is what Print found in a file.
type PrintSummary struct {
	Events       int
	Transactions int
	Bytes        uint64
}

// Print writes a file's events in mysqlbinlog's style, verifying every
// checksum: a damaged or truncated event stops it with an error naming the
// file and offset. Each transaction ends with a line giving its GTID and
// size in bytes.
func Print(w io.Writer, path string, o PrintOptions) (PrintSummary, error) {
	var sum PrintSummary
	r, err := OpenReader(path)
	if err != nil {
		return sum, err
	}
	defer r.Close()
	fmt.Fprintf(w, "# petrel binlog %s\n", path)
	maps := map[uint64]*TableMap{}
	var (
		txnStart uint64
		txnGTID  string
		inTxn    bool
		events   int
	)
	endTxn := func(end uint64) {
		if txnGTID == "" {
			return
		}
		fmt.Fprintf(w, "# transaction %s: %d events, %d bytes (at %d..%d)\n", txnGTID, events, end-txnStart, txnStart, end)
		sum.Transactions++
		txnGTID, inTxn, events = "", false, 0
	}
	for {
		ev, at, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				return sum, fmt.Errorf("%w: %s at offset %d: truncated event (file ends inside it)", ErrCorrupt, path, at)
			}
			return sum, err
		}
		sum.Events++
		sum.Bytes = at + uint64(len(ev))
		h, _ := ParseHeader(ev)
		end := at + uint64(len(ev))
		fmt.Fprintf(w, "# at %d\n#%s server id %d  end_log_pos %d CRC32 ok\t%s\t%s\n", at,
			time.Unix(int64(h.Timestamp), 0).UTC().Format("060102 15:04:05"), h.ServerID, end, TypeName(ev[4]), Info(ev))
		body := Body(ev)
		switch ev[4] {
		case GTIDEvent:
			g, err := ParseGTID(body)
			if err == nil {
				txnStart, txnGTID, events = at, g.GTID.String(), 0
				fmt.Fprintf(w, "# GTID last_committed=%d sequence_number=%d transaction_length=%d\n", g.LastCommitted, g.SeqNo, g.TxnLen)
			}
		case QueryEvent:
			q, err := ParseQuery(body)
			if err == nil && q.Query == "BEGIN" {
				inTxn = true
			} else if err == nil && !inTxn {
				events++
				endTxn(end)
				continue
			}
		case TableMapEvent:
			tm, err := ParseTableMap(body)
			if err != nil {
				return sum, fmt.Errorf("%s at offset %d: %w", path, at, err)
			}
			maps[tm.TableID] = tm
		case XIDEvent:
			events++
			endTxn(end)
			continue
		}
		events++
		if o.Verbose && IsRowsEvent(ev[4]) && len(body) >= 6 {
			tm := maps[readTableID(body)]
			if tm == nil {
				return sum, fmt.Errorf("%w: %s at offset %d: rows event for unmapped table id %d", ErrCorrupt, path, at, readTableID(body))
			}
			re, err := ParseRows(ev[4], body, tm, nil)
			if err != nil {
				return sum, fmt.Errorf("%s at offset %d: %w", path, at, err)
			}
			printRows(w, tm, re)
		}
	}
	return sum, nil
}

func printRows(w io.Writer, tm *TableMap, re *RowsEvent) {
	name := fmt.Sprintf("`%s`.`%s`", tm.Database, tm.Table)
	image := func(label string, row []any) {
		fmt.Fprintf(w, "### %s\n", label)
		for i, v := range row {
			s := "NULL"
			if v != nil {
				s = rowenc.FormatValue(tm.Columns[i], v)
			}
			fmt.Fprintf(w, "###   @%d=%s\n", i+1, s)
		}
	}
	switch {
	case re.Before == nil:
		for _, r := range re.After {
			fmt.Fprintf(w, "### INSERT INTO %s\n", name)
			image("SET", []any(r))
		}
	case re.After == nil:
		for _, r := range re.Before {
			fmt.Fprintf(w, "### DELETE FROM %s\n", name)
			image("WHERE", []any(r))
		}
	default:
		for i := range re.Before {
			fmt.Fprintf(w, "### UPDATE %s\n", name)
			image("WHERE", []any(re.Before[i]))
			image("SET", []any(re.After[i]))
		}
	}
}
