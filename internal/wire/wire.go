package wire

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"sync"

	"github.com/fxamacker/cbor/v2"
)

// ProtocolVersion is the major version this package speaks: the value of the
// ready message's version key. Peers of different major versions cannot talk
// (see [Negotiate]).
const ProtocolVersion = 1

// ProtocolMinor is the highest minor version of [ProtocolVersion] this
// package speaks. Minor 1 added the ready message's versions, the execute
// message's limits, seed and clock, the clock of tool-call and
// execution-result, and the execution-result's value. Minor 2 added the
// execute message's scope (a digest that stands for its namespaces once the
// runner holds them) and the execution-result's scopeUnknown. Minor 3 added
// the execute message's setup (a function the runner applies to the scope)
// and prefill (results the runner gives tool calls at once), and the
// tool-call's prefilled, randomDraws and randomBytes. Minor 4 added
// typeScript (a runner that strips TypeScript's types itself says so in
// ready, and a host sends such a runner the program before erasure) and the
// execution-result's stripRefused. Minor 5 added the execution-result's
// cpuLimit. Minor 6 added the tool-result's held and release (a large
// output sent before the host has checked it, and the verdict that lets the
// runner settle the call with it). Minor 7 added the error's data (the
// properties of the Error a tool call rejects with, such as an HTTP
// status). Minor 8 added the execute message's positions (where the
// module's places are in the program as its author wrote it, so that the
// stacks a program reads name its own lines).
const ProtocolMinor = 8

// ExtensionKeys is the smallest key a minor version may add and a decoder
// ignores when it does not know it. A message (or a map nested in one) with
// an unknown key below ExtensionKeys is malformed; an unknown key at or
// above it is skipped, so that a later minor version's optional keys reach
// an older peer harmlessly. Keys 0 to 31 belong to major version 1 as of
// minor 1.
const ExtensionKeys = 32

// Version is one protocol version, major.minor (docs/runner-protocol.md, "Versions").
type Version struct {
	Major uint32 `cbor:"1,keyasint"`
	Minor uint32 `cbor:"2,keyasint,omitempty"`
}

// String returns "major.minor".
func (v Version) String() string {
	return strconv.FormatUint(uint64(v.Major), 10) + "." + strconv.FormatUint(uint64(v.Minor), 10)
}

// less reports whether v is older than w.
func (v Version) less(w Version) bool {
	return v.Major < w.Major || v.Major == w.Major && v.Minor < w.Minor
}

// VersionRange is the inclusive range of versions a peer speaks.
type VersionRange struct {
	Min Version `cbor:"1,keyasint"`
	Max Version `cbor:"2,keyasint"`
}

// String returns "1.0-1.1", or "1.1" for a range of one version.
func (r VersionRange) String() string {
	if r.Min == r.Max {
		return r.Max.String()
	}
	return r.Min.String() + "-" + r.Max.String()
}

// Supported is the range of versions this package speaks: 1.0 to 1.8. A
// peer at an older version is served by leaving out every key it lacks
// ([Message.CheckVersion] names one that is present).
var Supported = VersionRange{Min: Version{1, 0}, Max: Version{ProtocolVersion, ProtocolMinor}}

// ErrVersion reports peers that share no protocol version, or a message
// that carries a key the version in use lacks.
var ErrVersion = errors.New("wire: protocol version mismatch")

// PeerVersions returns the range a ready message announces: its versions,
// or for a 1.0 peer, which sends only version, that major with minor 0.
func (m *Message) PeerVersions() VersionRange {
	if m.Versions != nil {
		return *m.Versions
	}
	return VersionRange{Min: Version{Major: m.Version}, Max: Version{Major: m.Version}}
}

// Negotiate returns the newest version in both ranges, or an error wrapping
// ErrVersion that names both, for example "runner speaks 1.0-1.1, this host
// 2.0". peerName and selfName name the two sides in that message.
func Negotiate(self, peer VersionRange, selfName, peerName string) (Version, error) {
	lo, hi := self.Min, self.Max
	if lo.less(peer.Min) {
		lo = peer.Min
	}
	if peer.Max.less(hi) {
		hi = peer.Max
	}
	if hi.less(lo) {
		return Version{}, fmt.Errorf("%w: %s speaks %s, %s %s", ErrVersion, peerName, peer, selfName, self)
	}
	return hi, nil
}

