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

func appendSLEB32(b []byte, v int32) []byte { return appendSLEB64(b, int64(v)) }

func appendSLEB64(b []byte, v int64) []byte {
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
	sections, err := splitSections(wasm)
	if err != nil {
		return nil, 0, err
	}
	fn, haveImport := uint32(0), false
	for _, s := range sections {
		if s.id == 2 {
			if fn, err = importFuncIndex(s.payload, module, name); err != nil {
				return nil, 0, err
			}
			haveImport = true
		}
	}
	if !haveImport {
		return nil, 0, fmt.Errorf("%w: needs an import section", errMalformedWasm)
	}
	slot, err := addToTable(sections, fn)
	if err != nil {
		return nil, 0, err
	}
	return joinSections(wasm, sections), slot, nil
}

// addToTable grows the module's one funcref table by one slot and appends
// an active element segment that puts function fn in it; it returns the
// slot. No other index changes.
func addToTable(sections []wasmSection, fn uint32) (uint32, error) {
	var slot uint32
	var haveTable, haveElem bool
	for k := range sections {
		s := &sections[k]
		switch s.id {
		case 4:
			// One funcref table: count, reftype, limits(flag, min[, max]).
			p := s.payload
			count, i, err := readULEB(p, 0)
			if err != nil || count != 1 || i+2 > len(p) || p[i] != 0x70 {
				return 0, fmt.Errorf("%w: expected one funcref table", errMalformedWasm)
			}
			flag := p[i+1]
			min, j, err := readULEB(p, i+2)
			if err != nil {
				return 0, err
			}
			out := append([]byte{1, 0x70, flag}, appendULEB(nil, min+1)...)
			if flag&1 != 0 {
				max, j2, err := readULEB(p, j)
				if err != nil {
					return 0, err
				}
				if max < min+1 {
					max = min + 1
				}
				out = appendULEB(out, max)
				j = j2
			}
			if j != len(p) || min >= 1<<31 {
				return 0, errMalformedWasm
			}
			s.payload = out
			slot, haveTable = uint32(min), true
		case 9:
			haveElem = true
		}
	}
	if !haveTable || !haveElem {
		return 0, fmt.Errorf("%w: needs a table and an element section", errMalformedWasm)
	}
	for k := range sections {
		s := &sections[k]
		if s.id != 9 {
			continue
		}
		count, i, err := readULEB(s.payload, 0)
		if err != nil {
			return 0, err
		}
		seg := []byte{0x00, 0x41}
		seg = appendSLEB32(seg, int32(slot))
		seg = append(seg, 0x0b, 1)
		seg = appendULEB(seg, uint64(fn))
		out := appendULEB(nil, count+1)
		out = append(out, s.payload[i:]...)
		s.payload = append(out, seg...)
	}
	return slot, nil
}

// The C stack. The module keeps its C stack in linear memory, addressed by
// its one global, __stack_pointer, which every function that needs a frame
// lowers on entry and restores on return; it starts as 64 KiB just above the
// static data, and nothing checks it, so deep recursion in C writes over
// the engine's data. QuickJS has its own check (js_check_stack_overflow:
// the stack pointer against rt->stack_limit, a RangeError "Maximum call
// stack size exceeded"), but this WASI build always sets stack_limit to 0,
// which turns it off; JS_SetMaxStackSize only stores 0 there.
//
// instrument rewrites the module so that the stack can be moved and cannot
// overflow, and so that the driver can tell an out-of-memory failure:
//   - it exports __stack_pointer as stackPointerExport and adds a mutable
//     i32 global exported as stackFloorExport (0: no floor);
//   - after every `global.set` of __stack_pointer it inserts the check
//     binaryen's --stack-check pass inserts: if the new stack pointer is
//     below the floor, `unreachable`. The check runs before the function
//     touches its new frame, so an overflow traps without writing below the
//     floor;
//   - it adds a mutable i32 global exported as outOfMemoryExport, and makes
//     JS_ThrowOutOfMemory set it to 1 on entry. Every allocation failure
//     QuickJS reports goes through that function; when even the error object
//     cannot be allocated QuickJS throws `null` instead, and the flag is how
//     the driver still knows what happened;
//   - at the head of every loop it counts down a new global and, every
//     pollEvery iterations, calls the imported environ_sizes_get with the
//     interrupt handler's opaque value: the same deadline poll QuickJS's
//     interpreter makes (host.go), now also inside long C builtins
//     (JSON.stringify's cycle check, regular expression backtracking,
//     indexOf, join), which otherwise run past any deadline and, since wasm
//     cannot be preempted, hold up the Go runtime's stop-the-world.
//
// Nothing else moves: no function, global or table index changes. The driver
// gives the stack a region of its own and sets the globals (machine.go).
const (
	stackPointerExport = "codemode_stack_pointer"
	stackFloorExport   = "codemode_stack_floor"
	outOfMemoryExport  = "codemode_out_of_memory"
)

