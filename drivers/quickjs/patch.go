package quickjs

import (
	"bytes"
	"errors"
	"fmt"
)

// The QuickJS module has no import of ours, so nothing in its function table
// reaches Go. The driver needs one such function: QuickJS's interrupt handler
// (JS_SetInterruptHandler), which the interpreter calls every few thousand
// bytecodes, must be a host function so that a running program both checks
// its execution's deadline and gives the Go scheduler a safe point (compiled
// wasm code cannot be preempted; without a call into Go a busy loop would
// block the garbage collector's stop-the-world and with it the process).
//
// addImportToTable rewrites the module so that the imported function
// `module.name` is also in the function table, at index slot, which it
// returns. It grows the table by one and appends one active element segment;
// no function index changes. The import must already exist with the type the
// handler needs, (i32, i32) -> i32; the driver uses WASI's
// environ_sizes_get and implements it itself (see hostWASI).

var errMalformedWasm = errors.New("quickjs: malformed wasm module")

func readULEB(b []byte, i int) (uint64, int, error) {
	var r uint64
	for shift := uint(0); ; shift += 7 {
		if i >= len(b) || shift > 63 {
			return 0, 0, errMalformedWasm
		}
		c := b[i]
		i++
		r |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return r, i, nil
		}
	}
}

func appendULEB(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

func appendSLEB32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func readName(b []byte, i int) (string, int, error) {
	n, i, err := readULEB(b, i)
	if err != nil || i+int(n) > len(b) {
		return "", 0, errMalformedWasm
	}
	return string(b[i : i+int(n)]), i + int(n), nil
}

// importFuncIndex returns the function index of an imported function.
func importFuncIndex(section []byte, module, name string) (uint32, error) {
	count, i, err := readULEB(section, 0)
	if err != nil {
		return 0, err
	}
	var funcs uint32
	for k := uint64(0); k < count; k++ {
		var mod, field string
		if mod, i, err = readName(section, i); err != nil {
			return 0, err
		}
		if field, i, err = readName(section, i); err != nil {
			return 0, err
		}
		if i >= len(section) {
			return 0, errMalformedWasm
		}
		kind := section[i]
		i++
		switch kind {
		case 0x00: // function: type index
			if mod == module && field == name {
				return funcs, nil
			}
			funcs++
			if _, i, err = readULEB(section, i); err != nil {
				return 0, err
			}
		case 0x01: // table: reftype + limits
			i++
			if i, err = skipLimits(section, i); err != nil {
				return 0, err
			}
		case 0x02: // memory: limits
			if i, err = skipLimits(section, i); err != nil {
				return 0, err
			}
		case 0x03: // global: valtype + mutability
			i += 2
		default:
			return 0, fmt.Errorf("%w: import kind %#x", errMalformedWasm, kind)
		}
	}
	return 0, fmt.Errorf("quickjs: the module does not import %s.%s", module, name)
}

func skipLimits(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errMalformedWasm
	}
	flag := b[i]
	i++
	_, i, err := readULEB(b, i)
	if err != nil {
		return 0, err
	}
	if flag&1 != 0 {
		_, i, err = readULEB(b, i)
	}
	return i, err
}

func addImportToTable(wasm []byte, module, name string) ([]byte, uint32, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], []byte("\x00asm")) {
		return nil, 0, errMalformedWasm
	}
	type section struct {
		id      byte
		payload []byte
	}
	var sections []section
	for i := 8; i < len(wasm); {
		id := wasm[i]
		n, j, err := readULEB(wasm, i+1)
		if err != nil || j+int(n) > len(wasm) {
			return nil, 0, errMalformedWasm
		}
		sections = append(sections, section{id, wasm[j : j+int(n)]})
		i = j + int(n)
	}
	var fn, slot uint32
	var haveImport, haveTable, haveElem bool
	for k := range sections {
		s := &sections[k]
		switch s.id {
		case 2:
			idx, err := importFuncIndex(s.payload, module, name)
			if err != nil {
				return nil, 0, err
			}
			fn, haveImport = idx, true
		case 4:
			// One funcref table: count, reftype, limits(flag, min[, max]).
			p := s.payload
			count, i, err := readULEB(p, 0)
			if err != nil || count != 1 || i+2 > len(p) || p[i] != 0x70 {
				return nil, 0, fmt.Errorf("%w: expected one funcref table", errMalformedWasm)
			}
			flag := p[i+1]
			min, j, err := readULEB(p, i+2)
			if err != nil {
				return nil, 0, err
			}
			out := append([]byte{1, 0x70, flag}, appendULEB(nil, min+1)...)
			if flag&1 != 0 {
				max, j2, err := readULEB(p, j)
				if err != nil {
					return nil, 0, err
				}
				if max < min+1 {
					max = min + 1
				}
				out = appendULEB(out, max)
				j = j2
			}
			if j != len(p) {
				return nil, 0, errMalformedWasm
			}
			s.payload = out
			slot, haveTable = uint32(min), true
		case 9:
			haveElem = true
		}
	}
	if !haveImport || !haveTable || !haveElem {
		return nil, 0, fmt.Errorf("%w: needs an import, a table and an element section", errMalformedWasm)
	}
	for k := range sections {
		s := &sections[k]
		if s.id != 9 {
			continue
		}
		count, i, err := readULEB(s.payload, 0)
		if err != nil {
			return nil, 0, err
		}
		seg := []byte{0x00, 0x41}
		seg = appendSLEB32(seg, int32(slot))
		seg = append(seg, 0x0b, 1)
		seg = appendULEB(seg, uint64(fn))
		out := appendULEB(nil, count+1)
		out = append(out, s.payload[i:]...)
		s.payload = append(out, seg...)
	}
	out := append([]byte(nil), wasm[:8]...)
	for _, s := range sections {
		out = append(out, s.id)
		out = appendULEB(out, uint64(len(s.payload)))
		out = append(out, s.payload...)
	}
	return out, slot, nil
}
