package quickjs

import (
	"context"
	"crypto/sha256"
	"strings"
	"sync"
)

// programCache keeps programs compiled to QuickJS bytecode, by a hash of
// their filename and source, for a program sent again (agents resend
// snippets and retry): reading bytecode back costs a fraction of compiling
// the text. A program is written to bytecode the second time it is seen,
// so that a stream of fresh programs pays for the hash alone. It is safe
// for concurrent use.
type programCache struct {
	mu   sync.Mutex
	seen map[[sha256.Size]byte]bool // hashes of programs compiled once, up to maxSeenPrograms
	code scopeCache[[]byte]         // bytecode by hash (maxScopes entries, maxScopeBytes)
}

// maxSeenPrograms bounds the hashes a program cache remembers; past it the
// set starts over.
const maxSeenPrograms = 4096

// programKey is the cache's key for a program.
func programKey(filename, source string) [sha256.Size]byte {
	h := sha256.New()
	h.Write([]byte(filename))
	h.Write([]byte{0})
	h.Write([]byte(source))
	var k [sha256.Size]byte
	h.Sum(k[:0])
	return k
}

// again records that the program with key k was compiled and reports
// whether it had been before.
func (c *programCache) again(k [sha256.Size]byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen[k] {
		return true
	}
	if c.seen == nil || len(c.seen) >= maxSeenPrograms {
		c.seen = map[[sha256.Size]byte]bool{}
	}
	c.seen[k] = true
	return false
}

// compileProgram compiles an execution's program as a module, from the
// cache's bytecode when it holds the program: the module, or the exception
// that kept it from compiling (the caller's either way).
func (s *server) compileProgram(ctx context.Context, in *instance, source, filename string) (mod, exc jsValue, err error) {
	if strings.Contains(source, "import") {
		// A module that imports is resolved as it compiles, which reading
		// bytecode back skips: such programs are always compiled.
		return in.evalRaw(ctx, source, filename, evalTypeModule|evalFlagCompile)
	}
	k := programKey(filename, source)
	if b, ok := s.programs.code.get(string(k[:])); ok {
		mod, err := in.readObject(ctx, b)
		if err != nil || !mod.isException() {
			return mod, 0, err
		}
		// Bytecode this engine wrote cannot fail to read back but for
		// memory: compile the text, which reports that as the program's.
		if exc, err := in.exception(ctx); err != nil {
			return 0, 0, err
		} else if err := in.freeValue(ctx, exc); err != nil {
			return 0, 0, err
		}
	}
	mod, exc, err = in.evalRaw(ctx, source, filename, evalTypeModule|evalFlagCompile)
	if err != nil || exc != 0 || !s.programs.again(k) {
		return mod, exc, err
	}
	b, err := in.writeObject(ctx, mod)
	if err != nil {
		_ = in.freeValue(ctx, mod)
		return 0, 0, err
	}
	s.programs.code.put(string(k[:]), b, len(k)+len(b))
	return mod, 0, nil
}
