package binlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"petrel/internal/base"
)

// What Open does with the files before the log continues (recoverFiles):
//
//   - Every file is read whole and every event's checksum verified
//     (checkFile).
//   - Every file but the last must be whole: a complete header, valid
//     events only, no transaction cut short, and a PREVIOUS_GTIDS equal to
//     the previous file's PREVIOUS_GTIDS plus its transactions.
//   - The last file may end in a torn tail: damage with nothing valid
//     after it, or a transaction cut short. It is truncated at the end of
//     its last whole transaction and a WARN line names file and offset.
//   - Damage with a valid event after it, anywhere, is corruption: Open
//     refuses with an ErrCorrupt error naming the file and offset, unless
//     Options.TruncateCorrupt (binlog_recovery_truncate_corrupt) is set,
//     which cuts the log there (cutCorrupt) and says so at ERROR level.
//   - A last file whose header is not whole (a crash while it was being
//     started) holds no transaction: it is removed, and gtid_executed is
//     that of the file before it.
//
// Open then replays into storage what it lacks (recoverStorage) and checks
// the log's gtid_executed against what storage recorded with its last
// transaction (checkGTIDState): a log that lost transactions storage holds
// would issue their GTIDs again, so Open refuses.

// sinkRecord is what storage stores with each applied transaction: where
// it ends in the log, its GTID and the highest GNO this server had issued
// by then (encodeSinkRecord).
type sinkRecord struct {
	pos  Position
	gtid base.GTID
	// ownMax is the highest GNO of this server's own UUID issued up to and
	// including the transaction (0: none, or not recorded).
	ownMax int64
	// hasGTID: gtid and ownMax were recorded (records written by RESET
	// MASTER, and by Petrel before it kept them, have only the position).
	hasGTID bool
}

// sinkRecordV2 marks a record with GTID and ownMax after end and GNO; a
// file name never starts with this byte.
const sinkRecordV2 = 0x01

// encodeSinkRecord encodes a sinkRecord: end, GNO, the marker, ownMax, the
// GTID's UUID, the file name.
func encodeSinkRecord(file string, end uint64, g base.GTID, ownMax int64) []byte {
	b := make([]byte, 0, 41+len(file))
	b = binary.BigEndian.AppendUint64(b, end)
	b = binary.BigEndian.AppendUint64(b, uint64(g.GNO))
	b = append(b, sinkRecordV2)
	b = binary.BigEndian.AppendUint64(b, uint64(ownMax))
	b = append(b, g.SID[:]...)
	return append(b, file...)
}

// decodeSinkRecord parses EncodeSinkPos's and encodeSinkRecord's formats.
func decodeSinkRecord(b []byte) (sinkRecord, error) {
	var r sinkRecord
	if len(b) < 17 {
		return r, fmt.Errorf("binlog: sink position of %d bytes", len(b))
	}
	r.pos.Pos = binary.BigEndian.Uint64(b)
	r.gtid.GNO = int64(binary.BigEndian.Uint64(b[8:]))
	if b[16] != sinkRecordV2 {
		r.pos.File = string(b[16:])
		return r, nil
	}
	if len(b) < 42 {
		return r, fmt.Errorf("binlog: sink record of %d bytes", len(b))
	}
	r.ownMax = int64(binary.BigEndian.Uint64(b[17:]))
	copy(r.gtid.SID[:], b[25:41])
	r.pos.File = string(b[41:])
	r.hasGTID = true
	return r, nil
}

// fileNum is the number in a file name ("binlog.000012" -> 12), -1 if none.
func fileNum(name string) int {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return -1
	}
	n, err := strconv.Atoi(name[i+1:])
	if err != nil {
		return -1
	}
	return n
}

// removeUnindexed removes the file the log would start next if it exists
// outside the index: a crash between its creation and the index update
// left it, and it never held a transaction (appends start after the
// index names the file).
func (l *Log) removeUnindexed() error {
	name := l.nextFileName()
	p := l.path(name)
	st, err := os.Stat(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("binlog: %w", err)
	}
	l.opts.Logger.Warn("binlog: removing a file the index does not name (a crash while it was being started)", "file", name, "size", st.Size())
	if err := os.Remove(p); err != nil {
		return fmt.Errorf("binlog: %w", err)
	}
	return nil
}

