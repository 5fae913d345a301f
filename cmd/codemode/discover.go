package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/codemode-go/codemode/durable"
)

// Discovery and snippets in the CLI: search, describe, snippets, snippet
// save and snippet delete. They answer what codemode.search,
// codemode.describe and the snippet store answer programs.

const discoveryUsage = `discovery and snippets (the connectors from --tools, --mcp or --config; snippets from --journal):
  codemode search (--tools FILE | --mcp CMD|URL | --config FILE | --journal FILE.db) QUERY
                                            methods and snippets ranked for QUERY (at most 50)
  codemode describe (...) TARGET            TypeScript of a snippet, a connector or a connector.method
  codemode snippets                         saved snippets of --journal
  codemode snippet save NAME --from ID [--description D] [--input-schema FILE]
                                            save a completed execution's code as the snippet NAME
  codemode snippet delete NAME              delete a snippet
each takes --json; the journal ones --journal FILE.db and --name NAME.
`

// discoverySession opens what search and describe need: the connectors the
// contract flags name and, with --journal (or $CODEMODE_JOURNAL), the
// journal's snippets.
func discoverySession(ctx context.Context, command string, jf *journalFlags, cf *contractFlags, stderr io.Writer) (search func(string) (durable.SearchOutput, error), describe func(string) (durable.DescribeOutput, error), closeAll func(), err error) {
	if cf.openapi.used() {
		return nil, nil, nil, usageError{command + ": --openapi is not supported here yet"}
	}
	if cf.inputSchema != "" {
		return nil, nil, nil, usageError{command + ": --input-schema is not for discovery"}
	}
	hasTools := cf.tools != "" || cf.usesMCP()
	if !hasTools && jf.path == "" {
		return nil, nil, nil, usageError{command + ": give the connectors (--tools FILE, --mcp CMD|URL or --config FILE) and/or --journal FILE.db for its snippets"}
	}
	if jf.path != "" {
		var cfp *contractFlags
		if hasTools {
			cfp = cf
		}
		s, err := openSession(ctx, command, jf, cfp, nil, 0, stderr)
		if err != nil {
			return nil, nil, nil, err
		}
		h := s.handle
		return func(q string) (durable.SearchOutput, error) { return h.Search(ctx, q) },
			func(t string) (durable.DescribeOutput, error) { return h.Describe(ctx, t) }, s.close, nil
	}
	connectors, closeConnectors, err := cf.connectors(ctx, stderr)
	if err != nil {
		return nil, nil, nil, err
	}
	cat, err := durable.NewCatalog(connectors)
	if err != nil {
		closeConnectors()
		return nil, nil, nil, err
	}
	return func(q string) (durable.SearchOutput, error) { return cat.Search(q, nil), nil },
		func(t string) (durable.DescribeOutput, error) { return cat.Describe(t, nil) }, closeConnectors, nil
}

// discoverCommand is `codemode search QUERY` and `codemode describe TARGET`.
func discoverCommand(ctx context.Context, command string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	var jf journalFlags
	jf.register(fs)
	var cf contractFlags
	cf.register(fs)
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return err
	}
	if len(positional) == 0 {
		return usageError{fmt.Sprintf("%s: the %s is missing (see codemode %s --help)", command, map[string]string{"search": "QUERY", "describe": "TARGET"}[command], command)}
	}
	arg := strings.Join(positional, " ")
	search, describe, closeAll, err := discoverySession(ctx, command, &jf, &cf, stderr)
	if err != nil {
		return err
	}
	defer closeAll()
	if command == "search" {
		out, err := search(arg)
		if err != nil {
			return err
		}
		if jf.asJSON {
			return printJSON(stdout, out)
		}
		if len(out.Results) == 0 {
			fmt.Fprintf(stdout, "nothing matches %q\n", arg)
			return nil
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SCORE\tPATH\tKIND\tDESCRIPTION")
		for _, r := range out.Results {
			desc := cut(r.Description, 80)
			if r.RequiresApproval {
				desc = "[needs approval] " + desc
			}
			fmt.Fprintf(tw, "%.3f\t%s\t%s\t%s\n", r.Score, r.Path, r.Kind, desc)
		}
		tw.Flush()
		if out.Truncated {
			fmt.Fprintf(stdout, "(%d of %d matches)\n", len(out.Results), out.Total)
		}
		return nil
	}
	out, err := describe(arg)
	if err != nil {
		return fmt.Errorf("describe: %s", strings.TrimPrefix(err.Error(), "durable: "))
	}
	if jf.asJSON {
		return printJSON(stdout, out)
	}
	head := "// " + out.Path + " (" + out.Kind
	if out.RequiresApproval {
		head += ", needs approval"
	}
	fmt.Fprintln(stdout, head+")")
	if out.Kind == durable.KindConnector && out.Description != "" {
		for _, l := range strings.Split(strings.TrimSpace(out.Description), "\n") {
			fmt.Fprintln(stdout, strings.TrimRight("// "+l, " "))
		}
	}
	fmt.Fprint(stdout, out.Types)
	return nil
}

