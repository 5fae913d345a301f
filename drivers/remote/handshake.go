package remote

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

// handshakeVersion is the version of the pre-wire handshake this package
// speaks (drivers/remote/PROTOCOL.md). A host and a client of different
// versions refuse each other with an error naming both versions.
const handshakeVersion = 1

// protocolName is the hello's protocol field: it tells a client that it
// reached a runner host and not some other service.
const protocolName = "codemode-runner"

// Sizes of handshake parts, in bytes.
const (
	nonceSize = 32 // random challenge, each direction
	proofSize = 32 // HMAC-SHA256 output

	// maxClientHandshake bounds a frame read from a client before it has
	// authenticated, so an unauthenticated peer cannot make the host
	// allocate more than this.
	maxClientHandshake = 1 << 10
	// maxHostHandshake bounds a frame read from a host: a welcome carries
	// the host driver's type definition files.
	maxHostHandshake = 8 << 20
	// maxRefusalMessage bounds the message of a refusal.
	maxRefusalMessage = 1 << 10
)

// hsKind is a handshake message type; the numbers are on the wire.
type hsKind uint8

const (
	hsHello   hsKind = 1 // host → client: Protocol, Version, Nonce
	hsAuth    hsKind = 2 // client → host: Version, Nonce, Proof?, Purpose
	hsWelcome hsKind = 3 // host → client: Proof?, Description, Files, or Message saying why there are none
	hsRefuse  hsKind = 4 // host → client: Code, Message
)

// Purposes of a connection, carried by auth.
const (
	purposeRuntime  = "runtime"  // boot a runtime and relay the wire protocol
	purposeDescribe = "describe" // receive the welcome (description, files) and close
)

// Refusal codes, carried by refuse.
const (
	refuseLimit       = "limit"       // the host's connection limit is reached
	refuseAuth        = "auth"        // the client's proof did not verify
	refuseVersion     = "version"     // the client's handshake version is not the host's
	refuseDraining    = "draining"    // the host is shutting down
	refuseUnavailable = "unavailable" // the host's runtime failed to boot
	refuseMalformed   = "malformed"   // the client's auth was not a valid message
)

// handshake is the single envelope of every handshake message, a CBOR map
// with small-integer keys like the wire protocol's; which fields are set
// depends on Kind and check enforces it.
type handshake struct {
	Kind        hsKind     `cbor:"0,keyasint"`
	Protocol    string     `cbor:"1,keyasint,omitempty"`
	Version     uint32     `cbor:"2,keyasint,omitempty"`
	Nonce       []byte     `cbor:"3,keyasint,omitempty"`
	Proof       []byte     `cbor:"4,keyasint,omitempty"`
	Purpose     string     `cbor:"5,keyasint,omitempty"`
	Description string     `cbor:"6,keyasint,omitempty"`
	Files       []typeFile `cbor:"7,keyasint,omitempty"`
	Code        string     `cbor:"8,keyasint,omitempty"`
	Message     string     `cbor:"9,keyasint,omitempty"`
}

type typeFile struct {
	Name string `cbor:"1,keyasint"`
	Text string `cbor:"2,keyasint"`
}

// errMalformedHandshake reports a handshake frame that is not a valid
// message.
var errMalformedHandshake = errors.New("malformed handshake message")

