package durable

import (
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/codemode-go/codemode/durable/store"
)

// jsLength is the length JavaScript reports for s: UTF-16 code units.
func jsLength(s []byte) int {
	if utf8.Valid(s) {
		n := 0
		for _, r := range string(s) {
			n += utf16.RuneLen(r)
		}
		return n
	}
	return len(s)
}

// valueTooLargeError is a value over store.MaxValueLength that the journal
// would have to keep (a call's arguments or result, a step's value, the
// code):
// it fails the execution, since keeping it cut would replay other data.
type valueTooLargeError struct {
	What   string // "arguments of github.create_issue", "result of …", "result of step \"t\"", "code"
	Length int    // its length in UTF-16 code units of JSON text
}

// Error advises storing the data elsewhere.
func (e *valueTooLargeError) Error() string {
	return fmt.Sprintf("durable value too large: the %s is %d characters of JSON, over the limit of %d; store the data elsewhere (a file, an object store) and pass a small reference such as its path",
		e.What, e.Length, store.MaxValueLength)
}

// checkDurable returns a *valueTooLargeError when v is over the limit.
func checkDurable(what string, v []byte) error {
	if len(v) <= store.MaxValueLength {
		return nil // UTF-16 length never exceeds the UTF-8 byte length
	}
	if n := jsLength(v); n > store.MaxValueLength {
		return &valueTooLargeError{What: what, Length: n}
	}
	return nil
}
