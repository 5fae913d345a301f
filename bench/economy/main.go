// Command economy measures the context cost of code mode's discovery
// against the MCP tool list an agent would otherwise receive, in tokens of
// a real tokenizer (OpenAI's o200k_base by default; cl100k_base with
// -encoding; both embedded, nothing is downloaded), for two catalogues: the
// three reference MCP servers together (everything, memory, filesystem,
// started from .tools/), a synthetic catalogue of 1,000 tools shaped like
// real MCP tools, and GitHub's REST description (@octokit/openapi in
// .tools/, about 1,100 operations; skipped with a line saying so when it
// is not installed) against an MCP server exposing each operation as a
// tool.
//
// For each catalogue it prints (a) the tokens of the tools/list answer (the
// tools' JSON: name, description, input schema, annotations), (b) the
// tokens of the code tool's description in discover mode plus, per task,
// the search answer for the task's query and the describe answer of the
// top result, and the ratio b/a. Tasks are natural-language queries with
// the method each should find; recall@5 is the share whose method is among
// the first five results.
//
// It then measures discovery on three large real descriptions (GitHub's
// REST API, Stripe's API and the Kubernetes API, installed into .tools/ by
// scripts/test): recall@1 and recall@5 of person-phrased queries on each
// API's tuning set and on its held-out set (testdata/queries; the held-out
// sets were written before any ranker was run on them and are never tuned
// on).
//
//	go run ./bench/economy
//	go run ./bench/economy -encoding cl100k_base -v
//	go run ./bench/economy -only-discovery -sets tuning -v
//
// With -fit it fits the ranking's search-time weights on the query sets
// given by -sets instead (fit.go: coordinate ascent on recall@1, recall@5
// and the reciprocal rank, validated leaving one API out), and prints each
// fold's held-out figures with the default and the fitted weights:
//
//	go run ./bench/economy -fit -sets tuning,heldout,heldout2,heldout3,heldout4,heldout5,heldout6,heldout7
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"

	"github.com/codemode-go/codemode/client"
	"github.com/codemode-go/codemode/codetool"
	"github.com/codemode-go/codemode/connector/mcpconnector"
	"github.com/codemode-go/codemode/contract"
	"github.com/codemode-go/codemode/drivers"
	"github.com/codemode-go/codemode/internal/discovery"
)

