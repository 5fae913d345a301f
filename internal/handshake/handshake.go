// Package handshake is the pre-wire handshake between a runner host
// (internal/runnerhost, `codemode runner serve`) and its clients
// (drivers/remote): the messages, their strict CBOR decoding, the HMAC
// proofs of the pre-shared token, and the address and token checks both
// sides share. drivers/remote/PROTOCOL.md documents it.
package handshake

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/wire"
	"github.com/fxamacker/cbor/v2"
)

// Version is the version of the pre-wire handshake this package
// speaks (drivers/remote/PROTOCOL.md). A host and a client of different
// versions refuse each other with an error naming both versions.
const Version = 1

// ProtocolName is the hello's protocol field: it tells a client that it
// reached a runner host and not some other service.
const ProtocolName = "codemode-runner"

// Sizes of handshake parts, in bytes.
const (
	NonceSize = 32 // random challenge, each direction
	proofSize = 32 // HMAC-SHA256 output

	// MaxClient bounds a frame read from a client before it has
	// authenticated, so an unauthenticated peer cannot make the host
	// allocate more than this.
	MaxClient = 1 << 10
	// MaxHost bounds a frame read from a host: a welcome carries
	// the host driver's type definition files.
	MaxHost = 8 << 20
	// MaxRefusalMessage bounds the message of a refusal.
	MaxRefusalMessage = 1 << 10
)

// Kind is a handshake message type; the numbers are on the wire.
type Kind uint8

const (
	Hello   Kind = 1 // host → client: Protocol, Version, Nonce
	Auth    Kind = 2 // client → host: Version, Nonce, Proof?, Purpose
	Welcome Kind = 3 // host → client: Proof?, Description, Files, or Message saying why there are none
	Refuse  Kind = 4 // host → client: Code, Message
)

// Purposes of a connection, carried by auth.
const (
	PurposeRuntime  = "runtime"  // boot a runtime and relay the wire protocol
	PurposeDescribe = "describe" // receive the welcome (description, files) and close
)

// Refusal codes, carried by refuse.
const (
	RefuseLimit       = "limit"       // the host's connection limit is reached
	RefuseAuth        = "auth"        // the client's proof did not verify
	RefuseVersion     = "version"     // the client's handshake version is not the host's
	RefuseDraining    = "draining"    // the host is shutting down
	RefuseUnavailable = "unavailable" // the host's runtime failed to boot
	RefuseMalformed   = "malformed"   // the client's auth was not a valid message
)

// Message is the single envelope of every handshake message, a CBOR map
// with small-integer keys like the wire protocol's; which fields are set
// depends on Kind and check enforces it.
type Message struct {
	Kind        Kind       `cbor:"0,keyasint"`
	Protocol    string     `cbor:"1,keyasint,omitempty"`
	Version     uint32     `cbor:"2,keyasint,omitempty"`
	Nonce       []byte     `cbor:"3,keyasint,omitempty"`
	Proof       []byte     `cbor:"4,keyasint,omitempty"`
	Purpose     string     `cbor:"5,keyasint,omitempty"`
	Description string     `cbor:"6,keyasint,omitempty"`
	Files       []TypeFile `cbor:"7,keyasint,omitempty"`
	Code        string     `cbor:"8,keyasint,omitempty"`
	Message     string     `cbor:"9,keyasint,omitempty"`
}

// TypeFile is a declaration file in a welcome.
type TypeFile struct {
	Name string `cbor:"1,keyasint"`
	Text string `cbor:"2,keyasint"`
}

// ErrMalformed reports a handshake frame that is not a valid
// message.
var ErrMalformed = errors.New("malformed handshake message")

func (m *Message) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: kind %d: %s", ErrMalformed, m.Kind, fmt.Sprintf(format, args...))
	}
	switch m.Kind {
	case Hello:
		if m.Protocol != ProtocolName {
			return bad("protocol %q is not %q", m.Protocol, ProtocolName)
		}
		if m.Version == 0 {
			return bad("missing version")
		}
		if len(m.Nonce) != NonceSize {
			return bad("nonce of %d bytes, want %d", len(m.Nonce), NonceSize)
		}
	case Auth:
		if m.Version == 0 {
			return bad("missing version")
		}
		if len(m.Nonce) != NonceSize {
			return bad("nonce of %d bytes, want %d", len(m.Nonce), NonceSize)
		}
		if len(m.Proof) != 0 && len(m.Proof) != proofSize {
			return bad("proof of %d bytes, want %d or none", len(m.Proof), proofSize)
		}
		if m.Purpose != PurposeRuntime && m.Purpose != PurposeDescribe {
			return bad("purpose %q", m.Purpose)
		}
	case Welcome:
		if len(m.Proof) != 0 && len(m.Proof) != proofSize {
			return bad("proof of %d bytes, want %d or none", len(m.Proof), proofSize)
		}
		if len(m.Message) > MaxRefusalMessage {
			return bad("message of %d bytes (limit %d)", len(m.Message), MaxRefusalMessage)
		}
	case Refuse:
		if m.Code == "" {
			return bad("missing code")
		}
		if len(m.Message) > MaxRefusalMessage {
			return bad("message of %d bytes (limit %d)", len(m.Message), MaxRefusalMessage)
		}
	default:
		return fmt.Errorf("%w: unknown kind %d", ErrMalformed, m.Kind)
	}
	return nil
}