// MaxArrayElements is the most items an array of a message may hold:
// 1,048,576 (a message's clock values, a result's content items). Unmarshal
// refuses a message with a longer array, and Check a clock longer than
// that; a runner keeps its messages within it (a program reading the clock
// more often in an execution, or appending more content items, gets a
// RangeError).
const MaxArrayElements = 1 << 20

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
	KindReady      Kind = 1 // R→H: first message; Version, Versions, Runner
	KindExecute    Kind = 2 // H→R: Execution, Source, Filename, Input/HasInput, Namespaces, Limits, Seed, Clock, Scope
	KindCancel     Kind = 3 // H→R: Execution
	KindToolCall   Kind = 4 // R→H: Execution, Seq, Namespace, Tool, Input, Site, Clock
	KindToolResult Kind = 5 // H→R: Execution, Seq, Output or Error (Held with Output), or Release
	KindOutput     Kind = 6 // R→H: Execution, Stream, Text
	KindResult     Kind = 7 // R→H: Execution, Outcome, Content or Error, Value, Clock, ScopeUnknown, StripRefused, CPULimit
)

// String returns the protocol name of the kind, as used in docs/runner-protocol.md.
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
// stack text, and its properties (since 1.7): on a tool-result those the
// runner gives the Error it rejects the call with, on an execution-result
// those of the error the program did not catch.
type Error struct {
	Name    string `cbor:"1,keyasint" json:"name"`
	Message string `cbor:"2,keyasint" json:"message"`
	Stack   string `cbor:"3,keyasint,omitempty" json:"stack,omitempty"`
	// Data is a JSON object (UTF-8 text, at most MaxErrorData bytes). On a
	// tool-result, the runner defines its members as own, enumerable
	// properties of the Error it rejects the call with, beside name and
	// message (a member named name, message, stack, constructor, __proto__
	// or like another member of Error.prototype or Object.prototype, such
	// as toString, is skipped): connector/openapi's HTTPError carries its
	// status this way. On a program-failed execution-result, it holds the
	// own, enumerable properties of the error the program ended with (those
	// JSON can hold, bounded by the runner), so that a report of an
	// uncaught QuotaError still says its limit. An extension key of the
	// error map (since 1.7): a runner that does not know it rejects the
	// call without the properties, a host that does not know it reports
	// the error without them.
	Data json.RawMessage `cbor:"32,keyasint,omitempty" json:"data,omitempty"`
}

// MaxErrorData is the most bytes an Error's Data may hold; a host leaves
// out properties that would need more.
const MaxErrorData = 16 << 10

// Limits are one execution's limits, carried by the execute message (since
// 1.1). A zero field means the runner's default. A runner applies each limit
// capped by its own (a driver's options are defaults and hard caps), so a
// host can lower a limit but never raise one past what the runner allows.
type Limits struct {
	// TimeoutMs is the execution's deadline in milliseconds, measured from
	// the execute message. Reaching it fails the execution with a
	// TimeoutError naming the limit.
	TimeoutMs uint64 `cbor:"1,keyasint,omitempty" json:"timeoutMs,omitempty"`
	// MemoryBytes caps the program's heap, in bytes, where the runner can
	// (QuickJS; a Node.js runner shares one heap and ignores it).
	MemoryBytes uint64 `cbor:"2,keyasint,omitempty" json:"memoryBytes,omitempty"`
	// MaxOutput caps console output, in UTF-16 code units; later output is
	// dropped after a truncation notice.
	MaxOutput uint64 `cbor:"3,keyasint,omitempty" json:"maxOutput,omitempty"`
	// MaxContent caps result content, in UTF-16 code units; an append past
	// it throws a RangeError in the program.
	MaxContent uint64 `cbor:"4,keyasint,omitempty" json:"maxContent,omitempty"`
	// MaxTimers caps the timers pending at once; setTimeout past it throws a
	// RangeError naming the limit.
	MaxTimers uint64 `cbor:"5,keyasint,omitempty" json:"maxTimers,omitempty"`
	// CPUMs caps the CPU time the execution's own work may take, in
	// milliseconds: the time the engine runs the program, not the time it
	// waits for tool results or timers. Reaching it fails the execution
	// with a TimeoutError whose message names the CPU time limit. A
	// runner that does not know the key (it is an extension key) ignores
	// it, leaving the deadline alone in force.
	CPUMs uint64 `cbor:"32,keyasint,omitempty" json:"cpuMs,omitempty"`
}

