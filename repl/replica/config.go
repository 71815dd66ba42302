package replica

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dolthub/vitess/go/vt/vttls"
	"os"
	"path/filepath"
	"petrel/internal/fsutil"
	"strconv"
	"strings"
	"time"
)

// Config is the replication source configuration (CHANGE REPLICATION
// SOURCE TO), persisted in the datadir.
type Config struct {
	Host     string `json:"host"`
	Port     int    `json:"port"`
	User     string `json:"user"`
	Password string `json:"password"`
	// AutoPosition: GTID auto-positioning (SOURCE_AUTO_POSITION=1, Petrel's
	// default); false replicates by file and position, resuming from the
	// position the relay log records (position.go).
	AutoPosition bool `json:"auto_position"`
	// ConnectRetry is the wait between reconnection attempts.
	ConnectRetry time.Duration `json:"connect_retry"`
	// RetryCount bounds reconnection attempts after a failure.
	RetryCount int `json:"retry_count"`
	// HeartbeatPeriod asks the source for heartbeats; 0 = replica_net_timeout/2.
	HeartbeatPeriod time.Duration `json:"heartbeat_period"`
	// HeartbeatSet records an explicit SOURCE_HEARTBEAT_PERIOD (0 disables).
	HeartbeatSet bool `json:"heartbeat_set"`
	// SSL: the link to the source is TLS (SOURCE_SSL=1). SSLCA verifies
	// the source's certificate chain (SOURCE_SSL_CA); SSLVerifyServerCert
	// its host name too (SOURCE_SSL_VERIFY_SERVER_CERT=1). SSLCert and
	// SSLKey are the replica's client certificate (SOURCE_SSL_CERT,
	// SOURCE_SSL_KEY).
	SSL                 bool   `json:"ssl,omitempty"`
	SSLCA               string `json:"ssl_ca,omitempty"`
	SSLCert             string `json:"ssl_cert,omitempty"`
	SSLKey              string `json:"ssl_key,omitempty"`
	SSLVerifyServerCert bool   `json:"ssl_verify_server_cert,omitempty"`
	// CompressionAlgorithms is SOURCE_COMPRESSION_ALGORITHMS: the protocol
	// compression the link may use, in order of preference ("zstd",
	// "zlib", "uncompressed"; "" = uncompressed). ZstdLevel is
	// SOURCE_ZSTD_COMPRESSION_LEVEL (1-22; 0 = the default, 3).
	CompressionAlgorithms string `json:"compression_algorithms,omitempty"`
	ZstdLevel             int    `json:"zstd_level,omitempty"`
	// AutoFailover: SOURCE_CONNECTION_AUTO_FAILOVER=1, the receiver picks
	// its source from the source list (failover.go).
	AutoFailover bool `json:"auto_failover,omitempty"`
}

// Petrel's defaults: short retries, many of them (the seeds' lesson: a
// replica must heal a flaky WAN link by itself, quickly).
const (
	DefaultConnectRetry = 2 * time.Second
	DefaultRetryCount   = 86400
	DefaultPort         = 3306
)

// Configured reports whether a source was set.
func (c *Config) Configured() bool { return c != nil && c.Host != "" }

// Heartbeat is the heartbeat period to request given replica_net_timeout.
func (c *Config) Heartbeat(netTimeout time.Duration) time.Duration {
	if c.HeartbeatSet {
		return c.HeartbeatPeriod
	}
	return netTimeout / 2
}

// Option is one NAME = value pair of CHANGE REPLICATION SOURCE TO.
type Option struct {
	Name  string // upper case, MASTER_ spellings mapped to SOURCE_
	Value string
	// Quoted: the value was a string literal.
	Quoted bool
}

