package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-go/codemode/contract"
)

// The synthetic catalogue: 25 services, 8 resources each, 5 operations on
// each resource = 1,000 tools, shaped like the tools of real MCP servers
// (GitHub's, Slack's, Stripe's, ...): snake_case names, a sentence or two of
// description, an object input schema with described properties, required
// identifiers, enums, and cursor pagination on lists.

type service struct {
	name, title string
	resources   []resource
}

type resource struct {
	name, plural, what string
	// fields are the resource's writable properties: name -> description.
	fields [][2]string
	// send names the create operation when it is not "create" (send_message).
	send string
}

func res(name, plural, what string, send string, fields ...string) resource {
	r := resource{name: name, plural: plural, what: what, send: send}
	for i := 0; i+1 < len(fields); i += 2 {
		r.fields = append(r.fields, [2]string{fields[i], fields[i+1]})
	}
	return r
}

// serviceList returns the services (a function: no package state).
func serviceList() []service {
	return []service{
		{"github", "GitHub", []resource{
			res("issue", "issues", "an issue in a repository", "", "title", "Issue title.", "body", "Issue body in Markdown.", "labels", "Label names."),
			res("pull_request", "pull_requests", "a pull request proposing changes from a head branch to a base branch", "", "title", "Pull request title.", "head", "Branch with the changes.", "base", "Branch to merge into."),
			res("repository", "repositories", "a Git repository", "", "name", "Repository name.", "private", "Whether only collaborators can see it."),
			res("branch", "branches", "a branch of a repository", "", "branch", "Branch name.", "from_branch", "Branch to start from."),
			res("release", "releases", "a tagged release of a repository", "", "tag_name", "Tag of the release.", "notes", "Release notes."),
			res("workflow_run", "workflow_runs", "a GitHub Actions workflow run", "", "workflow_id", "Workflow file name or ID.", "ref", "Git ref to run on."),
			res("review_comment", "review_comments", "a review comment on a pull request's diff", "", "body", "Comment text.", "path", "File the comment is on.", "line", "Line in the diff."),
			res("gist", "gists", "a gist: a snippet of code shared as a small repository", "", "description", "What the gist holds.", "files", "File names and contents."),
		}},
		{"slack", "Slack", []resource{
			res("message", "messages", "a message in a Slack channel or thread", "send", "channel", "Channel ID.", "text", "Message text (mrkdwn).", "thread_ts", "Timestamp of the thread's parent message."),
			res("channel", "channels", "a public or private channel of the workspace", "", "name", "Channel name.", "is_private", "Whether the channel is private."),
			res("user", "users", "a member of the workspace", "", "email", "Email address.", "real_name", "Full name."),
			res("reaction", "reactions", "an emoji reaction on a message", "add", "name", "Emoji name.", "timestamp", "Message timestamp."),
			res("reminder", "reminders", "a reminder for a user", "", "text", "What to remind about.", "time", "When, as a Unix time or natural language."),
			res("file", "files", "a file shared in Slack", "upload", "filename", "File name.", "content", "File content."),
			res("bookmark", "bookmarks", "a bookmark pinned to a channel", "", "title", "Bookmark title.", "link", "URL."),
			res("usergroup", "usergroups", "a user group that can be mentioned", "", "handle", "Mention handle.", "users", "Member IDs."),
		}},
		{"jira", "Jira", []resource{
			res("issue", "issues", "a Jira issue (story, bug or task)", "", "summary", "Issue summary.", "issue_type", "Story, Bug or Task.", "assignee", "Account ID of the assignee."),
			res("project", "projects", "a Jira project", "", "key", "Project key.", "lead", "Project lead."),
			res("sprint", "sprints", "a sprint of a Scrum board", "", "name", "Sprint name.", "goal", "Sprint goal."),
			res("comment", "comments", "a comment on a Jira issue", "", "issue_key", "Issue key.", "body", "Comment text."),
			res("worklog", "worklogs", "time logged against an issue", "", "time_spent", "Time spent, such as 3h 20m."),
			res("board", "boards", "a Scrum or Kanban board", "", "name", "Board name."),
			res("version", "versions", "a fix version of a project", "", "name", "Version name.", "release_date", "Planned release date."),
			res("filter", "filters", "a saved JQL filter", "", "jql", "The JQL query."),
		}},
		{"stripe", "Stripe", []resource{
			res("customer", "customers", "a customer of your business", "", "email", "Customer email.", "name", "Customer name."),
			res("payment_intent", "payment_intents", "a payment intent that collects a payment from a customer", "", "amount", "Amount in the smallest currency unit.", "currency", "Three-letter ISO currency code."),
			res("refund", "refunds", "a refund of a charge or payment", "", "payment_intent", "Payment intent to refund.", "amount", "Amount to refund."),
			res("subscription", "subscriptions", "a recurring subscription to a price", "", "customer", "Customer ID.", "price", "Price ID."),
			res("invoice", "invoices", "an invoice sent to a customer", "", "customer", "Customer ID.", "days_until_due", "Days until the invoice is due."),
			res("product", "products", "a product you sell", "", "name", "Product name."),
			res("price", "prices", "a price of a product", "", "unit_amount", "Unit amount.", "recurring", "Billing interval."),
			res("coupon", "coupons", "a discount coupon", "", "percent_off", "Percent off.", "duration", "once, repeating or forever"),
		}},
		{"notion", "Notion", []resource{
			res("page", "pages", "a Notion page", "", "title", "Page title.", "parent_id", "Parent page or database."),
			res("database", "databases", "a Notion database", "", "title", "Database title."),
			res("block", "blocks", "a content block of a page", "append", "children", "Blocks to append."),
			res("comment", "comments", "a comment on a page or block", "", "rich_text", "Comment text."),
			res("user", "users", "a user of the workspace", "", "name", "User name."),
			res("database_row", "database_rows", "a row (page) of a database", "", "properties", "Property values."),
			res("template", "templates", "a page template", "", "name", "Template name."),
			res("workspace_link", "workspace_links", "a link shared from the workspace", "", "url", "Link URL."),
		}},
		{"gmail", "Gmail", []resource{
			res("email", "emails", "an email message in the mailbox", "send", "to", "Recipients.", "subject", "Subject line.", "body", "Message body."),
			res("draft", "drafts", "an email draft", "", "to", "Recipients.", "subject", "Subject."),
			res("label", "labels", "a mailbox label", "", "name", "Label name."),
			res("thread", "threads", "an email conversation thread", "", "query", "Gmail search query."),
			res("filter", "filters", "a mail filter rule", "", "criteria", "Matching criteria.", "action", "What to do."),
			res("attachment", "attachments", "an attachment of a message", "", "message_id", "Message ID."),
			res("forwarding_address", "forwarding_addresses", "an address mail is forwarded to", "", "email", "Forwarding address."),
			res("vacation_responder", "vacation_responders", "the automatic out-of-office reply", "", "message", "Reply text.", "start", "Start date."),
		}},
		{"calendar", "Google Calendar", []resource{
			res("event", "events", "a calendar event or meeting", "", "summary", "Event title.", "start", "Start time.", "attendees", "Guest emails."),
			res("calendar", "calendars", "a calendar", "", "summary", "Calendar name.", "time_zone", "Time zone."),
			res("acl_rule", "acl_rules", "who can see or edit a calendar", "", "role", "reader, writer or owner.", "scope", "User or group."),
			res("free_busy", "free_busy", "free and busy times of people", "query", "time_min", "Start of the interval.", "time_max", "End of the interval."),
			res("reminder", "reminders", "a notification before an event", "", "minutes", "Minutes before the event."),
			res("color", "colors", "a color of events", "", "background", "Background color."),
			res("setting", "settings", "a user setting of the calendar", "", "value", "Setting value."),
			res("working_location", "working_locations", "where a person works on a day", "", "type", "office, home or custom"),
		}},
		{"drive", "Google Drive", []resource{
			res("file", "files", "a file in Google Drive", "upload", "name", "File name.", "mime_type", "MIME type.", "parents", "Folder IDs."),
			res("folder", "folders", "a folder in Drive", "", "name", "Folder name."),
			res("permission", "permissions", "a sharing permission on a file", "", "email", "Who to share with.", "role", "reader, commenter or writer"),
			res("comment", "comments", "a comment on a file", "", "content", "Comment text."),
			res("revision", "revisions", "a saved version of a file", "", "keep_forever", "Keep this revision."),
			res("shared_drive", "shared_drives", "a shared drive of a team", "", "name", "Drive name."),
			res("shortcut", "shortcuts", "a shortcut to a file", "", "target_id", "File the shortcut points to."),
			res("label", "labels", "a Drive label on files", "", "name", "Label name."),
		}},
		{"linear", "Linear", []resource{
			res("issue", "issues", "a Linear issue", "", "title", "Issue title.", "team_id", "Team.", "priority", "0 (none) to 4 (low)."),
			res("project", "projects", "a Linear project", "", "name", "Project name."),
			res("cycle", "cycles", "a cycle (iteration) of a team", "", "starts_at", "Start date."),
			res("team", "teams", "a team", "", "name", "Team name.", "key", "Issue key prefix."),
			res("comment", "comments", "a comment on an issue", "", "body", "Comment text."),
			res("label", "labels", "an issue label", "", "name", "Label name.", "color", "Hex color."),
			res("workflow_state", "workflow_states", "a state of the team's workflow", "", "name", "State name."),
			res("roadmap", "roadmaps", "a roadmap of projects", "", "name", "Roadmap name."),
		}},
		{"hubspot", "HubSpot", []resource{
			res("contact", "contacts", "a CRM contact", "", "email", "Email.", "firstname", "First name.", "lastname", "Last name."),
			res("company", "companies", "a CRM company", "", "domain", "Company domain.", "name", "Name."),
			res("deal", "deals", "a sales deal in a pipeline", "", "dealname", "Deal name.", "amount", "Deal amount.", "dealstage", "Pipeline stage."),
			res("ticket", "tickets", "a support ticket", "", "subject", "Ticket subject."),
			res("note", "notes", "a note on a CRM record", "", "body", "Note text."),
			res("task", "tasks", "a sales task", "", "subject", "Task subject.", "due_date", "Due date."),
			res("pipeline", "pipelines", "a deal or ticket pipeline", "", "label", "Pipeline label."),
			res("owner", "owners", "a CRM record owner", "", "email", "Owner email."),
		}},
		{"zendesk", "Zendesk", []resource{
			res("ticket", "tickets", "a customer support ticket", "", "subject", "Ticket subject.", "priority", "low, normal, high or urgent"),
			res("user", "users", "an end user or agent", "", "email", "Email.", "role", "end-user, agent or admin"),
			res("organization", "organizations", "a customer organization", "", "name", "Organization name."),
			res("macro", "macros", "a canned response macro", "", "title", "Macro title."),
			res("article", "articles", "a help center article", "", "title", "Article title.", "body", "Article body."),
			res("satisfaction_rating", "satisfaction_ratings", "a customer satisfaction rating", "", "score", "good or bad"),
			res("group", "groups", "an agent group", "", "name", "Group name."),
			res("view", "views", "a saved ticket view", "", "title", "View title."),
		}},
		{"shopify", "Shopify", []resource{
			res("product", "products", "a product in the store", "", "title", "Product title.", "vendor", "Vendor."),
			res("order", "orders", "a customer order", "", "line_items", "Items ordered.", "email", "Customer email."),
			res("customer", "customers", "a store customer", "", "email", "Email.", "first_name", "First name."),
			res("inventory_level", "inventory_levels", "stock of an item at a location", "set", "available", "Units available.", "location_id", "Location."),
			res("fulfillment", "fulfillments", "the shipment of an order's items", "", "tracking_number", "Tracking number."),
			res("discount_code", "discount_codes", "a discount code", "", "code", "The code customers enter."),
			res("collection", "collections", "a collection of products", "", "title", "Collection title."),
			res("theme", "themes", "an online store theme", "", "name", "Theme name."),
		}},
		{"sentry", "Sentry", []resource{
			res("issue", "issues", "an error issue grouping similar events", "", "status", "resolved, unresolved or ignored"),
			res("event", "events", "an error event with its stack trace", "", "event_id", "Event ID."),
			res("project", "projects", "a Sentry project", "", "slug", "Project slug.", "platform", "Platform."),
			res("release", "releases", "a release of your application", "", "version", "Release version."),
			res("alert_rule", "alert_rules", "an alert rule", "", "name", "Rule name.", "conditions", "When to alert."),
			res("team", "teams", "a team of the organization", "", "slug", "Team slug."),
			res("dsn_key", "dsn_keys", "a client key (DSN)", "", "name", "Key name."),
			res("replay", "replays", "a session replay", "", "replay_id", "Replay ID."),
		}},
		{"datadog", "Datadog", []resource{
			res("monitor", "monitors", "a monitor that alerts on a metric or log query", "", "query", "Monitor query.", "name", "Monitor name."),
			res("dashboard", "dashboards", "a dashboard of graphs", "", "title", "Dashboard title."),
			res("metric", "metrics", "a metric time series", "query", "query", "Metric query.", "from", "Start time."),
			res("log", "logs", "log events", "search", "query", "Log search query."),
			res("incident", "incidents", "an incident", "", "title", "Incident title.", "severity", "SEV-1 to SEV-5"),
			res("downtime", "downtimes", "a scheduled downtime that silences monitors", "", "scope", "Scope to silence."),
			res("slo", "slos", "a service level objective", "", "target", "Target percentage."),
			res("synthetic_test", "synthetic_tests", "a synthetic API or browser test", "", "locations", "Where it runs."),
		}},
		{"pagerduty", "PagerDuty", []resource{
			res("incident", "incidents", "an incident that pages the on-call responder", "trigger", "title", "Incident title.", "service_id", "Service."),
			res("service", "services", "a service that incidents belong to", "", "name", "Service name."),
			res("schedule", "schedules", "an on-call schedule", "", "name", "Schedule name."),
			res("oncall", "oncalls", "who is on call for an escalation policy now", "", "escalation_policy_id", "Escalation policy."),
			res("escalation_policy", "escalation_policies", "an escalation policy", "", "name", "Policy name."),
			res("maintenance_window", "maintenance_windows", "a maintenance window", "", "start_time", "Start."),
			res("user", "users", "a PagerDuty user", "", "email", "Email."),
			res("priority", "priorities", "an incident priority", "", "name", "Priority name."),
		}},
		{"s3", "Amazon S3", []resource{
			res("bucket", "buckets", "an S3 bucket", "", "bucket", "Bucket name.", "region", "AWS region."),
			res("object", "objects", "an object (file) in a bucket", "put", "key", "Object key.", "body", "Object content."),
			res("bucket_policy", "bucket_policies", "a bucket's access policy", "put", "policy", "Policy JSON."),
			res("lifecycle_rule", "lifecycle_rules", "a rule that expires or archives objects", "put", "days", "Days until expiry."),
			res("presigned_url", "presigned_urls", "a temporary URL to read or write an object", "", "expires_in", "Seconds."),
			res("multipart_upload", "multipart_uploads", "an upload of a large object in parts", "", "key", "Object key."),
			res("object_tag", "object_tags", "tags on an object", "put", "tags", "Key-value tags."),
			res("bucket_versioning", "bucket_versionings", "whether a bucket keeps object versions", "put", "status", "Enabled or Suspended"),
		}},
		{"postgres", "PostgreSQL", []resource{
			res("query", "queries", "a read-only SQL query", "run", "sql", "The SQL statement."),
			res("table", "tables", "a table of the database", "", "name", "Table name.", "columns", "Column definitions."),
			res("index", "indexes", "an index on a table", "", "columns", "Indexed columns."),
			res("schema", "schemas", "a schema (namespace of tables)", "", "name", "Schema name."),
			res("view", "views", "a view", "", "definition", "SELECT of the view."),
			res("role", "roles", "a database role", "", "name", "Role name.", "login", "Whether it can log in."),
			res("extension", "extensions", "an installed extension", "", "name", "Extension name."),
			res("slow_query", "slow_queries", "the slowest statements from pg_stat_statements", "", "limit", "How many."),
		}},
		{"kubernetes", "Kubernetes", []resource{
			res("pod", "pods", "a pod running containers", "", "namespace", "Kubernetes namespace.", "name", "Pod name."),
			res("deployment", "deployments", "a deployment of replicated pods", "", "replicas", "Number of replicas.", "image", "Container image."),
			res("service", "services", "a service exposing pods", "", "port", "Port."),
			res("pod_log", "pod_logs", "the logs of a pod's container", "", "container", "Container name.", "tail_lines", "Lines from the end."),
			res("config_map", "config_maps", "a config map", "", "data", "Key-value data."),
			res("secret", "secrets", "a secret", "", "data", "Base64 values."),
			res("node", "nodes", "a cluster node", "", "name", "Node name."),
			res("job", "jobs", "a batch job", "", "image", "Container image.", "command", "Command."),
		}},
		{"confluence", "Confluence", []resource{
			res("page", "pages", "a Confluence wiki page", "", "title", "Page title.", "space_key", "Space.", "body", "Page body."),
			res("space", "spaces", "a Confluence space", "", "key", "Space key."),
			res("comment", "comments", "a comment on a page", "", "body", "Comment text."),
			res("attachment", "attachments", "a file attached to a page", "upload", "file", "File."),
			res("label", "labels", "a label on a page", "add", "name", "Label."),
			res("blog_post", "blog_posts", "a blog post in a space", "", "title", "Post title."),
			res("page_restriction", "page_restrictions", "who can view or edit a page", "", "operation", "read or update"),
			res("template", "templates", "a page template", "", "name", "Template name."),
		}},
		{"asana", "Asana", []resource{
			res("task", "tasks", "an Asana task", "", "name", "Task name.", "assignee", "Assignee.", "due_on", "Due date."),
			res("project", "projects", "an Asana project", "", "name", "Project name."),
			res("section", "sections", "a section of a project", "", "name", "Section name."),
			res("story", "stories", "a comment or activity on a task", "", "text", "Comment text."),
			res("tag", "tags", "a tag", "", "name", "Tag name."),
			res("portfolio", "portfolios", "a portfolio of projects", "", "name", "Portfolio name."),
			res("goal", "goals", "a goal", "", "name", "Goal name."),
			res("team", "teams", "a team", "", "name", "Team name."),
		}},
		{"figma", "Figma", []resource{
			res("file", "files", "a Figma design file", "", "name", "File name."),
			res("comment", "comments", "a comment on a design", "", "message", "Comment text."),
			res("component", "components", "a published component", "", "key", "Component key."),
			res("style", "styles", "a published style", "", "key", "Style key."),
			res("image_export", "image_exports", "an export of nodes as PNG, JPG, SVG or PDF", "", "ids", "Node IDs.", "format", "png, jpg, svg or pdf"),
			res("version", "versions", "a version of a file", "", "label", "Version label."),
			res("project", "projects", "a team project", "", "name", "Project name."),
			res("variable", "variables", "a design variable (token)", "", "name", "Variable name."),
		}},
		{"discord", "Discord", []resource{
			res("message", "messages", "a message in a Discord channel", "send", "channel_id", "Channel.", "content", "Message text."),
			res("channel", "channels", "a guild channel", "", "name", "Channel name."),
			res("member", "members", "a guild member", "", "user_id", "User."),
			res("role", "roles", "a guild role", "", "name", "Role name.", "permissions", "Permission bits."),
			res("thread", "threads", "a thread", "", "name", "Thread name."),
			res("invite", "invites", "an invite link", "", "max_age", "Seconds."),
			res("emoji", "emojis", "a custom emoji", "", "name", "Emoji name."),
			res("scheduled_event", "scheduled_events", "a scheduled guild event", "", "name", "Event name.", "scheduled_start_time", "Start."),
		}},
		{"airtable", "Airtable", []resource{
			res("record", "records", "a record (row) of a table", "", "fields", "Field values."),
			res("base", "bases", "an Airtable base", "", "name", "Base name."),
			res("table", "tables", "a table of a base", "", "name", "Table name."),
			res("field", "fields", "a field (column) of a table", "", "name", "Field name.", "type", "Field type."),
			res("view", "views", "a view of a table", "", "name", "View name."),
			res("webhook", "webhooks", "a webhook notifying changes", "", "notification_url", "URL."),
			res("comment", "comments", "a comment on a record", "", "text", "Comment text."),
			res("attachment", "attachments", "a file in an attachment field", "upload", "url", "File URL."),
		}},
		{"twilio", "Twilio", []resource{
			res("sms", "sms", "an SMS text message to a phone number", "send", "to", "Phone number.", "body", "Message text."),
			res("call", "calls", "a phone call", "", "to", "Phone number.", "twiml", "Instructions."),
			res("phone_number", "phone_numbers", "a phone number you own", "", "phone_number", "E.164 number."),
			res("recording", "recordings", "a call recording", "", "call_sid", "Call."),
			res("verification", "verifications", "a one-time verification code", "send", "to", "Phone or email.", "channel", "sms, call or email"),
			res("conversation", "conversations", "a multi-party conversation", "", "friendly_name", "Name."),
			res("whatsapp_message", "whatsapp_messages", "a WhatsApp message", "send", "to", "WhatsApp number.", "body", "Text."),
			res("usage_record", "usage_records", "account usage", "", "category", "Usage category."),
		}},
		{"salesforce", "Salesforce", []resource{
			res("lead", "leads", "a sales lead", "", "company", "Company.", "last_name", "Last name."),
			res("opportunity", "opportunities", "a sales opportunity", "", "name", "Name.", "stage_name", "Stage.", "close_date", "Close date."),
			res("account", "accounts", "a customer account", "", "name", "Account name."),
			res("case", "cases", "a customer case", "", "subject", "Subject."),
			res("soql_query", "soql_queries", "a SOQL query over records", "run", "soql", "The SOQL query."),
			res("campaign", "campaigns", "a marketing campaign", "", "name", "Campaign name."),
			res("report", "reports", "a report", "run", "report_id", "Report."),
			res("contact", "contacts", "a contact person of an account", "", "email", "Email."),
		}},
	}
}

