package wire

import (
	"math"

	"github.com/fxamacker/cbor/v2"
)

// PeekExecution returns the execution id (key 1) of a payload that Unmarshal
// refused, when the payload is a CBOR map whose key 1 is an unsigned
// integer, so that a host can fail that execution alone instead of the
// whole connection. ok is false when no id can be read.
func PeekExecution(payload []byte) (id uint64, ok bool) {
	_, id, ok = PeekHead(payload)
	if id == 0 {
		return 0, false
	}
	return id, ok
}

// PeekHead returns the kind (key 0) and execution id (key 1, 0 when absent)
// of a payload without decoding the rest, for a relay that routes messages
// it does not read: skipping a byte string (a tool's output) copies
// nothing. ok is false when the payload is not a CBOR map whose keys 0 and 1
// are unsigned integers. The message is not checked: a relay that passes
// it on leaves that to the receiver.
func PeekHead(payload []byte) (kind Kind, id uint64, ok bool) {
	var head struct {
		Kind      Kind   `cbor:"0,keyasint"`
		Execution uint64 `cbor:"1,keyasint"`
	}
	if err := peekMode.Unmarshal(payload, &head); err != nil {
		return 0, 0, false
	}
	return head.Kind, head.Execution, true
}

// peekMode decodes leniently: unknown and duplicate keys are ignored, and
// nesting is bounded like the strict mode's. Arrays and maps may be as long
// as the format allows: skipping them allocates nothing, and a message
// refused for an array past MaxArrayElements still names its execution.
var peekMode = func() cbor.DecMode {
	m, err := cbor.DecOptions{MaxNestedLevels: 16, MaxArrayElements: math.MaxInt32, MaxMapPairs: math.MaxInt32}.DecMode()
	if err != nil {
		panic(err)
	}
	return m
}()