// SeedSize is the size in bytes of an execute message's seed.
const SeedSize = 16

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

	// Since 1.1.

	// Versions is the range of versions a runner speaks (ready); its Max.Major
	// equals Version. Absent from a 1.0 runner.
	Versions *VersionRange `cbor:"19,keyasint,omitempty"`
	// Limits are the execution's limits (execute); nil means the runner's
	// defaults.
	Limits *Limits `cbor:"20,keyasint,omitempty"`
	// Seed seeds the execution's Math.random (execute): SeedSize bytes, or
	// nil for a seed from the runner's random source. One seed gives one
	// sequence on every runner.
	Seed []byte `cbor:"21,keyasint,omitempty"`
	// Clock holds milliseconds since the Unix epoch. In execute, the values
	// Date.now() and new Date() return, in order, before the real clock; in
	// tool-call and execution-result, the values the program observed since
	// the execution's previous tool-call (or its start), so that a host can
	// record them even when it ends the execution early.
	Clock []float64 `cbor:"22,keyasint,omitempty"`
	// Value is the JSON text of what the program's default export resolved
	// to (execution-result, success); nil when it resolved to undefined.
	Value []byte `cbor:"23,keyasint,omitempty"`

	// Since 1.2.

	// Scope names the execute message's namespaces (docs/runner-protocol.md, "Scopes"):
	// a digest of them, at most MaxScopeSize bytes, such as [ScopeDigest]
	// gives. With Namespaces the runner keeps the list under it; without,
	// the runner runs with the list it kept, or answers ScopeUnknown when it
	// keeps none.
	Scope string `cbor:"32,keyasint,omitempty"`
	// ScopeUnknown marks the program-failed execution-result of an execute
	// message whose Scope came without namespaces and named no list the
	// runner keeps: nothing of the program ran, and the host may send the
	// execution again (under a new id) with the list.
	ScopeUnknown bool `cbor:"33,keyasint,omitempty"`

	// Since 1.3.

	// Setup is a scope setup (execute; docs/runner-protocol.md, "Scope setup"): the
	// JavaScript text of a function expression, at most MaxSetupSize bytes.
	// The runner compiles it apart from the program, before the program's
	// module is evaluated (it may keep the compiled form between executions),
	// calls it with the scope, and passes what it returns to the default
	// export. Empty: the default export receives the scope itself.
	Setup string `cbor:"34,keyasint,omitempty"`
	// Prefill holds results the host promises for tool calls by seq
	// (execute; docs/runner-protocol.md, "Prefilled results"), in ascending seq order:
	// the runner answers such a call at once with the output and reports
	// it in a tool-call message with Prefilled set, to which the host sends
	// no tool-result.
	Prefill []Prefilled `cbor:"35,keyasint,omitempty"`
	// Prefilled marks a tool-call the runner answered from the execute
	// message's Prefill: the host checks it and sends no tool-result.
	Prefilled bool `cbor:"36,keyasint,omitempty"`
	// RandomDraws and RandomBytes are how much of its random streams the
	// program had used when it made the call (tool-call): Math.random
	// calls, and bytes of the crypto stream (crypto.getRandomValues,
	// crypto.randomUUID), counted from the execution's start. A host that
	// runs a program again without running part of it (a recorded
	// codemode.step) records them to use as much the next time.
	RandomDraws uint64 `cbor:"37,keyasint,omitempty"`
	RandomBytes uint64 `cbor:"38,keyasint,omitempty"`

	// Since 1.4.

	// TypeScript, in ready, says that the runner strips TypeScript's types
	// from a program itself, keeping every line and column where it was
	// (docs/runner-protocol.md, "Type stripping"); in execute, that Source is TypeScript
	// for the runner to strip. A host sends it only to a runner whose ready
	// said so.
	TypeScript bool `cbor:"39,keyasint,omitempty"`
	// StripRefused marks the program-failed execution-result of an execute
	// message whose TypeScript the runner did not strip (syntax that
	// stripping cannot erase, such as an enum, or a syntax error): nothing
	// of the program ran, and the host may send the execution again, under
	// a new id, as JavaScript.
	StripRefused bool `cbor:"40,keyasint,omitempty"`

	// Since 1.5.

	// CPULimit marks the program-failed execution-result of an execution
	// the runner ended because it passed its CPU time limit
	// (Limits.CPUMs). Only the runner sets it, never the program, so a host
	// can tell the limit from an error a program threw with the same name
	// and message.
	CPULimit bool `cbor:"41,keyasint,omitempty"`

	// Since 1.6.

	// Held marks a tool-result whose Output the host has not yet checked
	// against the tool's output schema (docs/runner-protocol.md, "Held
	// results"): the runner may parse it at once but settles the call only
	// when a second tool-result for the same seq follows, with Release (the
	// output passed: the call is fulfilled with it) or with an Error (the
	// call is rejected and the output dropped). A host sends it for large
	// outputs, so that the runner's parse overlaps the host's check.
	Held bool `cbor:"42,keyasint,omitempty"`
	// Release is the verdict on a held output: it passed, and the call
	// is fulfilled with it. A release carries neither Output nor Error.
	Release bool `cbor:"43,keyasint,omitempty"`

	// Since 1.8.

	// Positions says where the places of the execute message's module are
	// in the program as its author wrote it (docs/runner-protocol.md,
	// "Program positions"), when they differ: a host that wrapped or
	// reprinted the program sends it, and the runner gives the stacks the
	// program reads the program's own lines and columns. The host's
	// reports keep reading the engine's positions.
	Positions *Positions `cbor:"44,keyasint,omitempty"`
}

