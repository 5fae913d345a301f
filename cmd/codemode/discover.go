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
	"github.com/codemode-go/codemode/durable/store"
	catalog "github.com/codemode-go/codemode/internal/discovery"
)

// Discovery and snippets in the CLI: search, describe, snippets, snippet
// save and snippet delete. They answer what codemode.search,
// codemode.describe and the snippet store answer programs, with or without
// a journal.

// discovery is what search and describe answer from: the contract's
// catalog and, with --journal, the journal's snippets.
type discovery struct {
	s       *session
	catalog *catalog.Catalog
	saved   []catalog.Saved
}

// openDiscovery opens the tools the flags name and, with a journal, its
// snippets.
func openDiscovery(ctx context.Context, command string, jf *journalFlags, cf *contractFlags, stderr io.Writer) (*discovery, error) {
	if !cf.any() && jf.path == "" {
		return nil, usageError{command + ": give the tools (--tools FILE, --mcp CMD|URL, --config FILE or --openapi NAME=SPEC) and/or --journal FILE.db for its snippets"}
	}
	var tools *contractFlags
	if cf.any() {
		tools = cf
	}
	s, err := openSession(ctx, sessionOptions{command: command, cf: tools, jf: jf}, stderr)
	if err != nil {
		return nil, err
	}
	d := &discovery{s: s, catalog: catalog.New(s.contract)}
	if s.handle != nil {
		snippets, err := s.handle.Snippets(ctx)
		if err != nil {
			s.close()
			return nil, err
		}
		for _, sn := range snippets {
			d.saved = append(d.saved, catalog.Saved{Name: sn.Name, Description: sn.Description, InputSchema: sn.InputSchema, Namespaces: sn.Connectors, SavedAt: sn.SavedAt})
		}
	}
	return d, nil
}

// parseDiscovery parses search's and describe's flags and returns the
// query or target.
func parseDiscovery(command string, args []string, jf *journalFlags, cf *contractFlags, stdout, stderr io.Writer) (string, error) {
	fs := flag.NewFlagSet(command, flag.ContinueOnError)
	jf.register(fs)
	cf.register(fs)
	positional, err := parse(fs, args, stdout)
	if err != nil {
		return "", err
	}
	jf.parsed(fs, stderr)
	if len(positional) == 0 {
		return "", usageError{fmt.Sprintf("%s: the %s is missing (see codemode %s --help)", command, map[string]string{"search": "QUERY", "describe": "TARGET"}[command], command)}
	}
	return strings.Join(positional, " "), nil
}