// pollEvery is how many loop iterations in the engine's C code pass between
// two deadline polls. A poll is a call into Go of about 0.1 us.
const pollEvery = 4096

// wasmSection is one section of a module: its id and payload.
type wasmSection struct {
	id      byte
	payload []byte
}

func splitSections(wasm []byte) ([]wasmSection, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], []byte("\x00asm")) {
		return nil, errMalformedWasm
	}
	var sections []wasmSection
	for i := 8; i < len(wasm); {
		id := wasm[i]
		n, j, err := readULEB(wasm, i+1)
		if err != nil || j+int(n) > len(wasm) || j+int(n) < j {
			return nil, errMalformedWasm
		}
		sections = append(sections, wasmSection{id, wasm[j : j+int(n)]})
		i = j + int(n)
	}
	return sections, nil
}

func joinSections(header []byte, sections []wasmSection) []byte {
	out := append([]byte(nil), header[:8]...)
	for _, s := range sections {
		out = append(out, s.id)
		out = appendULEB(out, uint64(len(s.payload)))
		out = append(out, s.payload...)
	}
	return out
}

// importCounts counts the imported functions and globals of an import
// section.
func importCounts(section []byte) (funcs, globals uint32, err error) {
	count, i, err := readULEB(section, 0)
	if err != nil {
		return 0, 0, err
	}
	for k := uint64(0); k < count; k++ {
		if _, i, err = readName(section, i); err != nil {
			return 0, 0, err
		}
		if _, i, err = readName(section, i); err != nil {
			return 0, 0, err
		}
		if i >= len(section) {
			return 0, 0, errMalformedWasm
		}
		kind := section[i]
		i++
		switch kind {
		case 0x00:
			funcs++
			_, i, err = readULEB(section, i)
		case 0x01:
			i, err = skipLimits(section, i+1)
		case 0x02:
			i, err = skipLimits(section, i)
		case 0x03:
			globals++
			i += 2
		default:
			err = fmt.Errorf("%w: import kind %#x", errMalformedWasm, kind)
		}
		if err != nil {
			return 0, 0, err
		}
	}
	return funcs, globals, nil
}