// Positions maps places of an execute message's module (1-based lines,
// columns in UTF-16 code units, as engines count them) to the program as
// its author wrote it. Points holds five numbers per point, ascending by
// module line and column: the module line and column where the point
// starts, a program line and column, and a PointKind saying how the
// places from it up to the next point map. A place before the first point
// is not the program's.
type Positions struct {
	Points []uint32 `cbor:"1,keyasint,omitempty"`
	// DefaultName is the name the module gives the program's default
	// export (a wrapper that renamed it), which a stack shows as default.
	DefaultName string `cbor:"2,keyasint,omitempty"`
}

// PointKind says how the module places from a point of [Positions] up to
// the next map to the program.
type PointKind uint32

const (
	// PointSame maps each place to the point's program line and column.
	PointSame PointKind = iota
	// PointShift maps the places on the point's line to the point's
	// program line, shifted right as far as they lie right of the point,
	// and those on later lines to as many lines below it, column for
	// column.
	PointShift
	// PointOutside marks places that are not the program's (a wrapper's
	// own code): a stack leaves their frames out.
	PointOutside
	// PointUnknown marks places of the program that cannot be placed: a
	// stack keeps their frames without a position.
	PointUnknown
)

// MaxPositionPoints is the most points a Positions may hold; a host whose
// program needs more ends the last with [PointUnknown].
const MaxPositionPoints = 1 << 16

// MaxDefaultName is the longest DefaultName, in bytes.
const MaxDefaultName = 200

// problem is what is wrong with p, or "".
func (p *Positions) problem() string {
	n := len(p.Points)
	switch {
	case n%5 != 0:
		return fmt.Sprintf("the positions hold %d numbers, not five per point", n)
	case n/5 > MaxPositionPoints:
		return fmt.Sprintf("the positions hold %d points, more than %d", n/5, MaxPositionPoints)
	case len(p.DefaultName) > MaxDefaultName:
		return fmt.Sprintf("the default export's name is %d bytes, more than %d", len(p.DefaultName), MaxDefaultName)
	}
	for i := 0; i < n; i += 5 {
		pt := p.Points[i : i+5]
		switch {
		case pt[0] == 0 || pt[1] == 0:
			return fmt.Sprintf("position point %d starts at line %d, column %d (both count from 1)", i/5, pt[0], pt[1])
		case PointKind(pt[4]) > PointUnknown:
			return fmt.Sprintf("position point %d has kind %d", i/5, pt[4])
		case PointKind(pt[4]) <= PointShift && (pt[2] == 0 || pt[3] == 0):
			return fmt.Sprintf("position point %d maps to line %d, column %d (both count from 1)", i/5, pt[2], pt[3])
		case i > 0 && (pt[0] < p.Points[i-5] || pt[0] == p.Points[i-5] && pt[1] <= p.Points[i-4]):
			return fmt.Sprintf("position point %d does not follow the one before it", i/5)
		}
	}
	return ""
}