// operation is one of the five operations on a resource.
type operation struct {
	verb string // list, get, create (or the resource's send), update, delete
	desc func(s service, r resource) string
}

// operationList returns the five operations.
func operationList() []operation {
	return []operation{
		{"list", func(s service, r resource) string {
			return fmt.Sprintf("List %s in %s. Returns %s, newest first; filter with query and page with cursor and limit.", words(r.plural), s.title, r.what+"s")
		}},
		{"get", func(s service, r resource) string {
			return fmt.Sprintf("Get the details of %s in %s by its ID.", r.what, s.title)
		}},
		{"create", func(s service, r resource) string {
			verb := "Create"
			if r.send != "" {
				verb = strings.ToUpper(r.send[:1]) + r.send[1:]
			}
			return fmt.Sprintf("%s %s in %s.", verb, r.what, s.title)
		}},
		{"update", func(s service, r resource) string {
			return fmt.Sprintf("Update %s in %s; only the fields given change.", r.what, s.title)
		}},
		{"delete", func(s service, r resource) string {
			return fmt.Sprintf("Delete %s from %s. This cannot be undone.", r.what, s.title)
		}},
	}
}

func words(s string) string { return strings.ReplaceAll(s, "_", " ") }

type tool struct {
	connector, name, description string
	input                        json.RawMessage
	requiresApproval             bool
}