// recoverFiles checks every file and leaves the log ready to continue:
// torn tail cut, torn header removed, corruption refused (or cut with
// TruncateCorrupt), executed and purged set. sr is storage's record (nil
// without storage or before its first commit).
func (l *Log) recoverFiles(sr *sinkRecord) error {
	for {
		checks := make([]fileCheck, len(l.files))
		for i, name := range l.files {
			c, err := checkFile(l.path(name))
			if err != nil {
				return err
			}
			c.name = name
			checks[i] = c
		}
		i, at, reason := firstCorruption(checks)
		if i < 0 {
			return l.finishRecovery(checks, sr)
		}
		if !l.opts.TruncateCorrupt {
			c := &checks[i]
			what := "it is not the last file, so it must be whole"
			if c.bad != nil && !c.bad.torn() {
				what = fmt.Sprintf("a valid event follows at offset %d (%d transactions after the damage), so it is not a torn write", c.bad.next, c.bad.after)
			}
			return fmt.Errorf("%w: %s at offset %d: %s; %s. Refusing to start: inspect it with `petrel binlog %s`; "+
				"to start anyway, cutting the binary log at that point (what follows is kept aside, and transactions in it that storage lacks are lost), "+
				"start once with binlog_recovery_truncate_corrupt=ON",
				ErrCorrupt, c.name, at, reason, what, l.path(c.name))
		}
		if err := l.cutCorrupt(checks, i, at, reason, sr); err != nil {
			return err
		}
	}
}

// firstCorruption returns the first file that is corrupt (index -1: none),
// with the offset and the reason.
func firstCorruption(checks []fileCheck) (int, uint64, string) {
	for i := range checks {
		c := &checks[i]
		if i > 0 && c.header > 0 && checks[i-1].whole() {
			if want := checks[i-1].executed(); !c.prev.Equal(want) {
				return i, c.prevAt, fmt.Sprintf("PREVIOUS_GTIDS is %q but %s ends with %q: a file is missing or was replaced", c.prev, checks[i-1].name, want)
			}
		}
		if i < len(checks)-1 && !c.whole() {
			at, reason := c.problem()
			return i, at, reason
		}
		if c.bad != nil && !c.bad.torn() {
			return i, c.bad.at, c.bad.reason
		}
	}
	return -1, 0, ""
}

// finishRecovery handles the last file once no file is corrupt: a torn
// header removes it, a torn tail is cut, and the file is marked finished.
func (l *Log) finishRecovery(checks []fileCheck, sr *sinkRecord) error {
	for len(checks) > 0 && checks[len(checks)-1].header == 0 {
		c := checks[len(checks)-1]
		if sr != nil && sr.pos.File == c.name {
			return fmt.Errorf("%w: %s at offset %d: the header of the newest file is incomplete, yet storage has applied transactions from it up to offset %d; refusing to start",
				ErrCorrupt, c.name, c.validEnd, sr.pos.Pos)
		}
		// Nothing valid follows the damage (firstCorruption): no
		// transaction was ever in the file.
		l.opts.Logger.Warn("binlog: the newest file's header is incomplete (a crash while the file was being started): removing it; gtid_executed is recovered from the files before it",
			"file", c.name, "size", c.size)
		if err := os.Remove(l.path(c.name)); err != nil {
			return fmt.Errorf("binlog: %w", err)
		}
		checks = checks[:len(checks)-1]
		l.files = l.files[:len(l.files)-1]
		if err := l.writeIndex(); err != nil {
			return fmt.Errorf("binlog: index: %w", err)
		}
	}
	l.executed, l.purged = base.NewGTIDSet(), base.NewGTIDSet()
	if len(checks) == 0 {
		return nil
	}
	last := &checks[len(checks)-1]
	path := l.path(last.name)
	if last.validEnd < last.size {
		reason := "incomplete transaction"
		if last.bad != nil {
			reason = fmt.Sprintf("%s at offset %d", last.bad.reason, last.bad.at)
		}
		l.opts.Logger.Warn("binlog: truncating torn tail", "file", last.name, "offset", last.validEnd, "size", last.size, "reason", reason)
	}
	// Truncating, even to the same size, also frees the blocks a crash
	// left preallocated past the end.
	if err := os.Truncate(path, int64(last.validEnd)); err != nil {
		return fmt.Errorf("binlog: truncate %s at %d: %w", last.name, last.validEnd, err)
	}
	if last.inUse {
		if err := finishFile(path); err != nil {
			return err
		}
	}
	l.executed = last.executed()
	l.purged = checks[0].prev.Clone()
	return nil
}