// Prefilled is one result of an execute message's Prefill: the JSON text
// a tool call with this seq receives.
type Prefilled struct {
	Seq    uint64 `cbor:"1,keyasint"`
	Output []byte `cbor:"2,keyasint"`
}

// MaxSetupSize is the longest setup an execute message may carry, in bytes.
const MaxSetupSize = 1 << 20

// SetupFilename is the file name runners give a setup's code in stack
// traces.
const SetupFilename = "codemode-setup.js"

// MaxScopeSize is the longest scope an execute message may carry, in bytes.
const MaxScopeSize = 128

// ScopeDigest returns the scope that names namespaces: "sha256:" and the
// hex SHA-256 of their CBOR encoding (as an execute message carries them,
// in order). Equal lists have equal digests; a host computes it once per
// list, not per execution.
func ScopeDigest(namespaces []Namespace) string {
	text, err := encMode.Marshal(namespaces)
	if err != nil {
		// Unreachable: a list of names and strings always encodes.
		text = []byte(err.Error())
	}
	sum := sha256.Sum256(text)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// since is the minor version that introduced each key after 1.0, for
// CheckVersion.
var since = []struct {
	key     int
	minor   uint32
	name    string
	present func(*Message) bool
}{
	{19, 1, "versions", func(m *Message) bool { return m.Versions != nil }},
	{20, 1, "limits", func(m *Message) bool { return m.Limits != nil }},
	{21, 1, "seed", func(m *Message) bool { return m.Seed != nil }},
	{22, 1, "clock", func(m *Message) bool { return m.Clock != nil }},
	{23, 1, "value", func(m *Message) bool { return m.Value != nil }},
	{32, 2, "scope", func(m *Message) bool { return m.Scope != "" }},
	{33, 2, "scopeUnknown", func(m *Message) bool { return m.ScopeUnknown }},
	{34, 3, "setup", func(m *Message) bool { return m.Setup != "" }},
	{35, 3, "prefill", func(m *Message) bool { return m.Prefill != nil }},
	{36, 3, "prefilled", func(m *Message) bool { return m.Prefilled }},
	{37, 3, "randomDraws", func(m *Message) bool { return m.RandomDraws != 0 }},
	{38, 3, "randomBytes", func(m *Message) bool { return m.RandomBytes != 0 }},
	{39, 4, "typeScript", func(m *Message) bool { return m.TypeScript }},
	{40, 4, "stripRefused", func(m *Message) bool { return m.StripRefused }},
	{41, 5, "cpuLimit", func(m *Message) bool { return m.CPULimit }},
	{42, 6, "held", func(m *Message) bool { return m.Held }},
	{43, 6, "release", func(m *Message) bool { return m.Release }},
	{32, 7, "error data", func(m *Message) bool { return m.Error != nil && m.Error.Data != nil }},
	{44, 8, "positions", func(m *Message) bool { return m.Positions != nil }},
}

// CheckVersion reports whether m can be sent to a peer speaking v: that it
// carries none of the keys a later minor version added. The error wraps
// ErrVersion and names the key, so that a host asked for a per-execution
// limit, seed or clock on a 1.0 runner says so instead of dropping it.
func (m *Message) CheckVersion(v Version) error {
	if v.Major != ProtocolVersion {
		return fmt.Errorf("%w: %s message for protocol %s; this package speaks %s", ErrVersion, m.Kind, v, Supported)
	}
	for _, k := range since {
		if v.Minor < k.minor && k.present(m) {
			return fmt.Errorf("%w: the %s message carries %s (key %d), which protocol %s lacks (the peer speaks %s; %s needs 1.%d)", ErrVersion, m.Kind, k.name, k.key, v, v, k.name, k.minor)
		}
	}
	return nil
}

// Check reports whether m carries the fields its Kind requires, returning an
// error wrapping ErrMalformed that names the kind and the missing or
// inconsistent field.
func (m *Message) Check() error {
	if err := m.checkScopeKeys(); err != nil {
		return err
	}
	var problem string
	switch m.Kind {
	case KindReady:
		problem = m.readyProblem()
	case KindExecute:
		problem = m.executeProblem()
	case KindCancel:
		problem = needID(m.Execution)
	case KindToolCall:
		problem = m.toolCallProblem()
	case KindToolResult:
		problem = m.toolResultProblem()
	case KindOutput:
		if problem = needID(m.Execution); problem == "" && m.Stream != StreamStdout && m.Stream != StreamStderr {
			problem = fmt.Sprintf("stream %q is neither stdout nor stderr", m.Stream)
		}
	case KindResult:
		problem = m.resultProblem()
	default:
		return fmt.Errorf("%w: unknown kind %d", ErrMalformed, uint8(m.Kind))
	}
	if problem != "" {
		return fmt.Errorf("%w: %s: %s", ErrMalformed, m.Kind, problem)
	}
	return nil
}

// needID is the problem of a message without its execution id, or "".
func needID(execution uint64) string {
	if execution == 0 {
		return "missing execution id"
	}
	return ""
}

// clockProblem is the problem of clock values that are not finite, or "".
func clockProblem(clock []float64) string {
	if err := checkClock(clock); err != nil {
		return err.Error()
	}
	return ""
}

func (m *Message) readyProblem() string {
	if m.Version == 0 {
		return "missing version"
	}
	if v := m.Versions; v != nil {
		if v.Max.Major != m.Version {
			return fmt.Sprintf("versions %s end at another major than version %d", v, m.Version)
		}
		if v.Max.less(v.Min) {
			return fmt.Sprintf("versions %s are an empty range", v)
		}
	}
	return ""
}

func (m *Message) executeProblem() string {
	switch {
	case m.Execution == 0:
		return "missing execution id"
	case m.Filename == "":
		return "missing filename"
	case m.HasInput != (m.Input != nil):
		return "has-input flag disagrees with input"
	case m.Seed != nil && len(m.Seed) != SeedSize:
		return fmt.Sprintf("seed of %d bytes (want %d)", len(m.Seed), SeedSize)
	case len(m.Scope) > MaxScopeSize:
		return fmt.Sprintf("scope of %d bytes (at most %d)", len(m.Scope), MaxScopeSize)
	}
	for i, ns := range m.Namespaces {
		if ns.Name == "" {
			return fmt.Sprintf("namespace %d has no name", i)
		}
	}
	if m.Positions != nil {
		if p := m.Positions.problem(); p != "" {
			return p
		}
	}
	return clockProblem(m.Clock)
}

func (m *Message) toolCallProblem() string {
	switch {
	case m.Execution == 0 || m.Seq == 0:
		return "missing execution id or seq"
	case m.Tool == "" || m.Namespace == "":
		return "missing namespace or tool"
	}
	return clockProblem(m.Clock)
}

func (m *Message) toolResultProblem() string {
	switch {
	case m.Execution == 0 || m.Seq == 0:
		return "missing execution id or seq"
	case m.Release && (m.Output != nil || m.Error != nil || m.Held):
		return "a release carries no output, error or held mark"
	case m.Release:
		return ""
	case (m.Error == nil) == (m.Output == nil):
		return "exactly one of output and error must be set"
	case m.Held && m.Output == nil:
		return "a held result carries an output"
	}
	return ""
}

func (m *Message) resultProblem() string {
	if m.Execution == 0 {
		return "missing execution id"
	}
	switch m.Outcome {
	case OutcomeSuccess:
		if m.Error != nil {
			return "success carries an error"
		}
		for i, c := range m.Content {
			if c.Type != "text" && c.Type != "image" {
				return fmt.Sprintf("content %d has type %q", i, c.Type)
			}
		}
	case OutcomeProgramFailed:
		if m.Error == nil {
			return "program-failed carries no error"
		}
		if m.Value != nil {
			return "program-failed carries a value"
		}
		if d := m.Error.Data; d != nil && (len(d) > MaxErrorData || !json.Valid(d) || d[0] != '{') {
			return "the error's data is not a JSON object of at most " + strconv.Itoa(MaxErrorData) + " bytes"
		}
	default:
		return fmt.Sprintf("outcome %q is neither success nor program-failed", m.Outcome)
	}
	return clockProblem(m.Clock)
}

// checkClock refuses clock values that are not finite numbers.
func checkClock(clock []float64) error {
	if len(clock) > MaxArrayElements {
		return fmt.Errorf("%d clock values, more than a message carries (%d)", len(clock), MaxArrayElements)
	}
	for i, t := range clock {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return fmt.Errorf("clock value %d is %v", i, t)
		}
	}
	return nil
}