// ParseOptions parses the option list of CHANGE REPLICATION SOURCE TO /
// CHANGE MASTER TO: NAME = 'string' | number, separated by commas.
func ParseOptions(s string) ([]Option, error) {
	var out []Option
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	for {
		skip()
		start := i
		for i < len(s) && (s[i] == '_' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 'a' && s[i] <= 'z' || s[i] >= '0' && s[i] <= '9') {
			i++
		}
		name := strings.ToUpper(s[start:i])
		if name == "" {
			return nil, fmt.Errorf("expected an option name at %q", s[start:])
		}
		skip()
		if i >= len(s) || s[i] != '=' {
			return nil, fmt.Errorf("expected '=' after %s", name)
		}
		i++
		skip()
		opt := Option{Name: canonical(name)}
		switch {
		case i < len(s) && (s[i] == '\'' || s[i] == '"'):
			v, next, closed := scanQuoted(s, i)
			if !closed {
				return nil, fmt.Errorf("unterminated string for %s", name)
			}
			i = next
			opt.Value, opt.Quoted = v, true
		default:
			start := i
			for i < len(s) && s[i] != ',' && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' {
				i++
			}
			opt.Value = s[start:i]
			if opt.Value == "" {
				return nil, fmt.Errorf("missing value for %s", name)
			}
		}
		out = append(out, opt)
		skip()
		if i >= len(s) {
			return out, nil
		}
		if s[i] != ',' {
			return nil, fmt.Errorf("expected ',' after %s", name)
		}
		i++
	}
}

func canonical(name string) string {
	if strings.HasPrefix(name, "MASTER_") {
		return "SOURCE_" + strings.TrimPrefix(name, "MASTER_")
	}
	return name
}

// ErrAutoPositionConflict is MySQL's ER_BAD_REPLICA_AUTO_POSITION (1776).
// NotSupportedError refuses a CHANGE REPLICATION SOURCE option Petrel
// would not honour (MySQL's ER_NOT_SUPPORTED_YET).
type NotSupportedError struct{ Option, Why string }

func (e *NotSupportedError) Error() string {
	return fmt.Sprintf("This version of Petrel doesn't yet support '%s' (%s)", e.Option, e.Why)
}

var ErrAutoPositionConflict = errors.New("Parameters SOURCE_LOG_FILE, SOURCE_LOG_POS, RELAY_LOG_FILE and RELAY_LOG_POS cannot be set when SOURCE_AUTO_POSITION is active.")

// change is what one CHANGE REPLICATION SOURCE TO does.
type change struct {
	cfg Config
	// start is the position SOURCE_LOG_FILE / SOURCE_LOG_POS ask for (nil:
	// not given; File "": the current file).
	start *sourcePos
	// sourceChanged: SOURCE_HOST or SOURCE_PORT names another server.
	sourceChanged bool
}

// Apply returns cfg changed by opts (CHANGE REPLICATION SOURCE keeps the
// options it does not name). Errors name the offending option.
func Apply(cfg Config, opts []Option) (Config, error) {
	c, err := applyChange(cfg, opts)
	return c.cfg, err
}