func main() {
	encoding := flag.String("encoding", string(tokenizer.O200kBase), "tokenizer: o200k_base or cl100k_base")
	verbose := flag.Bool("v", false, "print every query, its expected method and its rank")
	skipServers := flag.Bool("no-servers", false, "do not measure the reference MCP servers (no Node.js)")
	skipGitHub := flag.Bool("no-github", false, "do not measure GitHub's REST description")
	onlyDiscovery := flag.Bool("only-discovery", false, "measure only discovery on the large APIs (no tokens)")
	fit := flag.Bool("fit", false, "fit the ranking's search-time weights on the query sets (-sets): leave-one-API-out validation, then all APIs (fit.go)")
	fitGain := flag.Float64("fit-min-gain", 1e-4, "with -fit: the least gain in objective a change of weight must bring")
	fitPasses := flag.Int("fit-passes", 4, "with -fit: the most passes over the weights")
	fitEvery := flag.Bool("fit-every", false, "with -fit: keep only changes of weight that lower no fitted API's objective")
	fitOnly := flag.String("fit-only", "", "with -fit: the only weights to fit, comma-separated (search.WeightNames); empty for all")
	fitBuild := flag.Bool("fit-build", false, "with -fit: fit the weights read at build time (b, the field weights) too")
	sets := flag.String("sets", strings.Join(querySetKinds(), ","), "the discovery query sets to measure, comma-separated: "+strings.Join(querySetKinds(), ", ")+"; empty for none")
	flag.Parse()
	o := options{encoding: *encoding, verbose: *verbose, servers: !*skipServers && !*onlyDiscovery, github: !*skipGitHub && !*onlyDiscovery, tokens: !*onlyDiscovery}
	o.sets = splitList(*sets)
	if *fit {
		if err := fitWeights(context.Background(), os.Stdout, os.Stderr, fitOptions{kinds: o.sets, minGain: *fitGain, passes: *fitPasses, build: *fitBuild, every: *fitEvery, only: splitList(*fitOnly)}); err != nil {
			fmt.Fprintln(os.Stderr, "economy:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(context.Background(), os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "economy:", err)
		os.Exit(1)
	}
}

// splitList is a comma-separated list's items, spaces trimmed, empty ones
// left out.
func splitList(list string) []string {
	var items []string
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s != "" {
			items = append(items, s)
		}
	}
	return items
}

// task is a natural-language query and the method it should find: want
// is its path ("github.pulls_list"), or several separated by spaces when
// any of them answers the query.
type task struct{ query, want string }

// options say what run measures.
type options struct {
	encoding        string   // the tokenizer
	verbose         bool     // print every query's rank
	servers, github bool     // measure the reference servers' and GitHub's tokens
	tokens          bool     // measure tokens at all (the synthetic catalogue included)
	sets            []string // the discovery query sets (querySetKinds)
}

// measurement is one catalogue's figures.
type measurement struct {
	name                       string
	tools                      int
	toolList, description      int
	perTask                    float64 // mean tokens of search + describe answers per task
	maxTask                    int
	hits, queries              int
	misses                     []string
	searchAnswer, describeText int // mean tokens of each part
}

func (m measurement) codeMode() float64 { return float64(m.description) + m.perTask }

func run(ctx context.Context, w io.Writer, o options) error {
	if o.tokens {
		if err := measureTokens(ctx, w, o); err != nil {
			return err
		}
	}
	if len(o.sets) == 0 {
		return nil
	}
	results, skipped, err := measureDiscovery(ctx, o.sets, o.verbose, w)
	if err != nil {
		return err
	}
	printDiscovery(w, results, skipped)
	return nil
}

// measureTokens measures the catalogues' tokens and prints the table.
func measureTokens(ctx context.Context, w io.Writer, o options) error {
	encoding, verbose := o.encoding, o.verbose
	codec, err := tokenizer.Get(tokenizer.Encoding(encoding))
	if err != nil {
		return fmt.Errorf("tokenizer %s: %w", encoding, err)
	}
	count := func(s string) int {
		n, err := codec.Count(s)
		if err != nil {
			panic(err) // the codec counts any Go string
		}
		return n
	}
	var results []measurement
	if o.servers {
		m, err := measureReference(ctx, count, verbose, w)
		if err != nil {
			return err
		}
		results = append(results, m)
	}
	tools := syntheticCatalogue()
	ns, err := namespaces(tools)
	if err != nil {
		return err
	}
	m, err := measure("synthetic catalogue", ns, mcpToolList(tools), syntheticTasks(), count, verbose, w)
	if err != nil {
		return err
	}
	results = append(results, m)
	var skipped []string
	if o.github {
		path, err := githubDescription()
		switch {
		case errors.Is(err, errNoGitHub):
			skipped = append(skipped, "GitHub REST API skipped: "+err.Error())
		case err != nil:
			return err
		default:
			c, err := loadGitHub(ctx, path)
			if err != nil {
				return fmt.Errorf("GitHub's description: %w", err)
			}
			m, err := measureGitHub(c, count, verbose, w)
			if err != nil {
				return fmt.Errorf("GitHub's description: %w", err)
			}
			results = append(results, m)
		}
	}

	fmt.Fprintf(w, "\ntokens (%s)\n", encoding)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "catalogue\ttools\t(a) tool list\tcode tool description\tsearch+describe per task (mean, max)\t(b) code mode\tb/a\trecall@5\t")
	for _, m := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.0f (%d+%d), %d\t%.0f\t%.1f%%\t%.2f (%d/%d)\t\n", m.name, m.tools, m.toolList, m.description,
			m.perTask, m.searchAnswer, m.describeText, m.maxTask, m.codeMode(), 100*m.codeMode()/float64(m.toolList), float64(m.hits)/float64(m.queries), m.hits, m.queries)
	}
	tw.Flush()
	for _, s := range skipped {
		fmt.Fprintln(w, s)
	}
	for _, m := range results {
		for _, miss := range m.misses {
			fmt.Fprintf(w, "miss (%s): %s\n", m.name, miss)
		}
	}
	return nil
}