func instrument(wasm []byte) ([]byte, error) {
	sections, err := splitSections(wasm)
	if err != nil {
		return nil, err
	}
	var haveGlobal, haveExport, haveCode bool
	var imported, pollFunc uint32
	oomFunc := int64(-1)
	for k := range sections {
		s := &sections[k]
		switch s.id {
		case 2:
			funcs, globals, err := importCounts(s.payload)
			if err != nil {
				return nil, err
			} else if globals != 0 {
				return nil, fmt.Errorf("quickjs: the module imports %d globals; the stack guard expects none", globals)
			}
			imported = funcs
			if pollFunc, err = importFuncIndex(s.payload, "wasi_snapshot_preview1", "environ_sizes_get"); err != nil {
				return nil, err
			}
		case 6:
			// Exactly one global, (mut i32) = i32.const N: __stack_pointer.
			p := s.payload
			if len(p) < 5 || p[0] != 1 || p[1] != 0x7f || p[2] != 0x01 || p[3] != 0x41 {
				return nil, fmt.Errorf("%w: expected one mutable i32 global, the stack pointer", errMalformedWasm)
			}
			if _, j, err := readULEB(p, 4); err != nil || j+1 != len(p) || p[j] != 0x0b {
				return nil, fmt.Errorf("%w: the stack pointer's initial value is not a constant", errMalformedWasm)
			}
			// Global 1, the floor, and global 2, the out-of-memory flag:
			// (mut i32) = i32.const 0. Global 3, the poll countdown.
			s.payload = append(append([]byte{4}, p[1:]...), 0x7f, 0x01, 0x41, 0x00, 0x0b, 0x7f, 0x01, 0x41, 0x00, 0x0b, 0x7f, 0x01)
			s.payload = append(appendSLEB32(append(s.payload, 0x41), pollEvery), 0x0b)
			haveGlobal = true
		case 7:
			count, i, err := readULEB(s.payload, 0)
			if err != nil {
				return nil, err
			}
			if oomFunc, err = exportedFunc(s.payload, "JS_ThrowOutOfMemory"); err != nil {
				return nil, err
			}
			if oomFunc < int64(imported) {
				return nil, errors.New("quickjs: the module does not export JS_ThrowOutOfMemory")
			}
			out := appendULEB(nil, count+3)
			out = append(out, s.payload[i:]...)
			for g, name := range []string{stackPointerExport, stackFloorExport, outOfMemoryExport} {
				out = appendULEB(out, uint64(len(name)))
				out = append(out, name...)
				out = append(out, 0x03, byte(g))
			}
			s.payload = out
			haveExport = true
		case 10:
			if oomFunc < 0 {
				return nil, fmt.Errorf("%w: the code section comes before the exports", errMalformedWasm)
			}
			code, err := guardCode(s.payload, uint64(oomFunc)-uint64(imported), loopPoll(pollFunc))
			if err != nil {
				return nil, err
			}
			s.payload = code
			haveCode = true
		}
	}
	if !haveGlobal || !haveExport || !haveCode {
		return nil, fmt.Errorf("%w: the stack guard needs a global, an export and a code section", errMalformedWasm)
	}
	return joinSections(wasm, sections), nil
}

// stackCheck follows every `global.set 0`: global.get 0; global.get 1;
// i32.lt_u; if; unreachable; end.
var stackCheck = []byte{0x23, 0x00, 0x23, 0x01, 0x49, 0x04, 0x40, 0x00, 0x0b}

// setOutOfMemory starts JS_ThrowOutOfMemory: i32.const 1; global.set 2.
var setOutOfMemory = []byte{0x41, 0x01, 0x24, 0x02}

// loopPoll is the code added at the head of every loop: count down global
// 3, and when it reaches 0, reset it and call fn(0, interruptOpaque).
func loopPoll(fn uint32) []byte {
	b := []byte{0x23, 0x03, 0x41, 0x01, 0x6b, 0x24, 0x03, 0x23, 0x03, 0x45, 0x04, 0x40, 0x41}
	b = appendSLEB32(b, pollEvery)
	b = append(b, 0x24, 0x03, 0x41, 0x00, 0x41)
	b = appendSLEB32(b, interruptOpaque)
	b = append(b, 0x10)
	b = appendULEB(b, uint64(fn))
	return append(b, 0x1a, 0x0b)
}

// guardCode rewrites a code section, adding stackCheck after every
// `global.set 0`, setOutOfMemory at the start of the oom-th body and poll
// at the head of every loop, except in QuickJS's bytecode interpreter
// (JS_CallInternal), which polls the deadline itself at calls and at the
// program's backward jumps: there a poll would run at every bytecode and
// cost a third of the interpreter's speed. The interpreter is the function
// with the widest br_table (its opcode dispatch, one target per opcode).
func guardCode(section []byte, oom uint64, poll []byte) ([]byte, error) {
	count, first, err := readULEB(section, 0)
	if err != nil {
		return nil, err
	}
	bodies := make([][]byte, 0, min(count, uint64(len(section))))
	interp, widest := -1, uint64(interpreterDispatch)
	for i, k := first, uint64(0); k < count; k++ {
		size, j, err := readULEB(section, i)
		if err != nil || j+int(size) > len(section) || j+int(size) < j {
			return nil, errMalformedWasm
		}
		bodies = append(bodies, section[j:j+int(size)])
		i = j + int(size)
		if k == count-1 && i != len(section) {
			return nil, errMalformedWasm
		}
	}
	var body []byte
	for k, b := range bodies {
		_, w, err := guardBody(body[:0], b, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("function body %d: %w", k, err)
		}
		if w >= widest {
			interp, widest = k, w
		}
	}
	out := appendULEB(make([]byte, 0, len(section)+len(section)/16), count)
	for k, b := range bodies {
		p := poll
		if k == interp {
			p = nil
		}
		var prologue []byte
		if uint64(k) == oom {
			prologue = setOutOfMemory
		}
		body, _, err = guardBody(body[:0], b, prologue, p)
		if err != nil {
			return nil, fmt.Errorf("function body %d: %w", k, err)
		}
		out = appendULEB(out, uint64(len(body)))
		out = append(out, body...)
	}
	return out, nil
}