// snippetsCommand is `codemode snippets` and `codemode snippet save|delete`.
func snippetsCommand(ctx context.Context, command string, args []string, stdout, stderr io.Writer) error {
	sub := ""
	if command == "snippet" {
		if len(args) == 0 || (args[0] != "save" && args[0] != "delete") {
			return usageError{"snippet: use `codemode snippet save NAME --from ID` or `codemode snippet delete NAME` (codemode snippets lists them)"}
		}
		sub, args = args[0], args[1:]
		command += " " + sub
	}
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	var jf journalFlags
	jf.register(fs)
	from := fs.String("from", "", "the execution whose code is saved (it must have completed)")
	description := fs.String("description", "", "what the snippet does (search ranks it, describe shows it)")
	inputSchema := fs.String("input-schema", "", "JSON Schema file of the input codemode.run(name, input) passes")
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return err
	}
	want := map[string]int{"": 0, "save": 1, "delete": 1}[sub]
	if len(positional) != want {
		return usageError{fmt.Sprintf("%s: wrong arguments %q (see codemode %s --help)", command, positional, command)}
	}
	if sub != "save" && (*from != "" || *description != "" || *inputSchema != "") {
		return usageError{command + ": --from, --description and --input-schema are for snippet save"}
	}
	if sub == "save" {
		if *from == "" {
			return usageError{"snippet save: --from EXECUTION_ID is required (codemode executions lists them)"}
		}
		if err := durable.CheckSnippetName(positional[0]); err != nil {
			return usageError{"snippet save: " + strings.TrimPrefix(err.Error(), "durable: ")}
		}
	}
	s, err := openSession(ctx, command, &jf, nil, nil, 0, stderr)
	if err != nil {
		return err
	}
	defer s.close()
	h := s.handle
	switch sub {
	case "":
		list, err := h.Snippets(ctx)
		if err != nil {
			return err
		}
		if jf.asJSON {
			return printJSON(stdout, list)
		}
		if len(list) == 0 {
			fmt.Fprintln(stdout, "no snippets (save one with `codemode snippet save NAME --from EXECUTION_ID`)")
			return nil
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSAVED\tCONNECTORS\tDESCRIPTION")
		now := time.Now()
		for _, sn := range list {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", sn.Name, age(sn.SavedAt, now), strings.Join(sn.Connectors, ","), cut(firstLineOf(sn.Description), 70))
		}
		return tw.Flush()
	case "save":
		var schema json.RawMessage
		if *inputSchema != "" {
			if schema, err = os.ReadFile(*inputSchema); err != nil {
				return fmt.Errorf("--input-schema: %w", err)
			}
		}
		e, err := h.Execution(ctx, *from)
		if err != nil {
			return notFound(err, *from, jf.name)
		}
		if e.Status != durable.StatusCompleted {
			return fmt.Errorf("snippet save: execution %s is %s; only a completed execution can be saved as a snippet", *from, e.Status)
		}
		sn, err := h.SaveSnippet(ctx, positional[0], durable.SaveSnippetOptions{ExecutionID: *from, Description: *description, InputSchema: schema})
		if err != nil {
			return err
		}
		if jf.asJSON {
			return printJSON(stdout, sn)
		}
		fmt.Fprintf(stdout, "saved snippet %s from %s (connectors: %s); programs run it with codemode.run(%q, input)\n", sn.Name, *from, strings.Join(sn.Connectors, ", "), sn.Name)
		return nil
	default:
		ok, err := h.DeleteSnippet(ctx, positional[0])
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("snippet delete: no snippet named %s in runtime %s", positional[0], jf.name)
		}
		if jf.asJSON {
			return printJSON(stdout, map[string]any{"deleted": positional[0]})
		}
		fmt.Fprintf(stdout, "deleted snippet %s\n", positional[0])
		return nil
	}
}

func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