// syntheticCatalogue returns the 1,000 tools.
func syntheticCatalogue() []tool {
	var out []tool
	for _, s := range serviceList() {
		for _, r := range s.resources {
			for _, op := range operationList() {
				verb := op.verb
				if verb == "create" && r.send != "" {
					verb = r.send
				}
				name := verb + "_" + r.name
				if verb == "list" {
					name = "list_" + r.plural
				}
				out = append(out, tool{connector: s.name, name: name, description: op.desc(s, r), input: inputSchema(op.verb, r),
					requiresApproval: op.verb == "delete" || op.verb == "update"})
			}
		}
	}
	return out
}

// inputSchema is an MCP-shaped input schema for the operation.
func inputSchema(verb string, r resource) json.RawMessage {
	props := map[string]any{}
	var required []string
	switch verb {
	case "list":
		props["query"] = map[string]any{"type": "string", "description": "Filter " + words(r.plural) + " by text."}
		props["cursor"] = map[string]any{"type": "string", "description": "Cursor from the previous page."}
		props["limit"] = map[string]any{"type": "integer", "minimum": 1, "maximum": 100, "default": 25, "description": "Page size."}
		props["sort"] = map[string]any{"type": "string", "enum": []string{"created", "updated"}, "description": "Sort order."}
	case "get", "delete":
		props[r.name+"_id"] = map[string]any{"type": "string", "description": "ID of the " + words(r.name) + "."}
		required = append(required, r.name+"_id")
	case "update":
		props[r.name+"_id"] = map[string]any{"type": "string", "description": "ID of the " + words(r.name) + "."}
		required = append(required, r.name+"_id")
		fallthrough
	default:
		for _, f := range r.fields {
			props[f[0]] = map[string]any{"type": "string", "description": f[1]}
		}
		if verb != "update" && len(r.fields) > 0 {
			required = append(required, r.fields[0][0])
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	raw, _ := json.Marshal(s)
	return raw
}

// namespaces groups tools by connector, in order: one namespace each.
func namespaces(tools []tool) ([]contract.Namespace, error) {
	var out []contract.Namespace
	index := map[string]int{}
	noop := func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`null`), nil }
	for _, t := range tools {
		i, ok := index[t.connector]
		if !ok {
			i = len(out)
			index[t.connector] = i
			out = append(out, contract.Namespace{Name: t.connector})
		}
		ct, err := contract.NewForeignTool(t.name, t.description, t.input, nil, noop)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", t.connector, t.name, err)
		}
		if ct, err = ct.WithPolicy(contract.Policy{RequiresApproval: t.requiresApproval}); err != nil {
			return nil, err
		}
		out[i].Tools = append(out[i].Tools, ct)
	}
	return out, nil
}

// mcpToolList is the tools/list answer an agent would receive for tools
// served one MCP tool each (names prefixed by the connector, as a gateway
// that merges servers names them).
func mcpToolList(tools []tool) []*mcp.Tool {
	list := make([]*mcp.Tool, len(tools))
	for i, t := range tools {
		list[i] = &mcp.Tool{Name: t.connector + "_" + t.name, Description: t.description, InputSchema: t.input}
	}
	return list
}
