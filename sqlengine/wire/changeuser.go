package wire

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"time"

	"github.com/dolthub/vitess/go/mysql"

	"petrel/internal/mysqlerr"
)

// COM_CHANGE_USER, which vitess does not implement (1047): the
// connection logs in again as another account and starts a fresh
// session, as COM_RESET_CONNECTION does (mtr's read_only: mysqltest's
// change_user). The exchange is the wire's: the server always answers
// the command with an AuthSwitchRequest for mysql_native_password with
// a new salt (a client answers it whatever the plugin it started with),
// reads the scramble, and asks the connection's Commands (a UserChanger)
// to check it and reset the session; then OK, or the error and the
// connection closed, as MySQL closes it after a failed change.

// ChangeUserRequest is a COM_CHANGE_USER once the client answered the
// server's salt.
type ChangeUserRequest struct {
	User string
	DB   string // "" for none
	// Salt is the salt the server sent, Scramble the client's
	// mysql_native_password answer to it (empty: no password).
	Salt, Scramble []byte
}

// UserChanger is what a connection's Commands implement to take
// COM_CHANGE_USER.
type UserChanger interface {
	// ChangeUser checks the request's account and password and resets
	// the session for it; the error (MySQL's) is sent to the client,
	// which is then disconnected. status is the OK's status flags.
	ChangeUser(req ChangeUserRequest) (status uint16, err error)
}

// parseChangeUser reads a COM_CHANGE_USER payload p (command byte
// first): user, the auth response (length-prefixed under
// CLIENT_SECURE_CONNECTION, else NUL-terminated), database; the rest
// (character set, plugin name, attributes) is not needed.
func parseChangeUser(p []byte, flags uint32) (user, db string, ok bool) {
	p = p[1:]
	i := bytes.IndexByte(p, 0)
	if i < 0 {
		return "", "", false
	}
	user, p = string(p[:i]), p[i+1:]
	if flags&mysql.CapabilityClientSecureConnection != 0 {
		if len(p) < 1 || len(p) < 1+int(p[0]) {
			return "", "", false
		}
		p = p[1+int(p[0]):]
	} else {
		j := bytes.IndexByte(p, 0)
		if j < 0 {
			return "", "", false
		}
		p = p[j+1:]
	}
	if j := bytes.IndexByte(p, 0); j >= 0 {
		db = string(p[:j])
	} else {
		db = string(p)
	}
	return user, db, true
}

// changeUser answers COM_CHANGE_USER p (sequence 0).
func (c *Conn) changeUser(p []byte) error {
	st := c.state.Load()
	var uc Commands
	if st != nil {
		uc = st.Commands
	}
	changer, ok := uc.(UserChanger)
	if !ok {
		c.writeErr(1, mysqlerr.New(mysqlerr.ErUnknownCom, "Unknown command"))
		return nil
	}
	user, db, ok := parseChangeUser(p, c.clientFlags)
	if !ok {
		c.writeErr(1, errMalformed())
		return nil
	}
	salt := make([]byte, 20)
	if _, err := rand.Read(salt); err != nil {
		return err
	}
	for i := range salt {
		salt[i] = salt[i]&0x7f | 1 // printable-safe, never NUL
		if salt[i] == '$' {
			salt[i] = '#'
		}
	}
	sw := append([]byte{mysql.AuthSwitchRequestPacket}, "mysql_native_password"...)
	sw = append(append(append(sw, 0), salt...), 0)
	if err := c.writePacket(1, sw); err != nil {
		return err
	}
	scramble, err := c.readAuthReply()
	if err != nil {
		return err
	}
	status, err := changer.ChangeUser(ChangeUserRequest{User: user, DB: db, Salt: salt, Scramble: scramble})
	if err != nil {
		var se *mysql.SQLError
		if !errors.As(err, &se) {
			se = mysqlerr.New(mysqlerr.ErAccessDenied, "%s", err.Error())
		}
		c.writeErr(3, se)
		c.Close()
		return errClosedByServer
	}
	ok2 := []byte{mysql.OKPacket, 0, 0}
	ok2 = binary.LittleEndian.AppendUint16(ok2, status)
	ok2 = append(ok2, 0, 0)
	return c.writePacket(3, ok2)
}

// readAuthReply reads the client's answer to the AuthSwitchRequest: one
// frame (a scramble is never 16 MiB), under net_read_timeout.
func (c *Conn) readAuthReply() ([]byte, error) {
	c.setReadDeadline(dlPacket)
	var hdr [4]byte
	if _, err := io.ReadFull(c.br, hdr[:]); err != nil {
		return nil, err
	}
	n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
	if n > maxHandshakeFrame {
		c.writeErr(hdr[3]+1, errMalformed())
		c.Close()
		return nil, errClosedByServer
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(c.br, b); err != nil {
		return nil, err
	}
	return b, nil
}

// writePacket writes payload as one packet of sequence seq.
func (c *Conn) writePacket(seq byte, payload []byte) error {
	n := len(payload)
	b := make([]byte, 0, 4+n)
	b = append(b, byte(n), byte(n>>8), byte(n>>16), seq)
	b = append(b, payload...)
	d := time.Duration(c.netWriteTimeout.Load())
	if d <= 0 {
		d = 10 * time.Second
	}
	_ = c.Conn.SetWriteDeadline(time.Now().Add(d))
	c.wrSetAt.Store(0)
	_, err := c.out().Write(b)
	return err
}