// cutCorrupt is binlog_recovery_truncate_corrupt: it removes from the log
// the corruption at file i offset at and what follows it, keeping the
// bytes aside (<file>.corrupt-<unix time>). If storage holds all of file
// i already (its position is in a later file), file i and the files
// before it leave the log instead, as a purge would. It refuses when
// storage holds transactions after the cut: the log would then lack
// transactions storage has.
func (l *Log) cutCorrupt(checks []fileCheck, i int, at uint64, reason string, sr *sinkRecord) error {
	c := &checks[i]
	stamp := strconv.FormatInt(l.opts.Clock.Now().Unix(), 10)
	aside := func(name, kind string) (string, error) {
		to := name + "." + kind + "-" + stamp
		return to, os.Rename(l.path(name), l.path(to))
	}
	spNum := -1
	if sr != nil {
		spNum = fileNum(sr.pos.File)
	}
	if spNum > fileNum(c.name) && i < len(checks)-1 {
		var moved []string
		for j := 0; j <= i; j++ {
			kind := "purged"
			if j == i {
				kind = "corrupt"
			}
			to, err := aside(l.files[j], kind)
			if err != nil {
				return fmt.Errorf("binlog: %w", err)
			}
			moved = append(moved, to)
		}
		l.files = append([]string(nil), l.files[i+1:]...)
		if err := l.writeIndex(); err != nil {
			return fmt.Errorf("binlog: index: %w", err)
		}
		l.opts.Logger.Error("binlog: binlog_recovery_truncate_corrupt: a corrupt file storage no longer needs was removed from the binary log with the files before it; replicas that still need its transactions will get error 1236",
			"file", c.name, "offset", at, "reason", reason, "kept_aside", strings.Join(moved, ","))
		return nil
	}
	// The cut: the end of the last whole transaction before the damage.
	cut := c.validEnd
	if at < c.validEnd {
		cut = at // the damage is in the header (a PREVIOUS_GTIDS mismatch)
	}
	if sr != nil && spNum == fileNum(c.name) && sr.pos.Pos > cut {
		return fmt.Errorf("%w: %s at offset %d: %s; storage has applied transactions up to offset %d, after the damage, so cutting the binary log there would lose transactions storage holds (their GTIDs would be issued again). "+
			"Refusing to start even with binlog_recovery_truncate_corrupt: restore the binary log from a replica or a backup",
			ErrCorrupt, c.name, at, reason, sr.pos.Pos)
	}
	var moved []string
	for j := len(l.files) - 1; j > i; j-- {
		to, err := aside(l.files[j], "corrupt")
		if err != nil {
			return fmt.Errorf("binlog: %w", err)
		}
		moved = append(moved, to)
	}
	lost := 0
	if c.bad != nil {
		lost = c.bad.after
	}
	if cut < c.header || c.header == 0 {
		// The header is damaged: the whole file goes.
		to, err := aside(c.name, "corrupt")
		if err != nil {
			return fmt.Errorf("binlog: %w", err)
		}
		moved = append(moved, to)
		l.files = l.files[:i]
	} else {
		to, err := l.saveRange(c.name, cut, "corrupt-"+stamp)
		if err != nil {
			return err
		}
		moved = append(moved, to)
		if err := os.Truncate(l.path(c.name), int64(cut)); err != nil {
			return fmt.Errorf("binlog: %w", err)
		}
		l.files = l.files[:i+1]
	}
	if err := l.writeIndex(); err != nil {
		return fmt.Errorf("binlog: index: %w", err)
	}
	l.opts.Logger.Error("binlog: binlog_recovery_truncate_corrupt: cut the binary log at corruption; the transactions after it that storage lacks are lost",
		"file", c.name, "offset", at, "reason", reason, "cut_at", cut, "transactions_after_damage", lost, "files_after", len(checks)-1-i, "kept_aside", strings.Join(moved, ","))
	return nil
}

