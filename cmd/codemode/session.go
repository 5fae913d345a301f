package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/durable"
	"github.com/codemode-go/codemode/durable/store"
	"github.com/codemode-go/codemode/internal/runctx"
)

// journalEnv names the variable holding --journal's default.
const journalEnv = "CODEMODE_JOURNAL"

// journalFlags name the journal and the runtime name in it.
type journalFlags struct {
	path   string
	name   string
	asJSON bool
	// fromEnv: the journal came from $CODEMODE_JOURNAL, not the command
	// line (set by parsed).
	fromEnv bool
	// mustExist: open refuses a SQLite file that does not exist (the
	// commands that work on recorded executions).
	mustExist bool
	// lease and keep are the handle's durable.Options.Lease and
	// MaxExecutions (registerRuns: the commands that run passes).
	lease   time.Duration
	keep    int
	keepFor time.Duration
}

// registerRuns registers the flags of the commands that run passes: the
// lease a pass holds, and the automatic pruning of new executions.
func (j *journalFlags) registerRuns(fs *flag.FlagSet) {
	fs.DurationVar(&j.lease, "lease", 15*time.Second, "how long a pass holds its execution without renewing (renewed every third of it); a run whose host died is resumable once its lease has ended")
	fs.IntVar(&j.keep, "keep", 0, "when positive, prune ended executions beyond the newest N each time one starts (default: keep every execution)")
	fs.DurationVar(&j.keepFor, "keep-for", 0, "when positive, prune ended executions created longer ago than this each time one starts (default: keep every execution)")
}

func (j *journalFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&j.path, "journal", os.Getenv(journalEnv), "the journal: a SQLite file (FILE.db or sqlite:FILE, created when missing) or a PostgreSQL URL (postgres://…, shared by replicas) (default $"+journalEnv+")")
	fs.StringVar(&j.name, "name", "default", "the runtime name: each name is a separate history in the journal")
	fs.BoolVar(&j.asJSON, "json", false, "print JSON on one line instead of text")
}

// parsed notes, once fs is parsed, whether the journal came from the
// environment, and says so on stderr: a journal is never used silently.
func (j *journalFlags) parsed(fs *flag.FlagSet, stderr io.Writer) {
	explicit := false
	fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "journal" })
	if j.path != "" && !explicit {
		j.fromEnv = true
		fmt.Fprintf(stderr, "codemode: durable: journal %s (from $%s)\n", redactDSN(j.path), journalEnv)
	}
}

// dsnPassword matches the password of a URL's user information.
var dsnPassword = regexp.MustCompile(`(://[^:/@]*:)[^@]*@`)

// redactDSN hides a journal URL's password in messages.
func redactDSN(dsn string) string { return dsnPassword.ReplaceAllString(dsn, "${1}xxxxx@") }

// open opens the journal the flags name.
func (j *journalFlags) open(ctx context.Context, command string) (store.Store, error) {
	if j.path == "" {
		return nil, usageError{command + ": --journal FILE.db is required (or set $" + journalEnv + ")"}
	}
	if j.mustExist {
		if file, ok := sqliteFile(j.path); ok {
			if _, err := os.Stat(file); err != nil {
				return nil, fmt.Errorf("--journal %s: no journal there (%w); codemode run --journal creates one, the other commands open an existing one", j.path, err)
			}
		}
	}
	st, err := durable.OpenStore(ctx, j.path)
	if err != nil {
		return nil, fmt.Errorf("--journal %s: %w", redactDSN(j.path), err)
	}
	return st, nil
}