var (
	encMode    cbor.EncMode
	decMode    cbor.DecMode
	decLenient cbor.DecMode // decMode without the unknown-field error
)

func init() {
	var err error
	encMode, err = cbor.CoreDetEncOptions().EncMode()
	if err != nil {
		panic(err)
	}
	opts := cbor.DecOptions{
		DupMapKey:         cbor.DupMapKeyEnforcedAPF,
		ExtraReturnErrors: cbor.ExtraDecErrorUnknownField,
		MaxNestedLevels:   16,
		MaxArrayElements:  MaxArrayElements,
		MaxMapPairs:       1 << 16,
		IndefLength:       cbor.IndefLengthForbidden,
		TagsMd:            cbor.TagsForbidden,
		UTF8:              cbor.UTF8RejectInvalid,
	}
	decMode, err = opts.DecMode()
	if err != nil {
		panic(err)
	}
	opts.ExtraReturnErrors = cbor.ExtraDecErrorNone
	decLenient, err = opts.DecMode()
	if err != nil {
		panic(err)
	}
}

// checkKeys walks the maps of payload that decode into t (a struct, a
// pointer to one, or a slice of either) and refuses an unknown key below
// ExtensionKeys. It runs only when the strict decoder met an unknown key.
func checkKeys(payload cbor.RawMessage, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Struct && t.Elem().Kind() != reflect.Pointer {
			return nil
		}
		var items []cbor.RawMessage
		if err := decLenient.Unmarshal(payload, &items); err != nil {
			return err
		}
		for _, it := range items {
			if err := checkKeys(it, t.Elem()); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
	default:
		return nil
	}
	fields := map[uint64]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("cbor")
		if j := len(tag); j > 0 {
			for k := range tag {
				if tag[k] == ',' {
					j = k
					break
				}
			}
			if n, err := strconv.ParseUint(tag[:j], 10, 64); err == nil {
				fields[n] = f.Type
			}
		}
	}
	var m map[uint64]cbor.RawMessage
	if err := decLenient.Unmarshal(payload, &m); err != nil {
		return err
	}
	for k, raw := range m {
		ft, known := fields[k]
		if !known {
			if k < ExtensionKeys {
				return fmt.Errorf("unknown key %d (below %d, the first extension key)", k, ExtensionKeys)
			}
			continue
		}
		if err := checkKeys(raw, ft); err != nil {
			return err
		}
	}
	return nil
}

