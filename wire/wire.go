package wire

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/fxamacker/cbor/v2"
)

// ProtocolVersion is the version carried by the ready message. A host refuses
// a runner whose version differs.
const ProtocolVersion = 1

// MaxFrameSize is the largest payload a frame may carry: 16 MiB. A larger
// length prefix ends the connection with [ErrFrameTooLarge].
const MaxFrameSize = 16 << 20

// Errors returned while reading or writing frames. They are wrapped with the
// offending detail; test them with errors.Is.
var (
	// ErrFrameTooLarge reports a frame whose length prefix exceeds MaxFrameSize.
	ErrFrameTooLarge = errors.New("wire: frame too large")
	// ErrMalformed reports a payload that is not a valid message.
	ErrMalformed = errors.New("wire: malformed message")
)

// Kind names a message type. The numbers are the values on the wire.
type Kind uint8

// The message kinds. Direction is host→runner (H→R) or runner→host (R→H).
const (
	KindReady      Kind = 1 // R→H: first message; Version, Runner
	KindExecute    Kind = 2 // H→R: Execution, Source, Filename, Input/HasInput, Namespaces
	KindCancel     Kind = 3 // H→R: Execution
	KindToolCall   Kind = 4 // R→H: Execution, Seq, Namespace, Tool, Input, Site
	KindToolResult Kind = 5 // H→R: Execution, Seq, Output or Error
	KindOutput     Kind = 6 // R→H: Execution, Stream, Text
	KindResult     Kind = 7 // R→H: Execution, Outcome, Content or Error
)

// String returns the protocol name of the kind, as used in PROTOCOL.md.
func (k Kind) String() string {
	switch k {
	case KindReady:
		return "ready"
	case KindExecute:
		return "execute"
	case KindCancel:
		return "cancel"
	case KindToolCall:
		return "tool-call"
	case KindToolResult:
		return "tool-result"
	case KindOutput:
		return "program-output"
	case KindResult:
		return "execution-result"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Stream values for program-output messages.
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
)

// Outcome values for execution-result messages.
const (
	OutcomeSuccess       = "success"
	OutcomeProgramFailed = "program-failed"
)

// Namespace lists the tool names a program sees under one scope property.
type Namespace struct {
	Name  string   `cbor:"1,keyasint"`
	Tools []string `cbor:"2,keyasint"`
}

// Content is one item of a program's ordered result: Type "text" with Text,
// or Type "image" with Data (base64) and MimeType.
type Content struct {
	Type     string `cbor:"1,keyasint" json:"type"`
	Text     string `cbor:"2,keyasint,omitempty" json:"text,omitempty"`
	Data     string `cbor:"3,keyasint,omitempty" json:"data,omitempty"`
	MimeType string `cbor:"4,keyasint,omitempty" json:"mimeType,omitempty"`
}

// Error is a serialised JavaScript or host error: bounded name, message and
// stack text.
type Error struct {
	Name    string `cbor:"1,keyasint" json:"name"`
	Message string `cbor:"2,keyasint" json:"message"`
	Stack   string `cbor:"3,keyasint,omitempty" json:"stack,omitempty"`
}

// Message is the single envelope for every kind; which fields are set
// depends on Kind, and [Message.Check] enforces it. JSON values (program
// input, tool input and output) travel as UTF-8 JSON text in byte strings so
// that neither side reinterprets numbers.
type Message struct {
	Kind       Kind        `cbor:"0,keyasint"`
	Execution  uint64      `cbor:"1,keyasint,omitempty"`
	Version    uint32      `cbor:"2,keyasint,omitempty"`
	Runner     string      `cbor:"3,keyasint,omitempty"`
	Source     string      `cbor:"4,keyasint,omitempty"`
	Filename   string      `cbor:"5,keyasint,omitempty"`
	HasInput   bool        `cbor:"6,keyasint,omitempty"`
	Input      []byte      `cbor:"7,keyasint,omitempty"`
	Namespaces []Namespace `cbor:"8,keyasint,omitempty"`
	Seq        uint64      `cbor:"9,keyasint,omitempty"`
	Namespace  string      `cbor:"10,keyasint,omitempty"`
	Tool       string      `cbor:"11,keyasint,omitempty"`
	Site       string      `cbor:"12,keyasint,omitempty"`
	Output     []byte      `cbor:"13,keyasint,omitempty"`
	Error      *Error      `cbor:"14,keyasint,omitempty"`
	Stream     string      `cbor:"15,keyasint,omitempty"`
	Text       string      `cbor:"16,keyasint,omitempty"`
	Outcome    string      `cbor:"17,keyasint,omitempty"`
	Content    []Content   `cbor:"18,keyasint,omitempty"`
}

// Check reports whether m carries the fields its Kind requires, returning an
// error wrapping ErrMalformed that names the kind and the missing or
// inconsistent field.
func (m *Message) Check() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrMalformed, m.Kind, fmt.Sprintf(format, args...))
	}
	switch m.Kind {
	case KindReady:
		if m.Version == 0 {
			return bad("missing version")
		}
	case KindExecute:
		if m.Execution == 0 {
			return bad("missing execution id")
		}
		if m.Filename == "" {
			return bad("missing filename")
		}
		if m.HasInput != (m.Input != nil) {
			return bad("has-input flag disagrees with input")
		}
		for i, ns := range m.Namespaces {
			if ns.Name == "" {
				return bad("namespace %d has no name", i)
			}
		}
	case KindCancel:
		if m.Execution == 0 {
			return bad("missing execution id")
		}
	case KindToolCall:
		if m.Execution == 0 || m.Seq == 0 {
			return bad("missing execution id or seq")
		}
		if m.Tool == "" || m.Namespace == "" {
			return bad("missing namespace or tool")
		}
	case KindToolResult:
		if m.Execution == 0 || m.Seq == 0 {
			return bad("missing execution id or seq")
		}
		if (m.Error == nil) == (m.Output == nil) {
			return bad("exactly one of output and error must be set")
		}
	case KindOutput:
		if m.Execution == 0 {
			return bad("missing execution id")
		}
		if m.Stream != StreamStdout && m.Stream != StreamStderr {
			return bad("stream %q is neither stdout nor stderr", m.Stream)
		}
	case KindResult:
		if m.Execution == 0 {
			return bad("missing execution id")
		}
		switch m.Outcome {
		case OutcomeSuccess:
			if m.Error != nil {
				return bad("success carries an error")
			}
			for i, c := range m.Content {
				if c.Type != "text" && c.Type != "image" {
					return bad("content %d has type %q", i, c.Type)
				}
			}
		case OutcomeProgramFailed:
			if m.Error == nil {
				return bad("program-failed carries no error")
			}
		default:
			return bad("outcome %q is neither success nor program-failed", m.Outcome)
		}
	default:
		return fmt.Errorf("%w: unknown kind %d", ErrMalformed, uint8(m.Kind))
	}
	return nil
}