// sqliteFile returns the file a journal DSN names when durable.OpenStore
// opens it as SQLite (a path, or sqlite:FILE), and false for PostgreSQL, an
// unknown scheme, an in-memory database (":memory:") or a "file:" URI.
func sqliteFile(dsn string) (string, bool) {
	scheme, _, hasScheme := strings.Cut(dsn, "://")
	path := dsn
	switch {
	case strings.TrimSpace(dsn) == "":
		return "", false
	case strings.HasPrefix(strings.ToLower(dsn), "sqlite:"):
		path = dsn[len("sqlite:"):]
	case hasScheme && !strings.ContainsAny(scheme, `/\`):
		return "", false
	}
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return "", false
	}
	return path, true
}

// session is what a command works with: the contract the tools flags name,
// a runtime when it runs programs, and, with a journal, the durable handle
// over them. close releases everything it opened, last opened first.
type session struct {
	contract *contract.Contract
	client   *client.Client
	handle   *durable.Handle
	closes   []func()

	// ex runs the programs (noPrograms without a runtime) with run's
	// defaults; store makes more handles on the same journal (handleFor).
	ex      client.Executor
	store   store.Store
	run     client.RunOptions
	lease   time.Duration // durable.Options.Lease (0: its default)
	keep    int           // durable.Options.MaxExecutions (0: keep every execution)
	keepFor time.Duration // durable.Options.KeepFor (0: however old)
	logger  *slog.Logger  // the handles' (resumes and lost leases, on stderr)
	// configuration is the connectors' fingerprint the handles record
	// and approve with (durable.Options.Configuration).
	configuration map[string]string
	// approvePrograms: the handles pause each program for approval
	// before it runs (durable.Options.ApprovePrograms).
	approvePrograms bool
}

func (s *session) close() {
	for i := len(s.closes) - 1; i >= 0; i-- {
		s.closes[i]()
	}
}

// runner is what runs the session's programs: the durable handle with a
// journal, else the plain client.
func (s *session) runner() codetool.Runner {
	if s.handle != nil {
		return s.handle
	}
	return s.client
}

// sessionOptions say what a session opens.
type sessionOptions struct {
	command string
	cf      *contractFlags // nil: no tools (journal commands that run nothing)
	jf      *journalFlags  // nil or an empty path: plain
	rf      *runtimeFlags  // nil: no runtime (the command runs no program)
	timeout time.Duration  // each program's deadline
	run     client.RunOptions
	// contract, when set, is the contract, in place of cf's, and
	// configuration its connectors' fingerprint.
	contract      *contract.Contract
	configuration map[string]string
	// approvePrograms is durable.Options.ApprovePrograms.
	approvePrograms bool
}

// openSession opens what o asks for.
func openSession(ctx context.Context, o sessionOptions, stderr io.Writer) (*session, error) {
	s := &session{}
	ok := false
	defer func() {
		if !ok {
			s.close()
		}
	}()
	var err error
	if err := s.openContract(ctx, o, stderr); err != nil {
		return nil, err
	}
	s.ex = noPrograms{}
	if o.rf != nil {
		rt, closeRuntime, err := o.rf.open(ctx, o.timeout)
		if err != nil {
			return nil, err
		}
		s.closes = append(s.closes, closeRuntime)
		s.ex = rt
	}
	tp, stopTracing, err := startTracing(ctx, stderr)
	if err != nil {
		return nil, err
	}
	s.closes = append(s.closes, stopTracing)
	run := o.run
	run.TracerProvider = tp
	run.Limits.Timeout = o.timeout
	if run.Approve == nil {
		run.Approve = (&approvalRefusal{stderr: stderr}).refuse
	}
	s.run = run
	s.approvePrograms = o.approvePrograms
	s.client = client.New(s.ex, s.contract).WithDefaults(run)
	if o.jf != nil && o.jf.path != "" {
		if err := s.openHandle(ctx, o, stderr); err != nil {
			return nil, err
		}
	}
	ok = true
	return s, nil
}

// openContract builds the contract the tools flags name (an empty one
// without them).
func (s *session) openContract(ctx context.Context, o sessionOptions, stderr io.Writer) error {
	if o.contract != nil {
		s.contract, s.configuration = o.contract, o.configuration
		return nil
	}
	if o.cf == nil {
		c, err := contract.New()
		s.contract = c
		return err
	}
	o.cf.unattended = o.jf == nil || o.jf.path == ""
	c, closeTools, err := o.cf.build(ctx, stderr)
	if err != nil {
		return err
	}
	s.closes = append(s.closes, closeTools)
	s.contract, s.configuration = c, o.cf.configuration
	return nil
}

// openHandle opens the journal and the durable handle over the contract.
func (s *session) openHandle(ctx context.Context, o sessionOptions, stderr io.Writer) error {
	if s.contract.HasInput() {
		return usageError{o.command + ": --input-schema is for plain runs: an execution with a journal takes no input (a snippet reads the input codemode.run gives it)"}
	}
	st, err := o.jf.open(ctx, o.command)
	if err != nil {
		return err
	}
	s.closes = append(s.closes, func() { st.Close() })
	s.store = st
	s.lease, s.keep, s.keepFor, s.logger = o.jf.lease, o.jf.keep, o.jf.keepFor, stderrLogger(stderr)
	if s.keep > 0 {
		fmt.Fprintf(stderr, "codemode: durable: keeping the newest %d ended executions (--keep); older ones are pruned as new ones start\n", s.keep)
	}
	if s.keepFor > 0 {
		fmt.Fprintf(stderr, "codemode: durable: keeping ended executions for %s (--keep-for); older ones are pruned as new ones start\n", s.keepFor)
	}
	h, err := s.handleFor(o.jf.name)
	if err != nil {
		return usageError{o.command + ": " + strings.TrimPrefix(err.Error(), "durable: ")}
	}
	s.handle = h
	return nil
}

// handleFor is a durable handle on the session's journal for the runtime
// name.
func (s *session) handleFor(name string) (*durable.Handle, error) {
	return s.handleOver(s.contract, name)
}

// handleOver is a durable handle on the session's journal for the runtime
// name, over c.
func (s *session) handleOver(c *contract.Contract, name string) (*durable.Handle, error) {
	configuration := s.configuration
	if configuration == nil {
		// Never nil: that would stand for a Go program's own tools
		// (durable.GoProgramConfiguration), and these come from flags.
		configuration = map[string]string{}
	}
	return durable.New(s.store, s.ex, c, durable.Options{Name: name, Limits: s.run.Limits, TracerProvider: s.run.TracerProvider,
		MeterProvider: s.run.MeterProvider, Lease: s.lease, MaxExecutions: s.keep, KeepFor: s.keepFor, Logger: s.logger,
		Configuration: configuration, ApprovePrograms: s.approvePrograms})
}

// runnerOver is a runner like the session's over c, a contract that grew
// (an MCP server joined): a client with the same defaults, or with a
// journal a durable handle on the same journal and runtime name.
func (s *session) runnerOver(c *contract.Contract) (codetool.Runner, error) {
	if s.handle == nil {
		return client.New(s.ex, c).WithDefaults(s.run), nil
	}
	return s.handleOver(c, s.handle.Name())
}

// watchOrphans resumes, now and then every lease, the orphaned executions
// (their host died) that the handles can run; durable.Handle.ResumeOrphans
// logs a line for each. The session's close stops it, after the resume in
// progress, if any, has ended: a resumed pass is not cut short.
func (s *session) watchOrphans(handles ...*durable.Handle) {
	every := s.lease
	if every <= 0 {
		every = 15 * time.Second
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			for _, h := range handles {
				if _, err := h.ResumeOrphans(context.Background()); err != nil {
					s.logger.Warn("codemode: looking for orphaned executions", "runtime", h.Name(), "err", err)
				}
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	s.closes = append(s.closes, func() { close(stop); <-done })
}

// approvalHow is what an operator does so that a call needing approval
// gets one.
const approvalHow = "(the run pauses until a person approves), or mark the tool approval-free (--approval never for MCP and OpenAPI tools; the tools file's requiresApproval)"

// approvalRefusal answers a plain run's calls that need approval: a plain
// run has no one to ask. Under mcp serve (runctx.CannotAskFrom says why
// the client could not be asked) the program's error is for the model,
// which can do nothing about flags, and the advice for the operator goes
// to stderr, once per session.
type approvalRefusal struct {
	stderr io.Writer
	once   sync.Once
}

// refuse is a client.RunOptions.Approve that refuses every call.
func (r *approvalRefusal) refuse(ctx context.Context, call client.ToolCall) error {
	what := call.Namespace + "." + call.Tool
	why := runctx.CannotAskFrom(ctx)
	if why == "" {
		return fmt.Errorf("%s needs a person's approval before it runs, and a plain run cannot ask for it: run with --journal FILE.db %s", what, approvalHow)
	}
	r.once.Do(func() {
		fmt.Fprintf(r.stderr, "codemode: warning: %s needed a person's approval, and this server cannot ask for it (%s), so the call failed: serve with --journal FILE.db %s\n",
			what, why, approvalHow)
	})
	return fmt.Errorf("%s needs a person's approval before it runs, and this server cannot ask a person for it: %s. "+
		"No change to the program can get it approved: do not call %s again; finish without it and tell the user that it needs a person's approval, which this server is not set up to ask for",
		what, why, what)
}

// noPrograms is the executor of commands that run no program.
type noPrograms struct{}

func (noPrograms) Description() string { return "no runtime" }
func (noPrograms) TypeDefinitionFiles(context.Context) ([]drivers.TypeDefinitionFile, error) {
	return nil, nil
}
func (noPrograms) Execute(context.Context, client.ExecuteRequest) (*client.Outcome, error) {
	return nil, errors.New("this command runs no program")
}