func (m *handshake) check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: kind %d: %s", errMalformedHandshake, m.Kind, fmt.Sprintf(format, args...))
	}
	switch m.Kind {
	case hsHello:
		if m.Protocol != protocolName {
			return bad("protocol %q is not %q", m.Protocol, protocolName)
		}
		if m.Version == 0 {
			return bad("missing version")
		}
		if len(m.Nonce) != nonceSize {
			return bad("nonce of %d bytes, want %d", len(m.Nonce), nonceSize)
		}
	case hsAuth:
		if m.Version == 0 {
			return bad("missing version")
		}
		if len(m.Nonce) != nonceSize {
			return bad("nonce of %d bytes, want %d", len(m.Nonce), nonceSize)
		}
		if len(m.Proof) != 0 && len(m.Proof) != proofSize {
			return bad("proof of %d bytes, want %d or none", len(m.Proof), proofSize)
		}
		if m.Purpose != purposeRuntime && m.Purpose != purposeDescribe {
			return bad("purpose %q", m.Purpose)
		}
	case hsWelcome:
		if len(m.Proof) != 0 && len(m.Proof) != proofSize {
			return bad("proof of %d bytes, want %d or none", len(m.Proof), proofSize)
		}
		if len(m.Message) > maxRefusalMessage {
			return bad("message of %d bytes (limit %d)", len(m.Message), maxRefusalMessage)
		}
	case hsRefuse:
		if m.Code == "" {
			return bad("missing code")
		}
		if len(m.Message) > maxRefusalMessage {
			return bad("message of %d bytes (limit %d)", len(m.Message), maxRefusalMessage)
		}
	default:
		return fmt.Errorf("%w: unknown kind %d", errMalformedHandshake, m.Kind)
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

// decodeHandshake decodes and checks one handshake payload (without its
// length prefix). Every fault is an error wrapping errMalformedHandshake.
func decodeHandshake(payload []byte) (*handshake, error) {
	m := new(handshake)
	if err := hsDec.Unmarshal(payload, m); err != nil {
		return nil, fmt.Errorf("%w: %v", errMalformedHandshake, err)
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// writeHandshake writes m as one wire frame.
func writeHandshake(w io.Writer, m *handshake) error {
	payload, err := hsEnc.Marshal(m)
	if err != nil {
		return fmt.Errorf("encoding handshake: %w", err)
	}
	if err := wire.WriteFrame(w, payload); err != nil {
		return fmt.Errorf("writing handshake: %w", err)
	}
	return nil
}

// readHandshake reads one frame of at most limit bytes and decodes it. It
// reads exactly the frame and nothing beyond, so that the wire protocol
// that follows starts on an unread stream.
func readHandshake(r io.Reader, limit int) (*handshake, error) {
	payload, err := wire.ReadFrame(r, uint32(limit))
	if errors.Is(err, wire.ErrFrameTooLarge) {
		return nil, fmt.Errorf("%w: %v", errMalformedHandshake, err)
	}
	if err != nil {
		return nil, fmt.Errorf("reading handshake: %w", err)
	}
	return decodeHandshake(payload)
}

// newNonce returns nonceSize random bytes.
func newNonce() []byte {
	b := make([]byte, nonceSize)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return b
}

// Roles in proofs: each side proves with its own context string, so one
// side's proof can never be replayed as the other's.
const (
	roleClient = "client"
	roleServer = "server"
)

// proof is HMAC-SHA256(token, "codemode-runner/1 " role NUL hostNonce
// clientNonce binding): what a side sends to show it holds the token for
// this connection. binding is the TLS exporter value on a TLS connection
// (empty otherwise), so that a proof cannot be relayed to another TLS
// session.
func proof(token []byte, role string, hostNonce, clientNonce, binding []byte) []byte {
	mac := hmac.New(sha256.New, token)
	fmt.Fprintf(mac, "%s/%d %s\x00", protocolName, handshakeVersion, role)
	mac.Write(hostNonce)
	mac.Write(clientNonce)
	mac.Write(binding)
	return mac.Sum(nil)
}

// validProof compares a received proof with the expected one in constant
// time.
func validProof(got []byte, token []byte, role string, hostNonce, clientNonce, binding []byte) bool {
	return len(got) == proofSize && hmac.Equal(got, proof(token, role, hostNonce, clientNonce, binding))
}

// channelBinding returns the TLS exporter keying material of a TLS
// connection (RFC 5705 / RFC 8446 §7.5), or nil for a plain one.
func channelBinding(c any) ([]byte, error) {
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

func toFiles(fs []drivers.TypeDefinitionFile) []typeFile {
	out := make([]typeFile, len(fs))
	for i, f := range fs {
		out[i] = typeFile{Name: f.Name, Text: f.Text}
	}
	return out
}

func fromFiles(fs []typeFile) []drivers.TypeDefinitionFile {
	out := make([]drivers.TypeDefinitionFile, len(fs))
	for i, f := range fs {
		out[i] = drivers.TypeDefinitionFile{Name: f.Name, Text: f.Text}
	}
	return out
}

// boundMessage cuts a refusal message to maxRefusalMessage bytes on a
// UTF-8 boundary.
func boundMessage(s string) string {
	if len(s) <= maxRefusalMessage {
		return s
	}
	cut := maxRefusalMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
