package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/codemode-go/codemode/client"
)

// cmdRun is `codemode run PROGRAM.ts`: the program runs once (or --repeat
// times) over the tools, plain or, with --journal, as a recorded execution
// that may pause for approval. Exit status 0 completed, 1 error, 3 paused.
func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var cf contractFlags
	cf.register(fs)
	cf.registerInput(fs)
	var jf journalFlags
	jf.register(fs)
	jf.registerRuns(fs)
	input := fs.String("input", "", "program input as JSON (requires --input-schema; plain runs only)")
	timeout := fs.Duration("timeout", 30*time.Second, "each run's deadline")
	cpuTime := fs.Duration("cpu-time", 0, "each run's CPU time limit: its own work, not its waits for tools and timers (0: none but the deadline; approximate on --runtime node)")
	repeat := fs.Int("repeat", 1, "run the program N times on one runtime (plain runs only)")
	rf := runtimeFlags{oneShot: true}
	rf.register(fs)
	var ff fetchFlags
	ff.register(fs)
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return 0, err
	}
	jf.parsed(fs, stderr)
	run, err := runOptions(&jf, &cf, &ff, *input, *repeat)
	if err != nil {
		return 0, err
	}
	switch {
	case len(positional) != 1:
		return 0, usageError{"run: exactly one PROGRAM.ts is required"}
	case *timeout <= 0:
		return 0, usageError{"run: --timeout must be positive"}
	case *cpuTime < 0:
		return 0, usageError{"run: --cpu-time must not be negative"}
	}
	run.Limits.CPUTime = *cpuTime
	var live *liveOutput
	if jf.path == "" && !jf.asJSON {
		live = newLiveOutput(stderr)
		run.OnTelemetry = live.observe
	}
	if err := rf.check("run"); err != nil {
		return 0, err
	}
	source, err := readProgram(positional[0])
	if err != nil {
		return 0, err
	}
	s, err := openSession(ctx, sessionOptions{command: "run", cf: &cf, jf: &jf, rf: &rf, timeout: *timeout, run: run}, stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	p := answerPrinter{asJSON: jf.asJSON, path: positional[0], cf: &cf, logsShown: live != nil}
	if s.handle != nil {
		p.jf = &jf
	}
	status := 0
	for range *repeat {
		answer, err := s.runner().Execute(ctx, source)
		if live != nil {
			live.flush()
		}
		if err != nil {
			return 0, err
		}
		if status, err = p.print(answer, stdout, stderr); err != nil {
			return 0, err
		}
	}
	return status, nil
}

// runOptions checks run's flags and returns the options of its plain
// runs: the input and the fetch policy, which runs with a journal do not
// take.
func runOptions(jf *journalFlags, cf *contractFlags, ff *fetchFlags, input string, repeat int) (client.RunOptions, error) {
	var run client.RunOptions
	fetch, err := ff.policy()
	if err != nil {
		return run, err
	}
	durable := jf.path != ""
	switch {
	case repeat < 1:
		return run, usageError{"run: --repeat must be at least 1"}
	case durable && (input != "" || cf.inputSchema != ""):
		return run, usageError{"run: with --journal a run takes no --input or --input-schema: an execution has no input (a program saved as a snippet reads `input`, which codemode.run(name, input) gives it)"}
	case durable && repeat > 1:
		return run, usageError{"run: --repeat is for plain runs (each run with --journal is an execution of its own)"}
	case durable && fetch != nil:
		return run, usageError{"run: --allow-fetch is for plain runs: a journal does not record fetches, so a replay would fetch again"}
	case input != "" && cf.inputSchema == "":
		return run, usageError{"run: --input needs --input-schema (an inputless contract takes no input)"}
	case input == "" && cf.inputSchema != "":
		return run, usageError{"run: --input-schema makes the contract input-bearing; --input is required"}
	case input != "" && !json.Valid([]byte(input)):
		return run, usageError{"run: --input is not valid JSON"}
	}
	run.Fetch = fetch
	if input != "" {
		run.Input = json.RawMessage(input)
	}
	return run, nil
}

// cmdCheck is `codemode check PROGRAM.ts`: the program type-checked as run
// runs it (with --journal, against the journal's SDK too). The report goes
// to stdout; exit status 1 for an invalid program.
func cmdCheck(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	var cf contractFlags
	cf.register(fs)
	cf.registerInput(fs)
	rf := runtimeFlags{oneShot: true}
	rf.register(fs)
	jf := registerSurfaceJournal(fs)
	asJSON := fs.Bool("json", false, `print the result as one JSON object: {"valid": bool, "diagnostics": [{"file", "line", "column", "code", "message"}], "report": text}`)
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return 0, err
	}
	jf.parsed(fs, stderr)
	if err := rf.check("check"); err != nil {
		return 0, err
	}
	if len(positional) != 1 {
		return 0, usageError{"check: exactly one PROGRAM.ts is required"}
	}
	source, err := readProgram(positional[0])
	if err != nil {
		return 0, err
	}
	checker, err := newChecker()
	if err != nil {
		return 0, err
	}
	defer checker.Close()
	s, err := openSurface(ctx, "check", &cf, jf, &rf, stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	res, err := s.runner().ValidateCode(ctx, checker, source)
	if err != nil {
		return 0, checkerError(err)
	}
	return report(res, positional[0], *asJSON, stdout)
}

// cmdTypes is `codemode types`: the declarations programs are written
// against (with --journal, the journal's SDK too).
func cmdTypes(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("types", flag.ContinueOnError)
	var cf contractFlags
	cf.register(fs)
	cf.registerInput(fs)
	jf := registerSurfaceJournal(fs)
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return 0, err
	}
	jf.parsed(fs, stderr)
	if len(positional) > 0 {
		return 0, usageError{fmt.Sprintf("types: unexpected argument %q", positional[0])}
	}
	s, err := openSurface(ctx, "types", &cf, jf, nil, stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	_, err = io.WriteString(stdout, escapeControls(s.runner().TypeDefinitions())) // upstream descriptions are in it
	return 0, err
}
