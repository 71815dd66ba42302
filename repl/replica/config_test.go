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
		{in: "SOURCE_AUTO_POSITION=0", wantErr: "must be 1"},
		{in: "SOURCE_LOG_FILE='binlog.000001'", wantErr: "GTID auto-positioning"},
		{in: "SOURCE_HOST='a', SOURCE_HOST='b'", wantErr: "twice"},
		{in: "SOURCE_NOPE=1", wantErr: "unknown"},
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