// applyChange is Apply with the positioning facts Replica.Change acts on.
// SOURCE_AUTO_POSITION defaults to the current setting, or for a replica
// not configured yet to 1 (Petrel's default) unless SOURCE_LOG_FILE or
// SOURCE_LOG_POS is given.
func applyChange(cfg Config, opts []Option) (change, error) {
	seen := map[string]bool{}
	hostChanged := false
	old := cfg
	var start *sourcePos
	auto := -1
	for _, o := range opts {
		if seen[o.Name] {
			return change{cfg: cfg}, fmt.Errorf("option %s is given twice", o.Name)
		}
		seen[o.Name] = true
		str := func() (string, error) {
			if !o.Quoted {
				return "", fmt.Errorf("%s needs a quoted string", o.Name)
			}
			return o.Value, nil
		}
		num := func(lo, hi float64) (float64, error) {
			if o.Quoted {
				return 0, fmt.Errorf("%s needs a number", o.Name)
			}
			v, err := strconv.ParseFloat(o.Value, 64)
			if err != nil || v < lo || v > hi {
				return 0, fmt.Errorf("%s = %s is out of range [%g, %g]", o.Name, o.Value, lo, hi)
			}
			return v, nil
		}
		var err error
		var v float64
		switch o.Name {
		case "SOURCE_HOST":
			cfg.Host, err = str()
			hostChanged = true
		case "SOURCE_USER":
			cfg.User, err = str()
		case "SOURCE_PASSWORD":
			cfg.Password, err = str()
		case "SOURCE_PORT":
			if v, err = num(0, 65535); err == nil {
				cfg.Port = int(v)
			}
			hostChanged = true
		case "SOURCE_AUTO_POSITION":
			if v, err = num(0, 1); err == nil {
				auto = int(v)
			}
		case "SOURCE_LOG_FILE":
			if start == nil {
				start = &sourcePos{}
			}
			start.File, err = str()
		case "SOURCE_LOG_POS":
			if start == nil {
				start = &sourcePos{}
			}
			if v, err = num(0, 1<<32-1); err == nil {
				start.Pos = uint64(v)
			}
		case "SOURCE_CONNECT_RETRY":
			if v, err = num(1, 31536000); err == nil {
				cfg.ConnectRetry = time.Duration(v * float64(time.Second))
			}
		case "SOURCE_RETRY_COUNT":
			if v, err = num(0, 1<<31-1); err == nil {
				cfg.RetryCount = int(v)
			}
		case "SOURCE_HEARTBEAT_PERIOD":
			if v, err = num(0, 4294967); err == nil {
				if v > 0 && v < 0.001 {
					v = 0
				}
				cfg.HeartbeatPeriod = time.Duration(v * float64(time.Second))
				cfg.HeartbeatSet = true
			}
		case "SOURCE_SSL":
			if v, err = num(0, 1); err == nil {
				cfg.SSL = v == 1
			}
		case "SOURCE_SSL_VERIFY_SERVER_CERT":
			if v, err = num(0, 1); err == nil {
				cfg.SSLVerifyServerCert = v == 1
			}
		case "SOURCE_CONNECTION_AUTO_FAILOVER":
			if v, err = num(0, 1); err == nil {
				cfg.AutoFailover = v == 1
			}
		case "SOURCE_SSL_CA":
			cfg.SSLCA, err = str()
		case "SOURCE_SSL_CERT":
			cfg.SSLCert, err = str()
		case "SOURCE_SSL_KEY":
			cfg.SSLKey, err = str()
		case "RELAY_LOG_FILE", "RELAY_LOG_POS":
			// Checked below: with auto-positioning MySQL's 1776 comes first.
		case "SOURCE_COMPRESSION_ALGORITHMS":
			if cfg.CompressionAlgorithms, err = str(); err == nil {
				cfg.CompressionAlgorithms, err = parseCompressionAlgorithms(cfg.CompressionAlgorithms)
			}
		case "SOURCE_ZSTD_COMPRESSION_LEVEL":
			n, perr := strconv.Atoi(o.Value)
			if o.Quoted || perr != nil || n < 1 || n > 22 {
				err = &CompressionLevelError{Value: o.Value}
			} else {
				cfg.ZstdLevel = n
			}
		case "SOURCE_DELAY":
			// A delayed replica is a safety net an operator counts on:
			// refused rather than accepted and not honoured.
			if v, err = num(0, 1<<31-1); err == nil && v != 0 {
				err = &NotSupportedError{Option: o.Name, Why: "Petrel replicas apply without delay"}
			}
		case "SOURCE_BIND", "PRIVILEGE_CHECKS_USER":
			// Only their "none" values are accepted: binding to an address
			// and applying under another account's privileges are not done.
			if !(o.Value == "" || !o.Quoted && strings.EqualFold(o.Value, "NULL")) {
				err = &NotSupportedError{Option: o.Name, Why: "only '' or NULL is accepted"}
			}
		case "GET_SOURCE_PUBLIC_KEY", "REQUIRE_ROW_FORMAT", "GTID_ONLY":
			// Accepted for compatibility. Petrel's sources log rows only, and
			// a replica that cannot authenticate fails to connect and says so.
		default:
			err = fmt.Errorf("unknown CHANGE REPLICATION SOURCE option %s", o.Name)
		}
		if err != nil {
			return change{cfg: cfg}, err
		}
	}
	switch {
	case auto >= 0:
		cfg.AutoPosition = auto == 1
	case !old.Configured():
		cfg.AutoPosition = start == nil
	}
	if cfg.AutoPosition && (start != nil || seen["RELAY_LOG_FILE"] || seen["RELAY_LOG_POS"]) {
		return change{cfg: cfg}, ErrAutoPositionConflict
	}
	if err := checkFailover(cfg, seen["SOURCE_CONNECTION_AUTO_FAILOVER"]); err != nil {
		return change{cfg: cfg}, err
	}
	if seen["RELAY_LOG_FILE"] || seen["RELAY_LOG_POS"] {
		return change{cfg: cfg}, errors.New("RELAY_LOG_FILE and RELAY_LOG_POS are not supported: Petrel's relay log records the source position itself; use SOURCE_LOG_FILE and SOURCE_LOG_POS")
	}
	if hostChanged && cfg.Port == 0 {
		cfg.Port = DefaultPort
	}
	if start != nil && start.Pos < 4 {
		start.Pos = 4
	}
	if cfg.ConnectRetry == 0 {
		cfg.ConnectRetry = DefaultConnectRetry
	}
	if !seen["SOURCE_RETRY_COUNT"] && cfg.RetryCount == 0 {
		cfg.RetryCount = DefaultRetryCount
	}
	if (cfg.SSLCert == "") != (cfg.SSLKey == "") {
		return change{cfg: cfg}, errors.New("SOURCE_SSL_CERT and SOURCE_SSL_KEY must be given together")
	}
	changed := old.Configured() && (cfg.Host != old.Host || cfg.Port != old.Port)
	return change{cfg: cfg, start: start, sourceChanged: changed}, nil
}

