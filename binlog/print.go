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
// size in bytes. A file whose FORMAT_DESCRIPTION says it is in use (the
// server is writing it, or crashed while it was) may end inside an event:
// that is the end of what is written so far, noted, not an error, as in
// mysqlbinlog.
func Print(w io.Writer, path string, o PrintOptions) (PrintSummary, error) {
	r, err := OpenReader(path)
	if err != nil {
		return PrintSummary{}, err
	}
	defer r.Close()
	fmt.Fprintf(w, "# petrel binlog %s\n", path)
	p := NewPrinter(w, path, o)
	for {
		ev, at, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) {
				if p.InUse() {
					fmt.Fprintf(w, "# %s ends inside an event at offset %d: the file is in use (this is the end of what is written so far) or was not closed properly\n", path, at)
					break
				}
				return p.Sum, fmt.Errorf("%w: %s at offset %d: truncated event (file ends inside it)", ErrCorrupt, path, at)
			}
			return p.Sum, err
		}
		if err := p.Event(ev, at); err != nil {
			return p.Sum, err
		}
	}
	return p.Sum, nil
}

// Printer prints events in mysqlbinlog's style, one at a time: the events
// of a file (Print) or of a replication stream (`petrel binlog
// --read-from-remote-server`). Not safe for concurrent use.
type Printer struct {
	w    io.Writer
	name string // file or stream, in errors
	o    PrintOptions
	maps map[uint64]*TableMap
	// Sum counts what was printed.
	Sum PrintSummary

	inUse    bool
	txnStart uint64
	txnGTID  string
	inTxn    bool
	events   int
}

// NewPrinter prints to w; name names the source in errors.
func NewPrinter(w io.Writer, name string, o PrintOptions) *Printer {
	return &Printer{w: w, name: name, o: o, maps: map[uint64]*TableMap{}}
}

// InUse reports whether the last FORMAT_DESCRIPTION printed has InUseFlag.
func (p *Printer) InUse() bool { return p.inUse }

// Event prints one event that starts at offset at of its file. The event
// must be whole; its checksum is verified.
func (p *Printer) Event(ev []byte, at uint64) error {
	h, err := ParseHeader(ev)
	if err != nil {
		return fmt.Errorf("%s at offset %d: %w", p.name, at, err)
	}
	p.Sum.Events++
	end := at + uint64(len(ev))
	p.Sum.Bytes = end
	return p.event(ev, h, at, end)
}

// event prints one event; the events of a TRANSACTION_PAYLOAD are printed
// (between mysqlbinlog's markers) at the payload's offset and end.
func (p *Printer) event(ev []byte, h EventHeader, at, end uint64) error {
	w := p.w
	fmt.Fprintf(w, "# at %d\n#%s server id %d  end_log_pos %d CRC32 ok\t%s\t%s\n", at,
		time.Unix(int64(h.Timestamp), 0).UTC().Format("060102 15:04:05"), h.ServerID, end, TypeName(ev[4]), Info(ev))
	body := Body(ev)
	switch ev[4] {
	case FormatDescriptionEvent:
		p.inUse = h.Flags&InUseFlag != 0
		if p.inUse {
			fmt.Fprintf(w, "# Warning: this binlog is either in use or was not closed properly.\n")
		}
	case GTIDEvent:
		g, err := ParseGTID(body)
		if err == nil {
			p.txnStart, p.txnGTID, p.events = at, g.GTID.String(), 0
			fmt.Fprintf(w, "# GTID last_committed=%d sequence_number=%d transaction_length=%d\n", g.LastCommitted, g.SeqNo, g.TxnLen)
		}
	case QueryEvent:
		q, err := ParseQuery(body)
		if err == nil && q.Query == "BEGIN" {
			p.inTxn = true
		} else if err == nil && !p.inTxn {
			p.events++
			p.endTxn(end)
			return nil
		}
	case TableMapEvent:
		tm, err := ParseTableMap(body)
		if err != nil {
			return fmt.Errorf("%s at offset %d: %w", p.name, at, err)
		}
		p.maps[tm.TableID] = tm
	case XIDEvent:
		p.events++
		p.endTxn(end)
		return nil
	case TransactionPayloadEvent:
		inner, err := ExpandPayload(ev)
		if err != nil {
			return fmt.Errorf("%s at offset %d: %w", p.name, at, err)
		}
		p.events++
		fmt.Fprintf(w, "# Start of compressed events!\n")
		for _, ie := range inner {
			ih, err := ParseHeader(ie)
			if err == nil {
				err = p.event(ie, ih, at, end)
			}
			if err != nil {
				return err
			}
		}
		fmt.Fprintf(w, "# End of compressed events!\n")
		p.endTxn(end)
		return nil
	}
	p.events++
	if p.o.Verbose && IsRowsEvent(ev[4]) && len(body) >= 6 {
		tm := p.maps[readTableID(body)]
		if tm == nil {
			return fmt.Errorf("%w: %s at offset %d: rows event for unmapped table id %d", ErrCorrupt, p.name, at, readTableID(body))
		}
		re, err := ParseRows(ev[4], body, tm, nil)
		if err != nil {
			return fmt.Errorf("%s at offset %d: %w", p.name, at, err)
		}
		printRows(w, tm, re)
	}
	return nil
}

func (p *Printer) endTxn(end uint64) {
	if p.txnGTID == "" {
		return
	}
	fmt.Fprintf(p.w, "# transaction %s: %d events, %d bytes (at %d..%d)\n", p.txnGTID, p.events, end-p.txnStart, p.txnStart, end)
	p.Sum.Transactions++
	p.txnGTID, p.inTxn, p.events = "", false, 0
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