// measure counts one catalogue's tokens and its tasks' recall.
func measure(name string, cs []contract.Namespace, list []*mcp.Tool, tasks []task, count func(string) int, verbose bool, w io.Writer) (measurement, error) {
	k, err := contract.NewNamespaced(cs...)
	if err != nil {
		return measurement{}, err
	}
	cat := discovery.New(k)
	tool, err := codetool.New(client.New(noPrograms{}, k), codetool.Options{Declarations: codetool.DeclarationsDiscover})
	if err != nil {
		return measurement{}, err
	}
	description := tool.Description
	listJSON, err := json.Marshal(map[string]any{"tools": list})
	if err != nil {
		return measurement{}, err
	}
	m := measurement{name: name, tools: len(list), toolList: count(string(listJSON)),
		description: count(description)}
	var sum, searchSum, describeSum int
	for _, t := range tasks {
		out := cat.Search(t.query, nil)
		rank := slices.IndexFunc(out.Results, func(r discovery.Result) bool { return slices.Contains(strings.Fields(t.want), r.Path) })
		if rank >= 0 && rank < 5 {
			m.hits++
		} else {
			var top []string
			for _, r := range out.Results[:min(3, len(out.Results))] {
				top = append(top, r.Path)
			}
			m.misses = append(m.misses, fmt.Sprintf("%q wants %s, rank %d, top %v", t.query, t.want, rank+1, top))
		}
		m.queries++
		answer, _ := json.Marshal(out)
		tokens := count(string(answer))
		searchSum += tokens
		if len(out.Results) > 0 {
			d, err := cat.Describe(out.Results[0].Path, nil)
			if err != nil {
				return m, err
			}
			dj, _ := json.Marshal(d)
			n := count(string(dj))
			describeSum += n
			tokens += n
		}
		sum += tokens
		m.maxTask = max(m.maxTask, tokens)
		if verbose {
			fmt.Fprintf(w, "%-20s rank %2d  %5d tokens  %-55q %s\n", name, rank+1, tokens, t.query, t.want)
		}
	}
	m.perTask = float64(sum) / float64(len(tasks))
	m.searchAnswer, m.describeText = searchSum/len(tasks), describeSum/len(tasks)
	return m, nil
}

// measureReference starts the three reference servers from .tools/.
func measureReference(ctx context.Context, count func(string) int, verbose bool, w io.Writer) (measurement, error) {
	bin, err := toolsBin()
	if err != nil {
		return measurement{}, err
	}
	dir, err := os.MkdirTemp("", "economy")
	if err != nil {
		return measurement{}, err
	}
	defer os.RemoveAll(dir)
	servers := []mcpconnector.Server{
		{Name: "everything", Command: filepath.Join(bin, "mcp-server-everything")},
		{Name: "memory", Command: filepath.Join(bin, "mcp-server-memory"), Env: map[string]string{"MEMORY_FILE_PATH": filepath.Join(dir, "memory.jsonl")}},
		{Name: "filesystem", Command: filepath.Join(bin, "mcp-server-filesystem"), Args: []string{dir}},
	}
	set, err := mcpconnector.Connect(ctx, servers, mcpconnector.Options{})
	if err != nil {
		return measurement{}, err
	}
	defer set.Close()
	if down := set.Down(); len(down) > 0 {
		return measurement{}, fmt.Errorf("servers down: %v (run ./scripts/test once to install the servers, or pass -no-servers)", down)
	}
	var list []*mcp.Tool
	for _, s := range servers {
		tools, err := listTools(ctx, s)
		if err != nil {
			return measurement{}, err
		}
		list = append(list, tools...)
	}
	cs := set.Namespaces()
	return measure("3 reference servers", cs, list, referenceTasks(), count, verbose, w)
}

// listTools is the tools/list answer an agent connected to s directly
// would receive (the baseline), through a go-sdk client of its own.
func listTools(ctx context.Context, s mcpconnector.Server) ([]*mcp.Tool, error) {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Env = os.Environ()
	for k, v := range s.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "economy", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", s.Name, err)
	}
	defer session.Close()
	var tools []*mcp.Tool
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", s.Name, err)
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// toolsBin finds .tools/node_modules/.bin walking up from the working
// directory (where scripts/test installs the MCP servers).
func toolsBin() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, ".tools", "node_modules", ".bin")
		if _, err := os.Stat(filepath.Join(p, "mcp-server-memory")); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("the reference MCP servers are not installed (.tools/node_modules/.bin); run ./scripts/test once, or pass -no-servers")
		}
		dir = parent
	}
}

