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
	var head struct {
		Execution uint64 `cbor:"1,keyasint"`
	}
	if err := peekMode.Unmarshal(payload, &head); err != nil || head.Execution == 0 {
		return 0, false
	}
	return head.Execution, true
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