const configFile = "replica.json"

// LoadConfig reads the persisted configuration; nil when none.
func LoadConfig(datadir string) (*Config, error) {
	b, err := os.ReadFile(filepath.Join(datadir, configFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("replica: %s is corrupt: %v", configFile, err)
	}
	return &c, nil
}

// SaveConfig writes the configuration atomically (nil removes it). The
// file holds the source password: it is readable by the owner only.
func SaveConfig(datadir string, c *Config) error {
	p := filepath.Join(datadir, configFile)
	if c == nil {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	b, _ := json.MarshalIndent(c, "", "  ")
	return fsutil.WriteFileAtomic(p, append(b, '\n'), 0o600)
}

// SslMode is how the link to the source uses TLS.
func (c *Config) SslMode() vttls.SslMode {
	switch {
	case !c.SSL:
		return vttls.Disabled
	case c.SSLVerifyServerCert:
		return vttls.VerifyIdentity
	case c.SSLCA != "":
		return vttls.VerifyCA
	}
	return vttls.Required
}

// scanQuoted reads the SQL string literal that starts at s[i] (its quote,
// ' or "): backslash escapes and a doubled quote stand for the character.
// It returns the value and the index after the closing quote; ok is false
// when the literal is not closed.
func scanQuoted(s string, i int) (value string, next int, ok bool) {
	q := s[i]
	i++
	var b strings.Builder
	for i < len(s) {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			b.WriteByte(s[i+1])
			i += 2
			continue
		}
		if c == q {
			if i+1 < len(s) && s[i+1] == q {
				b.WriteByte(q)
				i += 2
				continue
			}
			return b.String(), i + 1, true
		}
		b.WriteByte(c)
		i++
	}
	return "", i, false
}