// referenceTasks are queries over the three reference servers.
func referenceTasks() []task {
	return []task{
		{"read the contents of a text file", "filesystem.read_text_file"},
		{"read several files at once", "filesystem.read_multiple_files"},
		{"write a new file", "filesystem.write_file"},
		{"make a new directory", "filesystem.create_directory"},
		{"rename a file", "filesystem.move_file"},
		{"show the directory tree", "filesystem.directory_tree"},
		{"find files matching a pattern", "filesystem.search_files"},
		{"file size and modification time", "filesystem.get_file_info"},
		{"which directories may I access", "filesystem.list_allowed_directories"},
		{"edit lines of a file", "filesystem.edit_file"},
		{"create entities in the knowledge graph", "memory.create_entities"},
		{"add observations about an entity", "memory.add_observations"},
		{"remove relations between entities", "memory.delete_relations"},
		{"search the knowledge graph", "memory.search_nodes"},
		{"read the whole graph", "memory.read_graph"},
		{"echo a message back", "everything.echo"},
		{"add two numbers", "everything.get_sum"},
		{"print the environment variables", "everything.get_env"},
		{"a tiny test image", "everything.get_tiny_image"},
		{"start a long running operation", "everything.trigger_long_running_operation"},
	}
}

// syntheticTasks are queries over the synthetic catalogue, written as a
// person asks, not as the method is named.
func syntheticTasks() []task {
	return []task{
		{"open a new issue in a GitHub repository", "github.create_issue"},
		{"create a pull request to merge my branch", "github.create_pull_request"},
		{"send a message to a Slack channel", "slack.send_message"},
		{"react with an emoji to a Slack message", "slack.add_reaction"},
		{"log time spent on a Jira issue", "jira.create_worklog"},
		{"refund a Stripe payment", "stripe.create_refund"},
		{"cancel a customer's Stripe subscription", "stripe.delete_subscription"},
		{"append blocks to a Notion page", "notion.append_block"},
		{"send an email with Gmail", "gmail.send_email"},
		{"schedule a meeting on my calendar", "calendar.create_event"},
		{"when are people free or busy", "calendar.query_free_busy"},
		{"share a Google Drive file with a colleague", "drive.create_permission"},
		{"upload a file to Google Drive", "drive.upload_file"},
		{"change the priority of a Linear issue", "linear.update_issue"},
		{"add a deal to the HubSpot pipeline", "hubspot.create_deal"},
		{"list open Zendesk support tickets", "zendesk.list_tickets"},
		{"set the inventory of a Shopify product at a location", "shopify.set_inventory_level"},
		{"resolve a Sentry error issue", "sentry.update_issue"},
		{"stack trace of a Sentry event", "sentry.get_event"},
		{"silence Datadog monitors with a downtime", "datadog.create_downtime"},
		{"search Datadog logs", "datadog.search_log"},
		{"who is on call in PagerDuty", "pagerduty.list_oncalls"},
		{"page the on-call engineer with a PagerDuty incident", "pagerduty.trigger_incident"},
		{"put an object into an S3 bucket", "s3.put_object"},
		{"temporary download link for an S3 object", "s3.create_presigned_url"},
		{"run a SQL query on Postgres", "postgres.run_query"},
		{"slowest Postgres statements", "postgres.list_slow_queries"},
		{"logs of a Kubernetes pod", "kubernetes.list_pod_logs"},
		{"scale a Kubernetes deployment to more replicas", "kubernetes.update_deployment"},
		{"write a Confluence wiki page", "confluence.create_page"},
		{"assign an Asana task with a due date", "asana.create_task"},
		{"export Figma frames as PNG images", "figma.create_image_export"},
		{"post in a Discord channel", "discord.send_message"},
		{"add a row to an Airtable table", "airtable.create_record"},
		{"text a phone number with Twilio SMS", "twilio.send_sms"},
		{"send a WhatsApp message", "twilio.send_whatsapp_message"},
		{"new sales opportunity in Salesforce", "salesforce.create_opportunity"},
		{"run a SOQL query", "salesforce.run_soql_query"},
		{"delete a GitHub gist", "github.delete_gist"},
		{"rerun a GitHub Actions workflow", "github.create_workflow_run"},
	}
}

// noPrograms is the executor of a client that only describes its contract
// (the code tool's description); it runs no program.
type noPrograms struct{}

func (noPrograms) Description() string { return "no runtime" }
func (noPrograms) TypeDefinitionFiles(context.Context) ([]drivers.TypeDefinitionFile, error) {
	return nil, nil
}
func (noPrograms) Execute(context.Context, client.ExecuteRequest) (*client.Outcome, error) {
	return nil, errors.New("no programs here")
}
