package codeform

import "slices"

// SameNormalization reports whether a and b are the same module with the
// same way back to the code's coordinates.
func SameNormalization(a, b *Normalized) bool {
	return a.Module == b.Module && slices.Equal(a.Lines, b.Lines) && slices.Equal(a.edits, b.edits) && a.captures == b.captures
}
