package replica

import (
	"testing"
	"time"
)

func TestParseAndApplyOptions(t *testing.T) {
	cases := []struct {
		in      string
		wantErr string
		check   func(c Config) bool
	}{
		{in: "SOURCE_HOST='10.0.0.1', SOURCE_PORT=3307, SOURCE_USER='repl', SOURCE_PASSWORD='p''w\\'x', SOURCE_AUTO_POSITION=1",
			check: func(c Config) bool {
				return c.Host == "10.0.0.1" && c.Port == 3307 && c.User == "repl" && c.Password == "p'w'x" && c.AutoPosition &&
					c.ConnectRetry == DefaultConnectRetry && c.RetryCount == DefaultRetryCount && !c.HeartbeatSet
			}},
		{in: "MASTER_HOST = \"h\" , MASTER_CONNECT_RETRY = 5, MASTER_RETRY_COUNT = 3, MASTER_HEARTBEAT_PERIOD = 0.5",
			check: func(c Config) bool {
				return c.Host == "h" && c.Port == DefaultPort && c.ConnectRetry == 5*time.Second && c.RetryCount == 3 &&
					c.HeartbeatSet && c.HeartbeatPeriod == 500*time.Millisecond
			}},
		{in: "SOURCE_HEARTBEAT_PERIOD=0", check: func(c Config) bool { return c.HeartbeatSet && c.Heartbeat(10*time.Second) == 0 }},
		{in: "SOURCE_HOST='h'", check: func(c Config) bool { return c.Heartbeat(10*time.Second) == 5*time.Second }},
		{in: "SOURCE_PORT='3306'", wantErr: "needs a number"},
		{in: "SOURCE_HOST=h", wantErr: "needs a quoted string"},
		{in: "SOURCE_PORT=70000", wantErr: "out of range"},
		{in: "SOURCE_AUTO_POSITION=0", check: func(c Config) bool { return !c.AutoPosition }},
		{in: "SOURCE_HOST='h'", check: func(c Config) bool { return c.AutoPosition }},
		{in: "SOURCE_LOG_FILE='binlog.000001'", check: func(c Config) bool { return !c.AutoPosition }},
		{in: "SOURCE_AUTO_POSITION=2", wantErr: "out of range"},
		{in: "SOURCE_AUTO_POSITION=1, SOURCE_LOG_POS=4", wantErr: "cannot be set when SOURCE_AUTO_POSITION is active"},
		{in: "MASTER_AUTO_POSITION=1, RELAY_LOG_FILE='r.000001'", wantErr: "cannot be set when SOURCE_AUTO_POSITION is active"},
		{in: "SOURCE_AUTO_POSITION=0, RELAY_LOG_POS=4", wantErr: "not supported"},
		{in: "SOURCE_LOG_POS='4'", wantErr: "needs a number"},
		{in: "SOURCE_HOST='a', SOURCE_HOST='b'", wantErr: "twice"},
		{in: "SOURCE_NOPE=1", wantErr: "unknown"},
		// Options Petrel would not honour are refused, their "none"
		// values accepted.
		{in: "SOURCE_DELAY=0, SOURCE_BIND='', PRIVILEGE_CHECKS_USER=NULL, GET_SOURCE_PUBLIC_KEY=1", check: func(c Config) bool { return true }},
		{in: "MASTER_DELAY=3600", wantErr: "doesn't yet support 'SOURCE_DELAY'"},
		{in: "SOURCE_BIND='10.0.0.2'", wantErr: "doesn't yet support 'SOURCE_BIND'"},
		{in: "PRIVILEGE_CHECKS_USER='applier'@'localhost'", wantErr: "expected ','"},
		{in: "PRIVILEGE_CHECKS_USER='applier'", wantErr: "doesn't yet support 'PRIVILEGE_CHECKS_USER'"},
		{in: "SOURCE_HOST='unterminated", wantErr: "unterminated"},
		{in: "SOURCE_HOST", wantErr: "expected '='"},
		{in: "SOURCE_HOST='a' SOURCE_PORT=1", wantErr: "expected ','"},
		{in: "", wantErr: "expected an option name"},
	}
	for _, c := range cases {
		opts, err := ParseOptions(c.in)
		var cfg Config
		if err == nil {
			cfg, err = Apply(Config{}, opts)
		}
		if c.wantErr != "" {
			if err == nil || !contains(err.Error(), c.wantErr) {
				t.Errorf("%q: err %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if !c.check(cfg) {
			t.Errorf("%q: got %+v", c.in, cfg)
		}
	}
}

// TestChangePositioning: switching between GTID auto-positioning and file
// and position as MySQL does, and what each CHANGE asks of the relay log.
func TestChangePositioning(t *testing.T) {
	auto := Config{Host: "h", Port: 3306, AutoPosition: true, ConnectRetry: time.Second, RetryCount: 1}
	file := auto
	file.AutoPosition = false
	cases := []struct {
		name    string
		cur     Config
		in      string
		auto    bool
		start   *sourcePos
		changed bool
		wantErr error
	}{
		{name: "fresh, file and position", in: "SOURCE_HOST='h', SOURCE_LOG_FILE='binlog.000002', SOURCE_LOG_POS=157", start: &sourcePos{"binlog.000002", 157}},
		{name: "fresh, position only", in: "SOURCE_HOST='h', MASTER_LOG_POS=1000", start: &sourcePos{"", 1000}},
		{name: "fresh, file only starts at 4", in: "SOURCE_HOST='h', SOURCE_LOG_FILE='binlog.000003'", start: &sourcePos{"binlog.000003", 4}},
		{name: "auto replica refuses a position", cur: auto, in: "SOURCE_LOG_POS=157", auto: true, wantErr: ErrAutoPositionConflict},
		{name: "auto to file", cur: auto, in: "SOURCE_AUTO_POSITION=0, SOURCE_LOG_FILE='binlog.000001', SOURCE_LOG_POS=4", start: &sourcePos{"binlog.000001", 4}},
		{name: "auto to file at the relay's position", cur: auto, in: "SOURCE_AUTO_POSITION=0"},
		{name: "file to auto", cur: file, in: "MASTER_AUTO_POSITION=1", auto: true},
		{name: "file stays file", cur: file, in: "SOURCE_CONNECT_RETRY=3"},
		{name: "file, new position", cur: file, in: "SOURCE_LOG_FILE='binlog.000009', SOURCE_LOG_POS=99", start: &sourcePos{"binlog.000009", 99}},
		{name: "another source", cur: file, in: "SOURCE_HOST='h2'", changed: true},
		{name: "same source named again", cur: auto, in: "SOURCE_HOST='h', SOURCE_PORT=3306", auto: true},
	}
	for _, c := range cases {
		opts, err := ParseOptions(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ch, err := applyChange(c.cur, opts)
		if c.wantErr != nil {
			if err != c.wantErr {
				t.Errorf("%s: err %v, want %v", c.name, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		sameStart := (ch.start == nil) == (c.start == nil) && (ch.start == nil || *ch.start == *c.start)
		if ch.cfg.AutoPosition != c.auto || !sameStart || ch.sourceChanged != c.changed {
			t.Errorf("%s: auto=%v start=%+v changed=%v; want auto=%v start=%+v changed=%v", c.name, ch.cfg.AutoPosition, deref(ch.start), ch.sourceChanged, c.auto, deref(c.start), c.changed)
		}
	}
}

func deref(p *sourcePos) any {
	if p == nil {
		return nil
	}
	return struct{ File, Pos any }{p.File, p.Pos}
}

func TestConfigPersists(t *testing.T) {
	dir := t.TempDir()
	if c, err := LoadConfig(dir); err != nil || c != nil {
		t.Fatalf("empty datadir: %v %v", c, err)
	}
	want := Config{Host: "h", Port: 1, User: "u", Password: "p", AutoPosition: true, ConnectRetry: time.Second, RetryCount: 7}
	if err := SaveConfig(dir, &want); err != nil {
		t.Fatal(err)
	}
	got, err := LoadConfig(dir)
	if err != nil || *got != want {
		t.Fatalf("got %+v %v, want %+v", got, err, want)
	}
	if err := SaveConfig(dir, nil); err != nil {
		t.Fatal(err)
	}
	if c, _ := LoadConfig(dir); c != nil {
		t.Fatalf("after removal: %+v", c)
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
