package quickjs

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"testing"
)

func TestPipeCarriesBytesBothWaysAndCloses(t *testing.T) {
	a, b := pipe()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 1000; i++ {
			if _, err := a.Write([]byte{byte(i)}); err != nil {
				t.Error(err)
				return
			}
		}
		a.Close()
	}()
	got, err := io.ReadAll(b)
	wg.Wait()
	if err != nil || len(got) != 1000 || got[999] != byte(999%256) {
		t.Fatalf("read %d bytes, err %v", len(got), err)
	}
	if _, err := b.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("write after close: %v", err)
	}
	if _, err := b.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("read after close: %v", err)
	}
}

func TestPipeReadsWhatWasBufferedBeforeClose(t *testing.T) {
	a, b := pipe()
	a.Write([]byte("hello"))
	a.Close()
	got, _ := io.ReadAll(b)
	if !bytes.Equal(got, []byte("hello")) {
		t.Fatalf("got %q", got)
	}
}