// cmdSearch is `codemode search QUERY`: the tools and snippets ranked for
// QUERY, as codemode.search answers a program.
func cmdSearch(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var jf journalFlags
	var cf contractFlags
	query, err := parseDiscovery("search", args, &jf, &cf, stdout, stderr)
	if err != nil {
		return 0, err
	}
	d, err := openDiscovery(ctx, "search", &jf, &cf, stderr)
	if err != nil {
		return 0, err
	}
	defer d.s.close()
	out := d.catalog.Search(query, d.saved)
	if jf.asJSON {
		return 0, printJSON(stdout, out)
	}
	if len(out.Results) == 0 {
		fmt.Fprintf(stdout, "nothing matches %q\n", query)
		return 0, nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCORE\tPATH\tKIND\tDESCRIPTION")
	for _, r := range out.Results {
		desc := cut(r.Description, 80)
		if r.RequiresApproval {
			desc = "[needs approval] " + desc
		}
		fmt.Fprintf(tw, "%.3f\t%s\t%s\t%s\n", r.Score, r.Path, r.Kind, escapeControls(desc))
	}
	tw.Flush()
	if out.Truncated {
		fmt.Fprintf(stdout, "(%d of %d matches)\n", len(out.Results), out.Total)
	}
	return 0, nil
}

// cmdDescribe is `codemode describe TARGET`: the TypeScript of a snippet, a
// namespace or a namespace.tool, as codemode.describe answers a program.
func cmdDescribe(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	var jf journalFlags
	var cf contractFlags
	target, err := parseDiscovery("describe", args, &jf, &cf, stdout, stderr)
	if err != nil {
		return 0, err
	}
	d, err := openDiscovery(ctx, "describe", &jf, &cf, stderr)
	if err != nil {
		return 0, err
	}
	defer d.s.close()
	out, err := d.catalog.Describe(target, d.saved)
	if err != nil {
		return 0, fmt.Errorf("describe: %w", err)
	}
	if jf.asJSON {
		return 0, printJSON(stdout, out)
	}
	head := "// " + out.Path + " (" + out.Kind
	if out.RequiresApproval {
		head += ", needs approval"
	}
	fmt.Fprintln(stdout, head+")")
	if out.Kind == catalog.KindNamespace && out.Description != "" {
		for _, l := range strings.Split(strings.TrimSpace(out.Description), "\n") {
			fmt.Fprintln(stdout, strings.TrimRight("// "+escapeControls(l), " "))
		}
	}
	fmt.Fprint(stdout, escapeControls(out.Types)) // a snippet is a program's code
	return 0, nil
}

// cmdSnippets is `codemode snippets`: the saved snippets.
func cmdSnippets(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	j := newJournalCommand("snippets")
	if err := j.parse(args, 0, 0, stdout, stderr); err != nil {
		return 0, err
	}
	s, err := j.open(ctx, "", stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	list, err := s.handle.Snippets(ctx)
	if err != nil {
		return 0, err
	}
	if j.jf.asJSON {
		if list == nil {
			list = []store.Snippet{}
		}
		return 0, printJSON(stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(stdout, "no snippets (save one with `codemode snippet save NAME --from EXECUTION_ID`)")
		return 0, nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSAVED\tNAMESPACES\tDESCRIPTION")
	now := time.Now()
	for _, sn := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", sn.Name, age(sn.SavedAt, now), strings.Join(sn.Connectors, ","), escapeControls(cut(firstLineOf(sn.Description), 70)))
	}
	return 0, tw.Flush()
}

// cmdSnippet is `codemode snippet save NAME --from ID` and `codemode
// snippet delete NAME`.
func cmdSnippet(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 || (args[0] != "save" && args[0] != "delete") {
		return 0, usageError{"snippet: use `codemode snippet save NAME --from ID` or `codemode snippet delete NAME` (codemode snippets lists them)"}
	}
	sub := args[0]
	j := newJournalCommand("snippet " + sub)
	var from, description, inputSchema *string
	if sub == "save" {
		from = j.fs.String("from", "", "the execution whose code is saved (it must have completed)")
		description = j.fs.String("description", "", "what the snippet does (search ranks it, describe shows it)")
		inputSchema = j.fs.String("input-schema", "", "JSON Schema file of the input codemode.run(name, input) passes")
	}
	if err := j.parse(args[1:], 1, 1, stdout, stderr); err != nil {
		return 0, err
	}
	name := j.args[0]
	if sub == "save" && *from == "" {
		return 0, usageError{"snippet save: --from EXECUTION_ID is required (codemode executions lists them)"}
	}
	s, err := j.open(ctx, "", stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	if sub == "delete" {
		return deleteSnippet(ctx, s, &j.jf, name, stdout)
	}
	return saveSnippet(ctx, s, &j.jf, name, *from, *description, *inputSchema, stdout)
}

// saveSnippet saves the code of execution from as the snippet name.
func saveSnippet(ctx context.Context, s *session, jf *journalFlags, name, from, description, inputSchema string, stdout io.Writer) (int, error) {
	var schema json.RawMessage
	if inputSchema != "" {
		var err error
		if schema, err = os.ReadFile(inputSchema); err != nil {
			return 0, fmt.Errorf("--input-schema: %w", err)
		}
	}
	h := s.handle
	e, err := h.Execution(ctx, from)
	if err != nil {
		return 0, notFound(ctx, s.store, err, from, jf.name)
	}
	if e.Status != store.StatusCompleted {
		return 0, fmt.Errorf("snippet save: execution %s is %s; only a completed execution can be saved as a snippet", from, e.Status)
	}
	sn, err := h.SaveSnippet(ctx, name, durable.SaveSnippetOptions{ExecutionID: from, Description: description, InputSchema: schema})
	if err != nil {
		return 0, usageError{"snippet save: " + strings.TrimPrefix(err.Error(), "durable: ")}
	}
	if jf.asJSON {
		return 0, printJSON(stdout, sn)
	}
	fmt.Fprintf(stdout, "saved snippet %s from %s (namespaces: %s); programs run it with codemode.run(%q, input)\n", sn.Name, from, strings.Join(sn.Connectors, ", "), sn.Name)
	return 0, nil
}

// deleteSnippet deletes the snippet name.
func deleteSnippet(ctx context.Context, s *session, jf *journalFlags, name string, stdout io.Writer) (int, error) {
	ok, err := s.handle.DeleteSnippet(ctx, name)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("snippet delete: no snippet named %s in runtime %s", name, jf.name)
	}
	if jf.asJSON {
		return 0, printJSON(stdout, map[string]any{"deleted": name})
	}
	fmt.Fprintf(stdout, "deleted snippet %s\n", name)
	return 0, nil
}

func firstLineOf(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
