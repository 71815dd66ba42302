package wire

import (
	"encoding/binary"
	"testing"

	"petrel/internal/base"
)

func TestParseReplicationCommands(t *testing.T) {
	reg := []byte{comRegisterSlave, 7, 0, 0, 0, 4, 'h', 'o', 's', 't', 1, 'u', 2, 'p', 'w', 0xea, 0x0c, 0, 0, 0, 0, 1, 0, 0, 0}
	r, err := ParseRegister(reg)
	if err != nil || r.ServerID != 7 || r.Host != "host" || r.User != "u" || r.Port != 3306 || r.SourceID != 1 {
		t.Fatalf("register: %+v %v", r, err)
	}
	for n := 1; n < 15; n++ {
		if _, err := ParseRegister(reg[:n]); err == nil {
			t.Errorf("register truncated to %d bytes: no error", n)
		}
	}

	dump := []byte{comBinlogDump}
	dump = binary.LittleEndian.AppendUint32(dump, 1234)
	dump = binary.LittleEndian.AppendUint16(dump, 0)
	dump = binary.LittleEndian.AppendUint32(dump, 9)
	dump = append(dump, "binlog.000003"...)
	d, err := ParseDump(dump)
	if err != nil || d.Pos != 1234 || d.ServerID != 9 || d.File != "binlog.000003" || d.GTIDs != nil {
		t.Fatalf("dump: %+v %v", d, err)
	}
	if _, err := ParseDump(dump[:8]); err == nil {
		t.Error("short COM_BINLOG_DUMP: no error")
	}

	set, _ := base.ParseGTIDSet("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7")
	data := set.Encode()
	g := []byte{comBinlogDumpGTID}
	g = binary.LittleEndian.AppendUint16(g, 4)
	g = binary.LittleEndian.AppendUint32(g, 9)
	g = binary.LittleEndian.AppendUint32(g, 0)
	g = binary.LittleEndian.AppendUint64(g, 4)
	g = binary.LittleEndian.AppendUint32(g, uint32(len(data)))
	g = append(g, data...)
	d, err = ParseDump(g)
	if err != nil || d.GTIDs == nil || !d.GTIDs.Equal(set) || d.ServerID != 9 {
		t.Fatalf("dump gtid: %+v %v", d, err)
	}
	for n := 1; n < len(g); n++ {
		if _, err := ParseDump(g[:n]); err == nil {
			t.Errorf("COM_BINLOG_DUMP_GTID truncated to %d bytes: no error", n)
		}
	}
}

// FuzzParseReplicationCommands: no input panics the parsers.
func FuzzParseReplicationCommands(f *testing.F) {
	f.Add([]byte{comRegisterSlave, 1, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{comBinlogDumpGTID, 4, 0, 1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255})
	f.Add([]byte{comBinlogDump, 4, 0, 0, 0, 0, 0, 1, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		switch b[0] {
		case comRegisterSlave:
			ParseRegister(b)
		case comBinlogDump, comBinlogDumpGTID:
			ParseDump(b)
		}
	})
}