var (
	hsEnc cbor.EncMode
	hsDec cbor.DecMode
)

func init() {
	var err error
	if hsEnc, err = cbor.CoreDetEncOptions().EncMode(); err != nil {
		panic(err)
	}
	// Strict like the wire protocol, except that unknown keys are ignored:
	// a later handshake version may add fields, and its hello must still
	// decode far enough for the version error to be clear.
	hsDec, err = cbor.DecOptions{
		DupMapKey:        cbor.DupMapKeyEnforcedAPF,
		MaxNestedLevels:  8,
		MaxArrayElements: 1 << 12,
		MaxMapPairs:      64,
		IndefLength:      cbor.IndefLengthForbidden,
		TagsMd:           cbor.TagsForbidden,
		UTF8:             cbor.UTF8RejectInvalid,
	}.DecMode()
	if err != nil {
		panic(err)
	}
}

// Decode decodes and checks one handshake payload (without its
// length prefix). Every fault is an error wrapping ErrMalformed.
func Decode(payload []byte) (*Message, error) {
	m := new(Message)
	if err := hsDec.Unmarshal(payload, m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// Write writes m as one wire frame.
func Write(w io.Writer, m *Message) error {
	payload, err := hsEnc.Marshal(m)
	if err != nil {
		return fmt.Errorf("encoding handshake: %w", err)
	}
	if err := wire.WriteFrame(w, payload); err != nil {
		return fmt.Errorf("writing handshake: %w", err)
	}
	return nil
}

// Read reads one frame of at most limit bytes and decodes it. It
// reads exactly the frame and nothing beyond, so that the wire protocol
// that follows starts on an unread stream.
func Read(r io.Reader, limit int) (*Message, error) {
	payload, err := wire.ReadFrame(r, uint32(limit))
	if errors.Is(err, wire.ErrFrameTooLarge) {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if err != nil {
		return nil, fmt.Errorf("reading handshake: %w", err)
	}
	return Decode(payload)
}

// NewNonce returns NonceSize random bytes.
func NewNonce() []byte {
	b := make([]byte, NonceSize)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return b
}

// Roles in proofs: each side proves with its own context string, so one
// side's proof can never be replayed as the other's.
const (
	RoleClient = "client"
	RoleServer = "server"
)

// Proof is HMAC-SHA256(token, "codemode-runner/1 " role NUL hostNonce
// clientNonce binding): what a side sends to show it holds the token for
// this connection. binding is the TLS exporter value on a TLS connection
// (empty otherwise), so that a proof cannot be relayed to another TLS
// session.
func Proof(token []byte, role string, hostNonce, clientNonce, binding []byte) []byte {
	mac := hmac.New(sha256.New, token)
	fmt.Fprintf(mac, "%s/%d %s\x00", ProtocolName, Version, role)
	mac.Write(hostNonce)
	mac.Write(clientNonce)
	mac.Write(binding)
	return mac.Sum(nil)
}

// ValidProof compares a received proof with the expected one in constant
// time.
func ValidProof(got []byte, token []byte, role string, hostNonce, clientNonce, binding []byte) bool {
	return len(got) == proofSize && hmac.Equal(got, Proof(token, role, hostNonce, clientNonce, binding))
}

// ChannelBinding returns the TLS exporter keying material of a TLS
// connection (RFC 5705 / RFC 8446 §7.5), or nil for a plain one.
func ChannelBinding(c any) ([]byte, error) {
	tc, ok := c.(*tls.Conn)
	if !ok {
		return nil, nil
	}
	st := tc.ConnectionState()
	b, err := st.ExportKeyingMaterial("EXPORTER-codemode-runner", nil, 32)
	if err != nil {
		return nil, fmt.Errorf("TLS channel binding: %w", err)
	}
	return b, nil
}

// ToFiles converts a driver's declaration files for a welcome.
func ToFiles(fs []drivers.TypeDefinitionFile) []TypeFile {
	out := make([]TypeFile, len(fs))
	for i, f := range fs {
		out[i] = TypeFile{Name: f.Name, Text: f.Text}
	}
	return out
}

// FromFiles converts a welcome's files back into declaration files.
func FromFiles(fs []TypeFile) []drivers.TypeDefinitionFile {
	out := make([]drivers.TypeDefinitionFile, len(fs))
	for i, f := range fs {
		out[i] = drivers.TypeDefinitionFile{Name: f.Name, Text: f.Text}
	}
	return out
}

// BoundMessage cuts a refusal message to MaxRefusalMessage bytes on a
// UTF-8 boundary.
func BoundMessage(s string) string {
	if len(s) <= MaxRefusalMessage {
		return s
	}
	cut := MaxRefusalMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
