//go:build unix

package quickjs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"testing"
)

// chunky reads its data in pieces of at most step bytes, failing every
// other read with a deadline error, as an interrupted socket read does.
type chunky struct {
	data      []byte
	step      int
	interrupt bool
	calls     int
}

func (c *chunky) Read(p []byte) (int, error) {
	c.calls++
	if c.interrupt && c.calls%2 == 0 {
		return 0, os.ErrDeadlineExceeded
	}
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.step)], c.data)
	c.data = c.data[n:]
	return n, nil
}

func frameOf(payload []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(payload))), payload...)
}

// TestFrameReader: frames of every size come out whole and in order
// whatever pieces the stream gives, across interrupted reads, and through
// the buffer being let go after a large frame.
func TestFrameReader(t *testing.T) {
	sizes := []int{0, 1, 3, 200, 70 << 10, 3 << 20, 5, frameKeepSize + 1, 9}
	var stream []byte
	var want [][]byte
	for i, n := range sizes {
		f := frameOf(bytes.Repeat([]byte{byte('a' + i)}, n))
		want = append(want, f)
		stream = append(stream, f...)
	}
	cases := []struct {
		name      string
		step      int
		interrupt bool
	}{
		{"whole", len(stream), false},
		{"bytes", 1 << 20, false},
		{"small pieces", 7, false},
		{"interrupted", 100 << 10, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := &chunky{data: stream, step: tc.step, interrupt: tc.interrupt}
			var fr frameReader
			for i := 0; i < len(want); {
				got, err := fr.next(r)
				if errors.Is(err, os.ErrDeadlineExceeded) {
					continue
				}
				if err != nil {
					t.Fatalf("frame %d: %v", i, err)
				}
				if !bytes.Equal(got, want[i]) {
					t.Fatalf("frame %d: %d bytes, want %d", i, len(got), len(want[i]))
				}
				i++
			}
			_, err := fr.next(r)
			for errors.Is(err, os.ErrDeadlineExceeded) {
				_, err = fr.next(r)
			}
			if !errors.Is(err, io.EOF) {
				t.Fatalf("after the last frame: %v, want io.EOF", err)
			}
		})
	}
	t.Run("cut", func(t *testing.T) {
		var fr frameReader
		if _, err := fr.next(&chunky{data: want[3][:50], step: 64}); !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("a frame cut short: %v, want io.ErrUnexpectedEOF", err)
		}
	})
}