// saveRange copies file name from offset from to its end into
// <name>.<suffix>, synced.
func (l *Log) saveRange(name string, from uint64, suffix string) (string, error) {
	to := name + "." + suffix
	in, err := os.Open(l.path(name))
	if err != nil {
		return "", fmt.Errorf("binlog: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(l.path(to), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return "", fmt.Errorf("binlog: %w", err)
	}
	defer out.Close()
	if _, err := io.Copy(out, io.NewSectionReader(in, int64(from), 1<<62)); err != nil {
		return "", fmt.Errorf("binlog: keep %s aside: %w", name, err)
	}
	if err := out.Sync(); err != nil {
		return "", fmt.Errorf("binlog: %w", err)
	}
	return to, nil
}

// finishFile clears a file's InUseFlag, durably: the file is complete.
func finishFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("binlog: %w", err)
	}
	err = clearInUse(f)
	return errors.Join(err, f.Close())
}

// clearInUse clears f's InUseFlag and syncs: first the data (so a flag
// cleared on disk always describes a complete file), then the flag.
func clearInUse(f *os.File) error {
	if err := f.Sync(); err != nil {
		return fmt.Errorf("binlog: sync %s: %w", f.Name(), err)
	}
	var b [1]byte
	off := int64(len(Magic) + flagsAt)
	if _, err := f.ReadAt(b[:], off); err != nil {
		return fmt.Errorf("binlog: %s: %w", f.Name(), err)
	}
	if b[0]&byte(InUseFlag) == 0 {
		return nil
	}
	b[0] &^= byte(InUseFlag)
	if _, err := f.WriteAt(b[:], off); err != nil {
		return fmt.Errorf("binlog: %s: %w", f.Name(), err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("binlog: sync %s: %w", f.Name(), err)
	}
	return nil
}

// checkGTIDState refuses a log whose gtid_executed lacks what storage
// recorded with its last transaction: the GTID of that transaction, and
// this server's GNOs up to the highest it had issued. Such a log lost
// transactions (a cut file, a removed header), and would issue their
// GTIDs again, which GTID replicas skip as already executed.
func (l *Log) checkGTIDState(sr *sinkRecord) error {
	if sr == nil || !sr.hasGTID {
		return nil
	}
	own := l.opts.ServerUUID
	if sr.gtid.GNO > 0 && !l.executed.Contains(sr.gtid) {
		return base.Errorf(base.ClassCorrupt,
			"binlog: storage has applied the transaction %s (at %s), but the binary log's GTID history (%q, from %s) lacks it: the binary log lost transactions; refusing to start, as their GTIDs would be issued again",
			sr.gtid, sr.pos, l.executed, l.describeFiles())
	}
	if have := l.executed.Last(own); have < sr.ownMax {
		return base.Errorf(base.ClassCorrupt,
			"binlog: storage records that this server issued GTIDs up to %s:%d, but the binary log's GTID history (%q, from %s) ends at %s:%d: the binary log lost transactions; refusing to start, as their GTIDs would be issued again",
			own, sr.ownMax, l.executed, l.describeFiles(), own, have)
	}
	return nil
}

func (l *Log) describeFiles() string {
	switch len(l.files) {
	case 0:
		return "no binlog file"
	case 1:
		return l.files[0]
	}
	return l.files[0] + ".." + l.files[len(l.files)-1]
}