// interpreterDispatch is the least number of br_table targets that marks
// QuickJS's interpreter; its dispatch has one per opcode, about 250.
const interpreterDispatch = 200

// guardBody copies one function body to out, adding stackCheck after every
// `global.set 0`. It decodes every instruction, so that no immediate is
// taken for an opcode; it knows the MVP instruction set and the sign
// extension, saturating conversion, bulk memory and reference types
// extensions, which is what the module's target_features name. It starts
// the code with prologue (nil: none) and puts poll at the head of every
// loop. It also returns the number of targets of its widest br_table.
func guardBody(out, b, prologue, poll []byte) (_ []byte, widest uint64, err error) {
	i, err := skipLocals(b)
	if err != nil {
		return nil, 0, err
	}
	start := 0
	if prologue != nil {
		out = append(append(out, b[:i]...), prologue...)
		start = i
	}
	for i < len(b) {
		op := b[i]
		at := i + 1
		var targets uint64
		if i, targets, err = skipImmediates(b, op, at); err != nil {
			return nil, 0, err
		}
		widest = max(widest, targets)
		var insert []byte
		switch op {
		case 0x24: // global.set
			if g, _, _ := readULEB(b, at); g == 0 {
				insert = stackCheck
			}
		case 0x03: // loop
			insert = poll
		}
		if insert != nil {
			out = append(append(out, b[start:i]...), insert...)
			start = i
		}
	}
	if i != len(b) {
		return nil, 0, errMalformedWasm
	}
	return append(out, b[start:]...), widest, nil
}

// skipLocals returns the offset of a function body's code, after its
// local declarations.
func skipLocals(b []byte) (int, error) {
	locals, i, err := readULEB(b, 0)
	if err != nil {
		return 0, err
	}
	for k := uint64(0); k < locals; k++ {
		if _, i, err = readULEB(b, i); err != nil {
			return 0, err
		}
		i++ // valtype
	}
	if i > len(b) {
		return 0, errMalformedWasm
	}
	return i, nil
}

// skipImmediates returns the offset after the immediates of instruction
// op, whose immediates start at i, and for a br_table its number of
// targets.
func skipImmediates(b []byte, op byte, i int) (next int, targets uint64, err error) {
	uleb := func(n int) error {
		for ; n > 0; n-- {
			if _, i, err = readULEB(b, i); err != nil {
				return err
			}
		}
		return nil
	}
	switch {
	case op == 0x00, op == 0x01, op == 0x05, op == 0x0b, op == 0x0f, op == 0x1a, op == 0x1b,
		op >= 0x45 && op <= 0xc4, op == 0xd1:
	case op == 0x02, op == 0x03, op == 0x04: // block type: empty, a value type or a type index
		if i >= len(b) {
			return 0, 0, errMalformedWasm
		}
		if c := b[i]; c == 0x40 || (c >= 0x6f && c <= 0x7f) {
			i++
		} else {
			err = uleb(1) // s33: same byte layout
		}
	case op == 0x0c, op == 0x0d, op == 0x10, op >= 0x20 && op <= 0x26,
		op == 0x3f, op == 0x40, op == 0x41, op == 0x42, op == 0xd2:
		err = uleb(1)
	case op == 0x0e: // br_table
		if targets, i, err = readULEB(b, i); err != nil || targets > uint64(len(b)) {
			return 0, 0, errMalformedWasm
		}
		err = uleb(int(targets) + 1)
	case op == 0x11: // call_indirect: type, table
		err = uleb(2)
	case op == 0x1c: // select with types
		n, j, rerr := readULEB(b, i)
		if rerr != nil || n > uint64(len(b)) {
			return 0, 0, errMalformedWasm
		}
		i = j + int(n)
	case op >= 0x28 && op <= 0x3e: // memarg: align (bit 6: a memory index follows), offset
		var align uint64
		if align, i, err = readULEB(b, i); err == nil {
			err = uleb(1 + int(align>>6&1))
		}
	case op == 0x43:
		i += 4
	case op == 0x44:
		i += 8
	case op == 0xd0:
		i++
	case op == 0xfc:
		i, err = skipPrefixed(b, i)
	default:
		err = fmt.Errorf("%w: unknown instruction %#x", errMalformedWasm, op)
	}
	if err != nil {
		return 0, 0, err
	}
	return i, targets, nil
}