var (
	encMode cbor.EncMode
	decMode cbor.DecMode
)

func init() {
	var err error
	encMode, err = cbor.CoreDetEncOptions().EncMode()
	if err != nil {
		panic(err)
	}
	decMode, err = cbor.DecOptions{
		DupMapKey:         cbor.DupMapKeyEnforcedAPF,
		ExtraReturnErrors: cbor.ExtraDecErrorUnknownField,
		MaxNestedLevels:   16,
		MaxArrayElements:  1 << 20,
		MaxMapPairs:       1 << 16,
		IndefLength:       cbor.IndefLengthForbidden,
		TagsMd:            cbor.TagsForbidden,
		UTF8:              cbor.UTF8RejectInvalid,
	}.DecMode()
	if err != nil {
		panic(err)
	}
}

// Marshal encodes m as a CBOR payload (without the length prefix).
func Marshal(m *Message) ([]byte, error) {
	return encMode.Marshal(m)
}

// Unmarshal decodes a payload strictly (no unknown fields, no duplicate keys,
// no tags, valid UTF-8) and checks it, returning an error wrapping
// ErrMalformed on any fault.
func Unmarshal(payload []byte) (*Message, error) {
	m := new(Message)
	if err := decMode.Unmarshal(payload, m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}

// Reader reads frames from a byte stream. It is not safe for concurrent use.
type Reader struct {
	r   *bufio.Reader
	hdr [4]byte
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Read returns the next message. It returns io.EOF at a clean end between
// frames, io.ErrUnexpectedEOF for a stream cut inside a frame,
// ErrFrameTooLarge for an oversized length prefix and ErrMalformed for an
// undecodable payload; after any error the stream must be abandoned.
func (r *Reader) Read() (*Message, error) {
	payload, err := readFrame(r.r, &r.hdr, MaxFrameSize)
	if err != nil {
		return nil, err
	}
	return Unmarshal(payload)
}

// ReadFrame reads one frame from r and returns its payload: a big-endian
// uint32 length of at most limit bytes, then the payload. It reads exactly
// the frame and nothing beyond, so a protocol that follows (the wire
// protocol after a handshake) starts on an unread stream. Errors are as for
// Reader.Read: io.EOF at a clean end, io.ErrUnexpectedEOF inside a frame,
// ErrFrameTooLarge for a length past limit.
func ReadFrame(r io.Reader, limit uint32) ([]byte, error) {
	var hdr [4]byte
	return readFrame(r, &hdr, limit)
}

func readFrame(r io.Reader, hdr *[4]byte, limit uint32) ([]byte, error) {
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("wire: reading frame header: %w", err)
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > limit {
		return nil, fmt.Errorf("%w: frame of %d bytes (limit %d)", ErrFrameTooLarge, n, limit)
	}
	payload := make([]byte, n)
	if _, err := io.ReadFull(r, payload); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("wire: reading %d-byte frame: %w", n, err)
	}
	return payload, nil
}

// WriteFrame writes payload to w as one frame (its big-endian uint32 length,
// then the payload) in a single Write call.
func WriteFrame(w io.Writer, payload []byte) error {
	frame := make([]byte, 4+len(payload))
	binary.BigEndian.PutUint32(frame, uint32(len(payload)))
	copy(frame[4:], payload)
	_, err := w.Write(frame)
	return err
}

// Writer writes frames to a byte stream. It is safe for concurrent use: each
// message is written whole.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter returns a Writer over w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write encodes and writes one message. A message whose encoding exceeds
// MaxFrameSize is refused with ErrFrameTooLarge and nothing is written.
func (w *Writer) Write(m *Message) error {
	payload, err := Marshal(m)
	if err != nil {
		return fmt.Errorf("wire: encoding %s: %w", m.Kind, err)
	}
	if len(payload) > MaxFrameSize {
		return fmt.Errorf("%w: %s message of %d bytes (limit %d)", ErrFrameTooLarge, m.Kind, len(payload), MaxFrameSize)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := WriteFrame(w.w, payload); err != nil {
		return fmt.Errorf("wire: writing %s: %w", m.Kind, err)
	}
	return nil
}