// Marshal encodes m as a CBOR payload (without the length prefix).
func Marshal(m *Message) ([]byte, error) {
	return encMode.Marshal(m)
}

// Unmarshal decodes a payload strictly (no unknown keys below
// ExtensionKeys, no duplicate keys, no tags, valid UTF-8) and checks it,
// returning an error wrapping ErrMalformed on any fault. Unknown keys at or
// above ExtensionKeys, in the message or a map nested in it, are skipped.
func Unmarshal(payload []byte) (*Message, error) {
	m := new(Message)
	if err := decMode.Unmarshal(payload, m); err != nil {
		var unknown *cbor.UnknownFieldError
		if !errors.As(err, &unknown) {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		if err := checkKeys(payload, reflect.TypeFor[Message]()); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		*m = Message{}
		if err := decLenient.Unmarshal(payload, m); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}

// checkScopeKeys refuses scope, scopeUnknown, setup, prefill, prefilled,
// typeScript, stripRefused, cpuLimit, held, release and positions where they mean nothing, a setup over MaxSetupSize, and
// prefilled results out of order or not JSON.
func (m *Message) checkScopeKeys() error {
	if m.Scope != "" && m.Kind != KindExecute {
		return fmt.Errorf("%w: %s: carries a scope, which only execute carries", ErrMalformed, m.Kind)
	}
	if m.Setup != "" && m.Kind != KindExecute {
		return fmt.Errorf("%w: %s: carries a setup, which only execute carries", ErrMalformed, m.Kind)
	}
	if len(m.Setup) > MaxSetupSize {
		return fmt.Errorf("%w: %s: the setup is %d bytes, over the limit of %d", ErrMalformed, m.Kind, len(m.Setup), MaxSetupSize)
	}
	if m.Prefill != nil && m.Kind != KindExecute {
		return fmt.Errorf("%w: %s: carries prefilled results, which only execute carries", ErrMalformed, m.Kind)
	}
	for i, p := range m.Prefill {
		if p.Seq == 0 || i > 0 && p.Seq <= m.Prefill[i-1].Seq {
			return fmt.Errorf("%w: %s: prefilled result %d has seq %d; seqs start at 1 and ascend", ErrMalformed, m.Kind, i, p.Seq)
		}
		if !json.Valid(p.Output) {
			return fmt.Errorf("%w: %s: the prefilled result of seq %d is not JSON", ErrMalformed, m.Kind, p.Seq)
		}
	}
	if m.Prefilled && m.Kind != KindToolCall {
		return fmt.Errorf("%w: %s: is marked prefilled, which only a tool-call is", ErrMalformed, m.Kind)
	}
	if (m.RandomDraws != 0 || m.RandomBytes != 0) && m.Kind != KindToolCall {
		return fmt.Errorf("%w: %s: carries random-stream counts, which only a tool-call carries", ErrMalformed, m.Kind)
	}
	if m.ScopeUnknown && (m.Kind != KindResult || m.Outcome != OutcomeProgramFailed) {
		return fmt.Errorf("%w: %s: carries scopeUnknown, which only a program-failed execution-result carries", ErrMalformed, m.Kind)
	}
	if m.TypeScript && m.Kind != KindReady && m.Kind != KindExecute {
		return fmt.Errorf("%w: %s: carries typeScript, which only ready and execute carry", ErrMalformed, m.Kind)
	}
	if m.StripRefused && (m.Kind != KindResult || m.Outcome != OutcomeProgramFailed) {
		return fmt.Errorf("%w: %s: carries stripRefused, which only a program-failed execution-result carries", ErrMalformed, m.Kind)
	}
	if m.CPULimit && (m.Kind != KindResult || m.Outcome != OutcomeProgramFailed) {
		return fmt.Errorf("%w: %s: carries cpuLimit, which only a program-failed execution-result carries", ErrMalformed, m.Kind)
	}
	if (m.Held || m.Release) && m.Kind != KindToolResult {
		return fmt.Errorf("%w: %s: carries held or release, which only a tool-result carries", ErrMalformed, m.Kind)
	}
	if m.Positions != nil && m.Kind != KindExecute {
		return fmt.Errorf("%w: %s: carries positions, which only execute carries", ErrMalformed, m.Kind)
	}
	return nil
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

// encode encodes m, refusing an encoding past MaxFrameSize.
func encode(m *Message) ([]byte, error) {
	payload, err := Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("wire: encoding %s: %w", m.Kind, err)
	}
	if len(payload) > MaxFrameSize {
		return nil, fmt.Errorf("%w: %s message of %d bytes (limit %d)", ErrFrameTooLarge, m.Kind, len(payload), MaxFrameSize)
	}
	return payload, nil
}

// AppendFrame appends m's frame (length prefix and encoding) to dst, for a
// writer that sends several messages in one write. Errors are as for
// Writer.Write; dst is then returned unchanged.
func AppendFrame(dst []byte, m *Message) ([]byte, error) {
	payload, err := encode(m)
	if err != nil {
		return dst, err
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(payload)))
	return append(dst, payload...), nil
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
	payload, err := encode(m)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := WriteFrame(w.w, payload); err != nil {
		return fmt.Errorf("wire: writing %s: %w", m.Kind, err)
	}
	return nil
}