// skipPrefixed returns the offset after a 0xfc instruction whose
// sub-opcode starts at i (saturating conversions and bulk memory).
func skipPrefixed(b []byte, i int) (int, error) {
	sub, i, err := readULEB(b, i)
	if err != nil {
		return 0, err
	}
	n := 0
	switch {
	case sub <= 7:
	case sub == 8, sub == 10, sub == 12, sub == 14:
		n = 2
	case sub <= 17:
		n = 1
	default:
		return 0, fmt.Errorf("%w: unknown instruction 0xfc %d", errMalformedWasm, sub)
	}
	for ; n > 0; n-- {
		if _, i, err = readULEB(b, i); err != nil {
			return 0, err
		}
	}
	return i, nil
}

// stackLimitOffset finds the offset of stack_limit in QuickJS's JSRuntime
// from the code of JS_SetMaxStackSize, which in this build is exactly
// `rt->stack_limit = 0; rt->stack_size = size;`. The driver writes the
// limit there itself (machine.go); a module whose JS_SetMaxStackSize reads
// otherwise is refused, so an upgrade cannot silently write elsewhere.
func stackLimitOffset(wasm []byte) (uint32, error) {
	sections, err := splitSections(wasm)
	if err != nil {
		return 0, err
	}
	var imported uint32
	fn := int64(-1)
	for _, s := range sections {
		switch s.id {
		case 2:
			if imported, _, err = importCounts(s.payload); err != nil {
				return 0, err
			}
		case 7:
			if fn, err = exportedFunc(s.payload, "JS_SetMaxStackSize"); err != nil {
				return 0, err
			}
		case 10:
			if fn < int64(imported) {
				return 0, errors.New("quickjs: the module does not export JS_SetMaxStackSize")
			}
			body, err := funcBody(s.payload, uint32(fn)-imported)
			if err != nil {
				return 0, err
			}
			// no locals; local.get 0; i32.const 0; i32.store align=2 offset=N; ...
			if len(body) < 7 || !bytes.Equal(body[:6], []byte{0x00, 0x20, 0x00, 0x41, 0x00, 0x36}) {
				return 0, errors.New("quickjs: JS_SetMaxStackSize does not have the expected code; cannot find stack_limit")
			}
			if _, j, err := readULEB(body, 6); err == nil {
				off, _, err := readULEB(body, j)
				if err == nil && off < 1<<16 {
					return uint32(off), nil
				}
			}
			return 0, errors.New("quickjs: JS_SetMaxStackSize does not have the expected code; cannot find stack_limit")
		}
	}
	return 0, errors.New("quickjs: the module has no code for JS_SetMaxStackSize")
}

// exportedFunc returns the function index of an exported function, or -1.
func exportedFunc(section []byte, name string) (int64, error) {
	count, i, err := readULEB(section, 0)
	if err != nil {
		return 0, err
	}
	for k := uint64(0); k < count; k++ {
		var n string
		if n, i, err = readName(section, i); err != nil {
			return 0, err
		}
		if i >= len(section) {
			return 0, errMalformedWasm
		}
		kind := section[i]
		var idx uint64
		if idx, i, err = readULEB(section, i+1); err != nil {
			return 0, err
		}
		if kind == 0x00 && n == name {
			return int64(idx), nil
		}
	}
	return -1, nil
}

// funcBody returns the body (locals and code) of the k-th defined function.
func funcBody(section []byte, k uint32) ([]byte, error) {
	count, i, err := readULEB(section, 0)
	if err != nil || uint64(k) >= count {
		return nil, errMalformedWasm
	}
	for n := uint32(0); ; n++ {
		size, j, err := readULEB(section, i)
		if err != nil || j+int(size) > len(section) || j+int(size) < j {
			return nil, errMalformedWasm
		}
		if n == k {
			return section[j : j+int(size)], nil
		}
		i = j + int(size)
	}
}
