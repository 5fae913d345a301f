package search

import (
	"slices"
	"strings"
	"testing"
)

func TestNewDocumentReadsOpenAPIDescriptions(t *testing.T) {
	for _, tc := range []struct {
		name, desc     string
		method, path   string // given
		wantMethod     string
		wantSegments   string // words, {} for a parameter
		wantSummary    string
		notDescription string // a word the description field must not have
	}{
		{
			name: "repos_create_release", desc: "Create a release\n\nUsers with push access can create a release.\n\nPOST /repos/{owner}/{repo}/releases",
			wantMethod: "POST", wantSegments: "repos {} {} releases", wantSummary: "create a release", notDescription: "post",
		},
		{
			name: "GetCustomers", desc: "<p>Returns a list of your <code>customers</code>.</p>\n\nGET /v1/customers (deprecated)",
			wantMethod: "GET", wantSegments: "customers", wantSummary: "returns a list of your customers", notDescription: "code",
		},
		{
			name: "listCoreV1NamespacedPersistentVolumeClaim", desc: "list or watch objects of kind PersistentVolumeClaim",
			method: "get", path: "/api/v1/namespaces/{namespace}/persistentvolumeclaims",
			wantMethod: "GET", wantSegments: "namespaces {} persistent volume claims", wantSummary: "list or watch objects of kind persistent volume claim",
		},
		{
			name: "patchNetworkingV1NamespacedNetworkPolicy", desc: "partially update the specified NetworkPolicy",
			method: "patch", path: "/apis/networking/v1/namespaces/{namespace}/networkpolicies/{name}",
			wantMethod: "PATCH", wantSegments: "networking namespaces {} network policies {}", wantSummary: "partially update the specified network policy",
		},
		{name: "send_message", desc: "Send a message.\n\nGET is not a path here", wantSummary: "send a message"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDocument(Tool{Name: tc.name, Description: tc.desc, Method: tc.method, Path: tc.path})
			if d.method != tc.wantMethod {
				t.Errorf("method = %q, want %q", d.method, tc.wantMethod)
			}
			var segs []string
			for _, s := range d.segments {
				if s.param {
					segs = append(segs, "{}")
				} else {
					segs = append(segs, s.words...)
				}
			}
			if got := strings.Join(segs, " "); got != tc.wantSegments {
				t.Errorf("segments = %q, want %q", got, tc.wantSegments)
			}
			if got := strings.Join(d.summary, " "); got != tc.wantSummary {
				t.Errorf("summary = %q, want %q", got, tc.wantSummary)
			}
			if tc.notDescription != "" && slices.Contains(d.fields[fieldDescription], tc.notDescription) {
				t.Errorf("description field %q has %q", d.fields[fieldDescription], tc.notDescription)
			}
		})
	}
}

func TestParseSummary(t *testing.T) {
	for _, tc := range []struct {
		summary, verbs, phrase string
	}{
		{"Create or update file contents", "create update", "file contents"},
		{"list or watch objects of kind Pod", "list watch", "pod"},
		{"Returns a list of your customers", "returns list", "customers"},
		{"Retrieves the details of an account", "retrieves", "account"},
		{"partially update the specified Deployment", "update", "deployment"},
		{"Re-run a workflow", "rerun", "workflow"},
		{"List pull requests associated with a commit", "list", "associated pull requests"},
		{"Returns a list of accounts connected to your platform", "returns list", "connected accounts"}, // a participle after the object modifies it
		{"List review comments on a pull request", "list", "review comments"},
		{"Creates a new customer object", "creates", "customer"},
		{"Search for charges you've previously created", "search", "charges"},
		{"Removes the currently applied discount on a customer", "removes", "applied discount"},
		{"A webhook endpoint must have a url", "", ""},
		{"With Connect, you can create accounts", "", ""},
		{"", "", ""},
	} {
		sp := parseSummary(words(tc.summary))
		if got := strings.Join(sp.verbs, " "); got != tc.verbs {
			t.Errorf("parseSummary(%q) verbs = %q, want %q", tc.summary, got, tc.verbs)
		}
		if got := strings.Join(sp.phrase, " "); got != tc.phrase {
			t.Errorf("parseSummary(%q) phrase = %q, want %q", tc.summary, got, tc.phrase)
		}
	}
}

// operation is an OpenAPI operation as connector/openapi describes it.
type operation struct{ name, summary, method, path string }

func operationIndex(ops []operation) *Index {
	docs := make([]Document, len(ops))
	for i, op := range ops {
		docs[i] = NewDocument(Tool{Namespace: "api", Name: op.name, Description: op.summary + "\n\n" + op.method + " " + op.path})
	}
	return New(docs)
}

// stems returns the terms of ids.
func (ix *Index) stemsOf(ids []int32) string {
	var out []string
	for _, id := range ids {
		for s, i := range ix.ids {
			if i == id {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, " ")
}

func TestAnalyseReadsVerbObjectAndContext(t *testing.T) {
	ops := []operation{
		{"issues_delete_comment", "Delete an issue comment", "DELETE", "/repos/{owner}/{repo}/issues/comments/{comment_id}"},
		{"PostInvoicesInvoiceVoid", "Mark a finalized invoice as void", "POST", "/v1/invoices/{invoice}/void"},
		{"GetCustomers", "", "GET", "/v1/customers"},
		{"GetCustomersCustomer", "", "GET", "/v1/customers/{customer}"},
		{"PostCustomersCustomer", "", "POST", "/v1/customers/{customer}"},
		{"pulls_merge", "Merge a pull request", "PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/merge"},
		{"repos_update_branch_protection", "Update branch protection", "PUT", "/repos/{owner}/{repo}/branches/{branch}/protection"},
		{"repos_generate_release_notes", "Generate release notes content for a release", "POST", "/repos/{owner}/{repo}/releases/generate-notes"},
	}
	ix := operationIndex(ops)
	for i, tc := range []struct {
		actions  string
		families uint8
		objects  string // phrases, | between
		context  string
	}{
		{"delet", familyBit(familyDelete), "issu comment|comment", "repo issu"},
		{"mark void", 0, "final invoic|invoic", ""},
		{"", familyBit(familyList), "custom", ""},
		{"", familyBit(familyGet), "custom", ""},
		{"", familyBit(familyUpdate), "custom", ""},
		{"merg", 0, "pull request|pull", "repo"},
		{"updat", familyBit(familyUpdate), "branch protect|protect", "repo branch"},
		{"generat", 0, "note|releas note content", "repo releas"},
	} {
		doc := ix.docs[i]
		var objects []string
		for _, o := range doc.objects {
			objects = append(objects, ix.stemsOf(o))
		}
		got := []string{ix.stemsOf(doc.actions), strings.Join(objects, "|"), ix.stemsOf(doc.context)}
		want := []string{tc.actions, tc.objects, tc.context}
		if !slices.Equal(got, want) || doc.families != tc.families {
			t.Errorf("%s: actions, objects, context = %q, families %d; want %q, %d", ops[i].name, got, doc.families, want, tc.families)
		}
	}
}

func TestParseQuery(t *testing.T) {
	ix := operationIndex([]operation{
		{"issues_create_comment", "Create an issue comment", "POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments"},
		{"repos_create_fork", "Create a fork", "POST", "/repos/{owner}/{repo}/forks"},
		{"gists_fork", "Fork a gist", "POST", "/gists/{gist_id}/forks"},
		{"pulls_list", "List pull requests", "GET", "/repos/{owner}/{repo}/pulls"},
		{"repos_get", "Get a repository", "GET", "/repos/{owner}/{repo}"},
		{"repos_create_release", "Create a release", "POST", "/repos/{owner}/{repo}/releases"},
		{"pulls_request_reviewers", "Request reviewers for a pull request", "POST", "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers"},
		{"users_get_authenticated", "Get the authenticated user", "GET", "/user"},
		{"createBatchV1NamespacedCronJob", "create a CronJob", "POST", "/apis/batch/v1/namespaces/{namespace}/cronjobs"},
	})
	for _, tc := range []struct {
		query        string
		verb         string
		family       uint8
		object       string
		modifiers    string
		plural, weak bool
	}{
		{query: "publish a new release with notes", verb: "publish", family: familyBit(familyCreate), object: "releas"},
		{query: "comment on an issue", family: familyBit(familyCreate), weak: true},
		{query: "comment a gist", family: familyBit(familyCreate), object: "gist", weak: true},
		{query: "fork a repository", verb: "fork", object: "repositori"},
		{query: "suspend a cron job", family: familyBit(familyUpdate), object: "job", modifiers: "cron", weak: true},
		{query: "ask for reviewers on a pull request", object: "review", plural: true},
		{query: "get all pull requests", verb: "get", family: familyBit(familyList), object: "request", modifiers: "pull", plural: true},
		{query: "show me all the pull requests", verb: "show", family: familyBit(familyList), object: "request", modifiers: "pull", plural: true},
		{query: "show me the pull request", verb: "show", family: familyBit(familyGet), object: "request", modifiers: "pull"},
		{query: "see every pull request", verb: "see", family: familyBit(familyList), object: "request", modifiers: "pull", plural: true},
		{query: "find all pull requests", verb: "find", family: familyBit(familySearch) | familyBit(familyList), object: "request", modifiers: "pull", plural: true},
		{query: "find pull requests", verb: "find", family: familyBit(familySearch), object: "request", modifiers: "pull", plural: true},
		{query: "has the pull request been merged", family: familyBit(familyGet), object: "request", modifiers: "pull"},
		{query: "search for pull requests", verb: "search", family: familyBit(familySearch), object: "request", modifiers: "pull", plural: true},
		{query: "run a cron job", verb: "trigger", family: familyBit(familyCreate), object: "job", modifiers: "cron"},
		{query: "permanently delete a release", verb: "delet", family: familyBit(familyDelete), object: "releas"},
		{query: "list my PRs", verb: "list", family: familyBit(familyList), object: "request", modifiers: "pull", plural: true},
		{query: "the authenticated user", family: familyBit(familyGet), object: "user", modifiers: "authent"},
		{query: "what pull requests does a repository have", family: familyBit(familyList), object: "request", modifiers: "pull", plural: true},
		{query: "unfork a repository", verb: "", family: familyBit(familyDelete), object: "repositori"},
		{query: "the of to", family: 0},
	} {
		t.Run(tc.query, func(t *testing.T) {
			q := ix.parseQuery(tc.query, make([]float64, len(ix.ids)))
			verb := ""
			if q.verb >= 0 {
				verb = ix.stemsOf([]int32{q.verb})
			}
			object := ""
			if q.object != nil {
				object = q.object.stem
			}
			var mods []string
			for _, m := range q.modifiers {
				mods = append(mods, m.stem)
			}
			if verb != tc.verb || q.family != tc.family || object != tc.object || strings.Join(mods, " ") != tc.modifiers ||
				q.plural != tc.plural || (q.verbWeight < 1) != tc.weak {
				t.Errorf("verb %q family %d object %q modifiers %q plural %v weight %v; want %q %d %q %q %v weak %v",
					verb, q.family, object, mods, q.plural, q.verbWeight, tc.verb, tc.family, tc.object, tc.modifiers, tc.plural, tc.weak)
			}
		})
	}
}

// githubLike is a slice of GitHub's REST API as connector/openapi
// describes it: summaries, a few descriptions, paths.
var githubLike = []struct{ name, summary, desc, method, path string }{
	{"repos_create_release", "Create a release", "Users with push access to the repository can create a release.", "POST", "/repos/{owner}/{repo}/releases"},
	{"repos_get_latest_release", "Get the latest release", "View the latest published full release for the repository.", "GET", "/repos/{owner}/{repo}/releases/latest"},
	{"repos_generate_release_notes", "Generate release notes content for a release", "Generate a name and body describing a release.", "POST", "/repos/{owner}/{repo}/releases/generate-notes"},
	{"repos_list_releases", "List releases", "This returns a list of releases.", "GET", "/repos/{owner}/{repo}/releases"},
	{"repos_get_branch", "Get a branch", "", "GET", "/repos/{owner}/{repo}/branches/{branch}"},
	{"repos_rename_branch", "Rename a branch", "Renames a branch in a repository.", "POST", "/repos/{owner}/{repo}/branches/{branch}/rename"},
	{"repos_delete_branch_protection", "Delete branch protection", "", "DELETE", "/repos/{owner}/{repo}/branches/{branch}/protection"},
	{"repos_delete_admin_branch_protection", "Delete admin branch protection", "Removing admin enforcement requires admin access.", "DELETE", "/repos/{owner}/{repo}/branches/{branch}/protection/enforce_admins"},
	{"repos_remove_status_check_protection", "Remove status check protection", "", "DELETE", "/repos/{owner}/{repo}/branches/{branch}/protection/required_status_checks"},
	{"git_create_ref", "Create a reference", "Creates a reference for your repository. Empty repositories are repositories without branches.", "POST", "/repos/{owner}/{repo}/git/refs"},
	{"git_get_ref", "Get a reference", "The ref must be formatted as heads/<branch name> for branches.", "GET", "/repos/{owner}/{repo}/git/ref/{ref}"},
	{"git_list_matching_refs", "List matching references", "The ref must be formatted as heads/<branch name> for branches.", "GET", "/repos/{owner}/{repo}/git/matching-refs/{ref}"},
	{"git_delete_ref", "Delete a reference", "Deletes the provided reference.", "DELETE", "/repos/{owner}/{repo}/git/refs/{ref}"},
	{"git_create_commit", "Create a commit", "Creates a new Git commit object.", "POST", "/repos/{owner}/{repo}/git/commits"},
	{"issues_delete_comment", "Delete an issue comment", "", "DELETE", "/repos/{owner}/{repo}/issues/comments/{comment_id}"},
	{"pulls_delete_review_comment", "Delete a review comment for a pull request", "", "DELETE", "/repos/{owner}/{repo}/pulls/comments/{comment_id}"},
	{"repos_delete_commit_comment", "Delete a commit comment", "", "DELETE", "/repos/{owner}/{repo}/comments/{comment_id}"},
	{"issues_remove_label", "Remove a label from an issue", "", "DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}"},
	{"issues_remove_all_labels", "Remove all labels from an issue", "", "DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels"},
	{"repos_get", "Get a repository", "", "GET", "/repos/{owner}/{repo}"},
	{"repos_delete", "Delete a repository", "", "DELETE", "/repos/{owner}/{repo}"},
	{"repos_create_fork", "Create a fork", "", "POST", "/repos/{owner}/{repo}/forks"},
	{"repos_list_forks", "List forks", "", "GET", "/repos/{owner}/{repo}/forks"},
	{"gists_fork", "Fork a gist", "", "POST", "/gists/{gist_id}/forks"},
	{"issues_create_comment", "Create an issue comment", "", "POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments"},
	{"issues_list_comments", "List issue comments", "", "GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments"},
	{"PostInvoicesInvoiceVoid", "<p>Mark a finalized invoice as void.</p>", "", "POST", "/v1/invoices/{invoice}/void"},
	{"PostInvoicesInvoice", "<p>Draft invoices are fully editable.</p>", "", "POST", "/v1/invoices/{invoice}"},
	{"GetInvoicesInvoice", "<p>Retrieves the invoice with the given ID.</p>", "", "GET", "/v1/invoices/{invoice}"},
	{"issues_create", "Create an issue", "Any user with pull access to a repository can create an issue.", "POST", "/repos/{owner}/{repo}/issues"},
	{"issues_get", "Get an issue", "", "GET", "/repos/{owner}/{repo}/issues/{issue_number}"},
	{"issues_list_for_repo", "List repository issues", "List issues in a repository. Only open issues will be listed.", "GET", "/repos/{owner}/{repo}/issues"},
	{"issues_lock", "Lock an issue", "Users with push access can lock an issue's conversation.", "PUT", "/repos/{owner}/{repo}/issues/{issue_number}/lock"},
	{"users_get_authenticated", "Get the authenticated user", "", "GET", "/user"},
	{"users_list_followers_for_user", "List followers of a user", "Lists the people following the specified user.", "GET", "/users/{username}/followers"},
	{"gists_create", "Create a gist", "Allows you to add a new gist with one or more files.", "POST", "/gists"},
	{"gists_get", "Get a gist", "", "GET", "/gists/{gist_id}"},
	{"pulls_list", "List pull requests", "Lists pull requests in a specified repository.", "GET", "/repos/{owner}/{repo}/pulls"},
	{"pulls_merge", "Merge a pull request", "Merges a pull request into the base branch.", "PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/merge"},
	{"actions_list_workflow_runs_for_repo", "List workflow runs for a repository", "", "GET", "/repos/{owner}/{repo}/actions/runs"},
	{"search_code", "Search code", "Searches for query terms inside of a file.", "GET", "/search/code"},
}

func githubLikeIndex() *Index {
	docs := make([]Document, len(githubLike))
	for i, op := range githubLike {
		docs[i] = NewDocument(Tool{Namespace: "github", Name: op.name, Description: op.summary + "\n\n" + op.desc + "\n\n" + op.method + " " + op.path})
	}
	return New(docs)
}

// TestRankingReadsVerbAndObject pins the cases of the issue that asked for
// discovery in large APIs: the operation whose verb and object both agree
// ranks above one that only shares words, and one under an object the
// query does not name is marked down.
func TestRankingReadsVerbAndObject(t *testing.T) {
	ix := githubLikeIndex()
	for _, tc := range []struct{ query, first string }{
		{"publish a new release with notes", "repos_create_release"},
		{"remove branch protection from a branch", "repos_delete_branch_protection"},
		{"create a branch from a commit", "git_create_ref"}, // GitHub's refs are branches: learnt from the descriptions
		{"delete a comment on an issue", "issues_delete_comment"},
		{"remove a label from an issue", "issues_remove_label"},
		{"remove all labels from an issue", "issues_remove_all_labels"},
		{"fork a repository", "repos_create_fork"},
		{"comment on an issue", "issues_create_comment"},
		{"void an invoice", "PostInvoicesInvoiceVoid"},
		{"change an invoice", "PostInvoicesInvoice"},
		{"show me the latest release", "repos_get_latest_release"},
	} {
		hits, _ := ix.Search(tc.query, 3)
		var got []string
		for _, h := range hits {
			got = append(got, githubLike[h.Doc].name)
		}
		if len(got) == 0 || got[0] != tc.first {
			t.Errorf("Search(%q) = %q, want %s first", tc.query, got, tc.first)
		}
	}
}

func TestLearntAliasesAndAssociations(t *testing.T) {
	ix := githubLikeIndex()
	pair := func(m map[int32][]int32, a, b string) bool {
		return slices.Contains(m[ix.ids[a]], ix.ids[b])
	}
	if !pair(ix.aliases, "ref", "refer") || !pair(ix.aliases, "refer", "ref") {
		t.Errorf("ref and reference (refer) are not aliases: %v", ix.aliases)
	}
	if !pair(ix.aliases, "repo", "repositori") {
		t.Errorf("repo and repository (repositori) are not aliases")
	}
	if !pair(ix.associated, "refer", "branch") && !pair(ix.associated, "ref", "branch") {
		t.Errorf("references are not associated with branches: %v", ix.associated)
	}
	if pair(ix.associated, "branch", "refer") {
		t.Errorf("branches are associated with references, whose descriptions they do not use")
	}
}

func TestSearchLimitAndTotal(t *testing.T) {
	ix := githubLikeIndex()
	all, total := ix.Search("delete", 0)
	if len(all) != total || total < 5 {
		t.Fatalf("Search(delete, 0) = %d hits, total %d", len(all), total)
	}
	for _, limit := range []int{1, 3, total, total + 5} {
		hits, n := ix.Search("delete", limit)
		if n != total || len(hits) != min(limit, total) || !slices.Equal(hits, all[:len(hits)]) {
			t.Errorf("Search(delete, %d) = %v (total %d), want the first %d of %v", limit, hits, n, min(limit, total), all)
		}
	}
}

// FuzzSearch indexes a fuzzed tool among GitHub-like operations and runs a
// fuzzed query: nothing panics, limit and total hold, scores are positive
// and descend.
func FuzzSearch(f *testing.F) {
	f.Add("repos_create_release", "Create a release\n\nPOST /repos/{owner}/{repo}/releases", "publish a new release with notes")
	f.Add("PostInvoicesInvoiceVoid", "<p>Mark a <b>finalized</b> invoice as void.</p>\n\nPOST /v1/invoices/{invoice}/void", "void an invoice")
	f.Add("x", "\n\nGET /{a}/{b}/c-d/{e}", "who starred a repository")
	f.Add("listCoreV1NamespacedPersistentVolumeClaim", "list or watch objects of kind PersistentVolumeClaim", "list PRs of all repos")
	f.Add("", "<<<>&amp;", "get all")
	f.Fuzz(func(t *testing.T, name, desc, query string) {
		docs := []Document{NewDocument(Tool{Name: name, Description: desc})}
		for _, op := range githubLike[:12] {
			docs = append(docs, NewDocument(Tool{Name: op.name, Description: op.summary + "\n\n" + op.method + " " + op.path}))
		}
		ix := New(docs)
		all, total := ix.Search(query, 0)
		if len(all) != total {
			t.Fatalf("Search(%q, 0) = %d hits, total %d", query, len(all), total)
		}
		hits, n := ix.Search(query, 5)
		if n != total || len(hits) != min(5, total) {
			t.Fatalf("Search(%q, 5) = %d hits, total %d; all: %d", query, len(hits), n, total)
		}
		for i, h := range all {
			if h.Score <= 0 || h.Doc < 0 || h.Doc >= ix.Len() || i > 0 && all[i-1].Score < h.Score {
				t.Fatalf("Search(%q) = %v", query, all)
			}
		}
	})
}

// TestSearchIsSafeForConcurrentUse runs searches in parallel (with -race).
func TestSearchIsSafeForConcurrentUse(t *testing.T) {
	ix := githubLikeIndex()
	want, _ := ix.Search("publish a new release with notes", 0)
	done := make(chan []Hit)
	for range 8 {
		go func() {
			var last []Hit
			for range 20 {
				last, _ = ix.Search("publish a new release with notes", 0)
				ix.Search("delete a comment on an issue", 3)
			}
			done <- last
		}()
	}
	for range 8 {
		if got := <-done; !slices.Equal(got, want) {
			t.Errorf("a parallel search gave %v, want %v", got, want)
		}
	}
}

// kubernetesLike is a few operations shaped as Kubernetes' description
// names them: long CamelCase objects with status subresources.
var kubernetesLike = []struct{ name, summary, method, path string }{
	{"readCoreV1NamespacedPersistentVolumeClaim", "read the specified PersistentVolumeClaim", "GET", "/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}"},
	{"patchCoreV1NamespacedPersistentVolumeClaim", "partially update the specified PersistentVolumeClaim", "PATCH", "/api/v1/namespaces/{namespace}/persistentvolumeclaims/{name}"},
	{"listCoreV1NamespacedPersistentVolumeClaim", "list or watch objects of kind PersistentVolumeClaim", "GET", "/api/v1/namespaces/{namespace}/persistentvolumeclaims"},
	{"readCoreV1PersistentVolume", "read the specified PersistentVolume", "GET", "/api/v1/persistentvolumes/{name}"},
	{"readCoreV1Namespace", "read the specified Namespace", "GET", "/api/v1/namespaces/{name}"},
	{"patchCoreV1Namespace", "partially update the specified Namespace", "PATCH", "/api/v1/namespaces/{name}"},
	{"createCoreV1NamespacedPod", "create a Pod", "POST", "/api/v1/namespaces/{namespace}/pods"},
	{"listCoreV1NamespacedPod", "list or watch objects of kind Pod", "GET", "/api/v1/namespaces/{namespace}/pods"},
	{"listCoreV1PodForAllNamespaces", "list or watch objects of kind Pod", "GET", "/api/v1/pods"},
	{"patchCoreV1NamespacedPod", "partially update the specified Pod", "PATCH", "/api/v1/namespaces/{namespace}/pods/{name}"},
	{"createCoreV1NamespacedPodEviction", "create eviction of a Pod", "POST", "/api/v1/namespaces/{namespace}/pods/{name}/eviction"},
	{"patchBatchV1NamespacedCronJob", "partially update the specified CronJob", "PATCH", "/apis/batch/v1/namespaces/{namespace}/cronjobs/{name}"},
	{"patchBatchV1NamespacedCronJobStatus", "partially update status of the specified CronJob", "PATCH", "/apis/batch/v1/namespaces/{namespace}/cronjobs/{name}/status"},
	{"readBatchV1NamespacedCronJob", "read the specified CronJob", "GET", "/apis/batch/v1/namespaces/{namespace}/cronjobs/{name}"},
	{"readBatchV1NamespacedCronJobStatus", "read status of the specified CronJob", "GET", "/apis/batch/v1/namespaces/{namespace}/cronjobs/{name}/status"},
	{"patchPolicyV1NamespacedPodDisruptionBudget", "partially update the specified PodDisruptionBudget", "PATCH", "/apis/policy/v1/namespaces/{namespace}/poddisruptionbudgets/{name}"},
	{"patchPolicyV1NamespacedPodDisruptionBudgetStatus", "partially update status of the specified PodDisruptionBudget", "PATCH", "/apis/policy/v1/namespaces/{namespace}/poddisruptionbudgets/{name}/status"},
	{"patchCoreV1PersistentVolume", "partially update the specified PersistentVolume", "PATCH", "/api/v1/persistentvolumes/{name}"},
	{"createNetworkingV1NamespacedNetworkPolicy", "create a NetworkPolicy", "POST", "/apis/networking.k8s.io/v1/namespaces/{namespace}/networkpolicies"},
	{"patchNetworkingV1NamespacedNetworkPolicy", "partially update the specified NetworkPolicy", "PATCH", "/apis/networking.k8s.io/v1/namespaces/{namespace}/networkpolicies/{name}"},
	{"createRbacAuthorizationV1ClusterRoleBinding", "create a ClusterRoleBinding", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings"},
	{"patchRbacAuthorizationV1ClusterRoleBinding", "partially update the specified ClusterRoleBinding", "PATCH", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/{name}"},
	{"getRbacAuthorizationAPIGroup", "get information of a group", "GET", "/apis/rbac.authorization.k8s.io/"},
}

func kubernetesLikeIndex() *Index {
	docs := make([]Document, len(kubernetesLike))
	for i, o := range kubernetesLike {
		docs[i] = NewDocument(Tool{Namespace: "kubernetes", Name: o.name, Description: o.summary + "\n\n" + o.method + " " + o.path})
	}
	return New(docs)
}

// TestAcronymsAndOwners: initials of a long object name find it (learnt
// from the document, not listed anywhere); "the X of a Y", where no
// operation acts on an X, acts on the Y, and so does changing an X no
// operation has under a Y; adding such an X to a Y updates the Y; what a query spans ("across all namespaces") is not where the
// operation acts.
func TestAcronymsAndOwners(t *testing.T) {
	ix := kubernetesLikeIndex()
	if got := ix.acronyms["pvc"]; !slices.Equal(got, []string{"persistent", "volume", "claim"}) {
		t.Errorf("acronym pvc = %q, want persistent volume claim", got)
	}
	if _, ok := ix.acronyms["pv"]; ok {
		t.Error("a two-word object has an acronym")
	}
	for _, tc := range []struct{ query, first string }{
		{"is my PVC bound yet", "readCoreV1NamespacedPersistentVolumeClaim"},
		{"change the schedule of a cron job", "patchBatchV1NamespacedCronJob"},
		{"change the minAvailable of a pod disruption budget", "patchPolicyV1NamespacedPodDisruptionBudget"},
		{"update the status of a cron job", "patchBatchV1NamespacedCronJobStatus"},
		{"add an annotation to a pod", "patchCoreV1NamespacedPod"},
		{"write an annotation into a pod", "patchCoreV1NamespacedPod"}, // into: to
		{"add a pod", "createCoreV1NamespacedPod"},
		{"add a pod to a namespace", "createCoreV1NamespacedPod"},
		{"add a pod to an existing namespace", "patchCoreV1Namespace"},                          // the existing one is changed                               // pods are under namespaces
		{"add a group to a cluster role binding", "patchRbacAuthorizationV1ClusterRoleBinding"}, // nothing creates a group
		{"change the reclaim policy of a persistent volume", "patchCoreV1PersistentVolume"},     // no policy is under one
		{"list pods across all namespaces", "listCoreV1PodForAllNamespaces"},
		{"list the pods in every namespace", "listCoreV1PodForAllNamespaces"},
		{"list the pods in a namespace", "listCoreV1NamespacedPod"},
	} {
		hits, _ := ix.Search(tc.query, 3)
		var got []string
		for _, h := range hits {
			got = append(got, kubernetesLike[h.Doc].name)
		}
		if len(got) == 0 || got[0] != tc.first {
			t.Errorf("Search(%q) = %q, want %s first", tc.query, got, tc.first)
		}
	}
}

// TestEverydayVerbs: phrasal verbs read as the word an API uses, and an
// everyday verb agrees with the documents' verbs it stands for, the most
// usual first.
func TestEverydayVerbs(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"get rid of a label", "delete a label"},
		{"turn a disabled workflow back on", "enable a disabled workflow"},
		{"turn on alerts for a repository", "enable alerts for a repository"},
		{"take the reviewer off a pull request", "remove the reviewer from a pull request"},
		{"shut down my machine", "stop my machine"},
		{"temporarily turn off a hook", "temporarily disable a hook"},
		{"roll back a deployment to an older revision", "update a deployment to an older revision"},
		{"thumbs up a comment", "add reaction to a comment"},
		{"list the pull requests I turned on", "list the pull requests i turned on"},
		{"kick someone off a team", "remove someone from a team"},
		{"strip every label off an issue", "remove every label from an issue"},
		{"turn the alerts off", "disable the alerts"},
		{"kick off a build", "trigger a build"},
		{"stop requiring signed commits on main", "remove requiring signed commits on main"},
		{"stop a subscription", "stop a subscription"},
		{"stop the running job", "stop the running job"},
	} {
		if got := strings.Join(phrasal(words(tc.query)), " "); got != tc.want {
			t.Errorf("phrasal(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
	ops := []operation{
		{"runs_get", "Get a run", "GET", "/runs/{run_id}"},
		{"runs_delete", "Delete a run", "DELETE", "/runs/{run_id}"},
		{"runs_cancel", "Cancel a run", "POST", "/runs/{run_id}/cancel"},
		{"machines_get", "Get a machine", "GET", "/machines/{id}"},
		{"machines_stop", "Stop a machine", "POST", "/machines/{id}/stop"},
		{"machines_delete", "Delete a machine", "DELETE", "/machines/{id}"},
		{"pods_delete", "Delete a pod", "DELETE", "/pods/{name}"},
		{"pods_get", "Read a pod", "GET", "/pods/{name}"},
		{"hooks_update", "Update a hook", "PATCH", "/hooks/{id}"},
		{"hooks_get", "Get a hook", "GET", "/hooks/{id}"},
		{"reactions_create_for_comment", "Create reaction for a comment", "POST", "/comments/{id}/reactions"},
		{"comments_get", "Get a comment", "GET", "/comments/{id}"},
		{"keys_create", "Create a key", "POST", "/keys"},
		{"keys_get", "Get a key", "GET", "/keys/{id}"},
		{"issues_update", "Update an issue", "PATCH", "/issues/{number}"},
		{"issues_get", "Get an issue", "GET", "/issues/{number}"},
		{"roles_update", "Update a role", "PATCH", "/roles/{name}"},
		{"pods_list", "List pods", "GET", "/pods"},
		{"runs_watch", "Watch changes to a list of runs", "GET", "/watch/runs"},
		{"jobs_create", "Create a job", "POST", "/jobs"},
		{"users_list_followers", "List followers of a user", "GET", "/users/{username}/followers"},
		{"users_follow", "Follow a user", "PUT", "/user/following/{username}"},
		{"users_get", "Get a user", "GET", "/users/{username}"},
		{"customers_update", "Update a customer", "POST", "/customers/{customer}"},
		{"shipping_addresses_update", "Update a shipping address", "POST", "/shipping_addresses/{id}"},
		{"jobs_update", "Update a job", "PATCH", "/jobs/{id}"},
	}
	ix := operationIndex(ops)
	for _, tc := range []struct{ query, first string }{
		{"a key so the machine stops", "keys_get"}, // an aside counts for less
		{"key because machine stop", "keys_get"},
		{"close an issue", "issues_update"},
		{"stream changes to the runs", "runs_watch"},
		{"who is following this user", "users_list_followers"},       // the followers: learnt, not listed
		{"update a customer's shipping address", "customers_update"}, // the address of a customer
		{"update the shipping address", "shipping_addresses_update"},
		{"let a role read pods", "roles_update"},
		{"kill a run", "runs_cancel"},
		{"kill a pod", "pods_delete"},
		{"shut down a machine", "machines_stop"},
		{"wipe a machine", "machines_delete"},
		{"deactivate a hook", "hooks_update"},
		{"thumbs-up a comment", "reactions_create_for_comment"},
	} {
		hits, _ := ix.Search(tc.query, 3)
		if len(hits) == 0 || ops[hits[0].Doc].name != tc.first {
			t.Errorf("Search(%q) = %v, want %s (%d) first", tc.query, hits, tc.first, slices.IndexFunc(ops, func(o operation) bool { return o.name == tc.first }))
		}
	}
}

// TestCompounds: a word of the documents' names or paths that runs two of
// their words together is found by its last (autolinks are links), and a
// word that only begins with another word is not split.
func TestCompounds(t *testing.T) {
	ops := []operation{
		{"repos_create_autolink", "Create an autolink reference for a repository", "POST", "/repos/{owner}/{repo}/autolinks"},
		{"repos_create_release", "Create a release", "POST", "/repos/{owner}/{repo}/releases"},
		{"pages_get_link", "Get a link of a page", "GET", "/pages/{page}/link"},
		{"issues_create", "Create an issue", "POST", "/repos/{owner}/{repo}/issues"},
		{"auto_merge_enable", "Enable auto merge", "PUT", "/repos/{owner}/{repo}/automerge"},
	}
	ix := operationIndex(ops)
	if got := ix.stemsOf(ix.compounds[ix.ids["link"]]); got != "autolink" {
		t.Errorf("compounds of link = %q, want autolink", got)
	}
	if got := ix.stemsOf(ix.compounds[ix.ids["releas"]]); got != "" {
		t.Errorf("compounds of release = %q, want none", got)
	}
	hits, _ := ix.Search("make references link to our issue tracker", 3)
	if len(hits) == 0 || ops[hits[0].Doc].name != "repos_create_autolink" {
		t.Errorf("Search(make references link ...) = %v, want repos_create_autolink first", hits)
	}
}

func TestSettableWords(t *testing.T) {
	for _, tc := range []struct {
		schema, path, want string
	}{
		{`{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"archived":{"type":"boolean"},"default_branch":{"type":"string"}}}`,
			"/repos/{owner}/{repo}", "archived default branch"},
		{`{"type":"object","properties":{"pull_number":{"type":"integer"},"body":{"type":"object","properties":{"event":{"type":"string","enum":["APPROVE","REQUEST_CHANGES","COMMENT"]}}}}}`,
			"/pulls/{pull_number}/reviews", "body event approve request changes comment"},
		{`{"type":"object","properties":{"a":{"type":"object","properties":{"deep":{"type":"string"}}},"z":{"type":"string"}}}`, "", "a z deep"}, // breadth first
		{`{"type":"object","properties":{"cancel_at":{"anyOf":[{"type":"integer"},{"type":"string","enum":[""]}]}}}`, "", "cancel at"},
		{`not json`, "", ""},
	} {
		var params []string
		for _, s := range strings.Split(tc.path, "/") {
			if strings.HasPrefix(s, "{") {
				params = append(params, strings.Trim(s, "{}"))
			}
		}
		if got := strings.Join(settableWords(parseSchema([]byte(tc.schema)), params), " "); got != tc.want {
			t.Errorf("settableWords(%s) = %q, want %q", tc.schema, got, tc.want)
		}
	}
}

// TestSettableAgreement: a query word naming what an operation's input
// sets or chooses (a property, an enum's value) counts for that operation
// when the query names what it acts on, and the query's verb agrees with
// an operation that sets it; a general verb's word, a generic word, the
// last word of a phrase naming the operation's object, and a filter of a
// reading operation for a query that changes something do not count.
func TestSettableAgreement(t *testing.T) {
	ops := []struct{ name, summary, method, path, schema string }{
		{"repos_update", "Update a repository", "PATCH", "/repos/{owner}/{repo}", `{"properties":{"owner":{},"repo":{},"body":{"properties":{` +
			`"allow_forking":{},"archived":{"type":"boolean"},"default_branch":{},"delete_branch_on_merge":{},"has_issues":{},"name":{}}}}}`},
		{"repos_get", "Get a repository", "GET", "/repos/{owner}/{repo}", `{"properties":{"owner":{},"repo":{}}}`},
		{"pulls_list", "List pull requests", "GET", "/repos/{owner}/{repo}/pulls", `{"properties":{"owner":{},"repo":{},"state":{"enum":["open","closed","all"]},"page":{}}}`},
		{"pulls_create_review", "Create a review for a pull request", "POST", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", `{"properties":{"owner":{},"repo":{},"pull_number":{},"body":{"properties":{"event":{"enum":["APPROVE","REQUEST_CHANGES","COMMENT"]}}}}}`},
		{"repos_rename_branch", "Rename a branch", "POST", "/repos/{owner}/{repo}/branches/{branch}/rename", `{"properties":{"owner":{},"repo":{},"branch":{},"new_name":{}}}`},
		{"GetInvoiceitems", "List invoice items", "GET", "/v1/invoiceitems", `{"properties":{"pending":{"type":"boolean"},"limit":{}}}`},
		{"DeleteInvoiceitemsInvoiceitem", "Delete an invoice item", "DELETE", "/v1/invoiceitems/{invoiceitem}", `{"properties":{"invoiceitem":{}}}`},
	}
	docs := make([]Document, len(ops))
	for i, op := range ops {
		docs[i] = NewDocument(Tool{Name: op.name, Description: op.summary + "\n\n" + op.method + " " + op.path, InputSchema: []byte(op.schema)})
	}
	ix := New(docs)
	for _, tc := range []struct {
		query, doc   string
		agrees, verb bool
	}{
		{"archive a repository", "repos_update", true, true},
		{"archive a repository", "repos_get", false, false},
		{"list the open pull requests of a repository", "pulls_list", true, false},
		{"approve a pull request", "pulls_create_review", true, true},
		{"review a pull request", "pulls_create_review", false, false}, // "request" names the pull request
		{"delete a repository", "repos_update", false, false},          // not delete_branch_on_merge
		{"give a branch a new name", "repos_rename_branch", true, false},
		{"make a new branch", "repos_rename_branch", false, false}, // new is no setting
		{"list the pending invoice items", "GetInvoiceitems", true, false},
		{"remove a pending invoice item", "GetInvoiceitems", false, false}, // a list's filter
	} {
		d := slices.IndexFunc(ops, func(o struct{ name, summary, method, path, schema string }) bool { return o.name == tc.doc })
		sc := ix.pool.Get().(*scratch)
		q := ix.parseQuery(tc.query, sc.match)
		q.indexWords(sc.wordOf)
		agrees, verb := ix.settableAgreement(&ix.docs[d], q) > 0, ix.verbSettable(&ix.docs[d], q)
		q.reset()
		ix.pool.Put(sc)
		if agrees != tc.agrees || verb != tc.verb {
			t.Errorf("%q on %s: settable agreement %v, verb settable %v; want %v, %v", tc.query, tc.doc, agrees, verb, tc.agrees, tc.verb)
		}
	}
}

// TestSelf: a query that speaks of its caller ("my", "I") favours the
// operations that act for the caller, known by their name or summary
// ("the authenticated user", SelfSubjectReview) or by a path that starts
// with the singular of another path's start (/user beside /users).
func TestSelf(t *testing.T) {
	ops := []operation{
		{"repos_list_for_user", "List repositories for a user", "GET", "/users/{username}/repos"},
		{"repos_list_mine", "List repositories", "GET", "/user/repos"},
		{"repos_list_public", "List public repositories", "GET", "/repositories"},
		{"orgs_list_for_user", "List organizations for a user", "GET", "/users/{username}/orgs"},
		{"orgs_list_for_authenticated_user", "List organizations for the authenticated user", "GET", "/orgs"},
		{"GetAccountsAccount", "Retrieves the details of an account", "GET", "/v1/accounts/{account}"},
		{"GetAccount", "Retrieves the details of an account", "GET", "/v1/account"},
		{"createAuthenticationV1SelfSubjectReview", "create a SelfSubjectReview", "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews"},
		{"createAuthenticationV1TokenReview", "create a TokenReview", "POST", "/apis/authentication.k8s.io/v1/tokenreviews"},
	}
	ix := operationIndex(ops)
	for i, want := range []bool{false, true, false, false, true, false, true, true, false} {
		if ix.docs[i].self != want {
			t.Errorf("%s: self = %v, want %v", ops[i].name, ix.docs[i].self, want)
		}
	}
	for _, tc := range []struct{ query, first string }{
		{"list my repositories", "repos_list_mine"},
		{"list the repositories of a user", "repos_list_for_user"},
		{"list the organizations I belong to", "orgs_list_for_authenticated_user"},
		{"show my account", "GetAccount"},
		{"show my own account's settings", "GetAccount"}, // a possessive read as "the settings of my own account"
	} {
		hits, _ := ix.Search(tc.query, 3)
		if len(hits) == 0 || ops[hits[0].Doc].name != tc.first {
			t.Errorf("Search(%q) = %v, want %s first", tc.query, hits, tc.first)
		}
	}
}

func TestHyphenated(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   string
		joined bool
	}{
		{"one-off", "one", true},
		{"in-person", "person", true},
		{"sub-issues", "sub issues", true},
		{"re-run", "rerun", true},
		{"thumbs-up", "thumbs up", false},
		{"repo", "repo", false},
		{"pull_request", "pull request", false},
	} {
		ws, joined := hyphenated(tc.in)
		if got := strings.Join(ws, " "); got != tc.want || joined != tc.joined {
			t.Errorf("hyphenated(%q) = %q, %v; want %q, %v", tc.in, got, joined, tc.want, tc.joined)
		}
	}
}

// TestPeopleOfAVerb: indefinite pronouns name no object, and a verb whose
// -ee or -er noun is an object of the documents makes or removes one
// ("assign someone to an issue" adds an assignee); hyphenated words are
// one ("sub-issues" are no subscriptions, a "one-off" job is not off
// anything).
func TestPeopleOfAVerb(t *testing.T) {
	ops := []operation{
		{"issues_add_assignees", "Add assignees to an issue", "POST", "/repos/{owner}/{repo}/issues/{issue_number}/assignees"},
		{"issues_remove_assignees", "Remove assignees from an issue", "DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/assignees"},
		{"issues_check_user_can_be_assigned", "Check if a user can be assigned", "GET", "/repos/{owner}/{repo}/assignees/{assignee}"},
		{"orgs_assign_team_to_org_role", "Assign an organization role to a team", "PUT", "/orgs/{org}/organization-roles/teams/{team_slug}/{role_id}"},
		{"issues_update", "Update an issue", "PATCH", "/repos/{owner}/{repo}/issues/{issue_number}"},
		{"issues_list_sub_issues", "List sub-issues", "GET", "/repos/{owner}/{repo}/issues/{issue_number}/sub_issues"},
		{"subscriptions_list_issues", "List subscription issues", "GET", "/subscriptions/{id}/issues"},
		{"jobs_create", "Create a job", "POST", "/jobs"},
		{"jobs_delete", "Delete a job", "DELETE", "/jobs/{id}"},
	}
	ix := operationIndex(ops)
	for _, tc := range []struct{ query, first string }{
		{"assign someone to an issue", "issues_add_assignees"},
		{"unassign someone from an issue", "issues_remove_assignees"},
		{"show the sub-issues of an issue", "issues_list_sub_issues"},
		{"run a one-off job", "jobs_create"},
	} {
		hits, _ := ix.Search(tc.query, 3)
		if len(hits) == 0 || ops[hits[0].Doc].name != tc.first {
			t.Errorf("Search(%q) = %v, want %s first", tc.query, hits, tc.first)
		}
	}
}

// TestUnknownObjectIsNoContext: when the query's object is no word of the
// documents ("traffic"), a word it names after a preposition cannot be
// said to be only where the action happens: the existing network policy
// is what is changed.
func TestUnknownObjectIsNoContext(t *testing.T) {
	ops := []operation{
		{"patchNetworkPolicy", "partially update the specified NetworkPolicy", "PATCH", "/namespaces/{namespace}/networkpolicies/{name}"},
		{"patchNetworkPolicyStatus", "partially update status of the specified NetworkPolicy", "PATCH", "/namespaces/{namespace}/networkpolicies/{name}/status"},
		{"readNetworkPolicy", "read the specified NetworkPolicy", "GET", "/namespaces/{namespace}/networkpolicies/{name}"},
		{"patchNamespace", "partially update the specified Namespace", "PATCH", "/namespaces/{name}"},
	}
	ix := operationIndex(ops)
	for _, tc := range []struct{ query, first string }{
		{"allow traffic from the monitoring namespace in an existing network policy", "patchNetworkPolicy"},
	} {
		hits, _ := ix.Search(tc.query, 3)
		if len(hits) == 0 || ops[hits[0].Doc].name != tc.first {
			t.Errorf("Search(%q) = %v, want %s first", tc.query, hits, tc.first)
		}
	}
}

// TestScope: an operation's scope is the nearest item its path is under,
// and a query naming one such thing ("of a repository") favours the
// operations within it; "on commits" or "in every repository" name no
// one thing.
func TestScope(t *testing.T) {
	ops := []operation{
		{"actions_list_workflow_runs", "List workflow runs for a workflow", "GET", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs"},
		{"actions_list_workflow_runs_for_repo", "List workflow runs for a repository", "GET", "/repos/{owner}/{repo}/actions/runs"},
		{"repos_list_comments_for_commit", "List commit comments for a commit", "GET", "/repos/{owner}/{repo}/commits/{commit_sha}/comments"},
		{"repos_list_commit_comments_for_repo", "List commit comments for a repository", "GET", "/repos/{owner}/{repo}/comments"},
		{"repos_get", "Get a repository", "GET", "/repos/{owner}/{repo}"},
		{"pulls_merge", "Merge a pull request", "PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/merge"},
		{"GetPayouts", "Returns a list of payouts", "GET", "/v1/payouts"},
		{"GetPayoutsPayout", "Retrieves the details of a payout", "GET", "/v1/payouts/{payout}"},
		{"PostPayoutsPayoutCancel", "Cancels a payout", "POST", "/v1/payouts/{payout}/cancel"},
		{"DeleteCouponsCoupon", "Deletes a coupon", "DELETE", "/v1/coupons/{coupon}"},
		{"DeleteSubscriptionsSubscriptionDiscount", "Removes the currently applied discount on a subscription", "DELETE", "/v1/subscriptions/{subscription}/discount"},
	}
	ix := operationIndex(ops)
	for i, want := range []string{"workflow", "repo", "commit", "repo", "", "repo", "", "", "", "", "subscript"} {
		got := ""
		if ix.docs[i].scope >= 0 {
			got = ix.stemsOf([]int32{ix.docs[i].scope})
		}
		if got != want {
			t.Errorf("%s: scope %q, want %q", ops[i].name, got, want)
		}
	}
	for i, want := range []string{"", "", "", "", "repo", "pull", "", "payout", "payout", "coupon", ""} {
		got := ""
		if ix.docs[i].item >= 0 {
			got = ix.stemsOf([]int32{ix.docs[i].item})
		}
		if got != want {
			t.Errorf("%s: item %q, want %q", ops[i].name, got, want)
		}
	}
	for _, tc := range []struct{ query, owners string }{
		{"remove the coupon from a subscription", "subscript"}, // removed from it
		{"set a condition on a pod from my controller", "pod"}, // where it comes from
		{"list the comments on commits in a repository", "repositori"},
		{"list the issues in every repository", ""},
		{"the status of a payout", "payout"},
	} {
		q := ix.parseQuery(tc.query, make([]float64, len(ix.ids)))
		var got []string
		for _, w := range q.owners {
			got = append(got, w.stem)
		}
		if strings.Join(got, " ") != tc.owners {
			t.Errorf("owners of %q = %q, want %q", tc.query, got, tc.owners)
		}
	}
	for _, tc := range []struct{ query, first string }{
		{"list the workflow runs of a repository", "actions_list_workflow_runs_for_repo"},
		{"list the runs of a workflow", "actions_list_workflow_runs"},
		{"list the comments on commits in a repository", "repos_list_commit_comments_for_repo"},
		{"list the comments on a commit", "repos_list_comments_for_commit"},
		{"check the status of a payout", "GetPayoutsPayout"}, // the payout itself
	} {
		hits, _ := ix.Search(tc.query, 3)
		if len(hits) == 0 || ops[hits[0].Doc].name != tc.first {
			t.Errorf("Search(%q) = %v, want %s first", tc.query, hits, tc.first)
		}
	}
}

// TestWho: "who starred a repository" asks for people, listed: the
// operations whose description says they act on people ("Lists the people
// that have starred the repository"), within what was starred, not the
// starring nor the starred repositories.
func TestWho(t *testing.T) {
	ops := []struct{ name, summary, desc, method, path string }{
		{"activity_list_stargazers_for_repo", "List stargazers", "Lists the people that have starred the repository.", "GET", "/repos/{owner}/{repo}/stargazers"},
		{"activity_list_repos_starred_by_user", "List repositories starred by a user", "Lists repositories a user has starred.", "GET", "/users/{username}/starred"},
		{"activity_star_repo", "Star a repository", "Stars a repository for the authenticated user.", "PUT", "/user/starred/{owner}/{repo}"},
		{"repos_get", "Get a repository", "The parent and source objects are present when the repository is a fork.", "GET", "/repos/{owner}/{repo}"},
	}
	docs := make([]Document, len(ops))
	for i, op := range ops {
		docs[i] = NewDocument(Tool{Name: op.name, Description: op.summary + "\n\n" + op.desc + "\n\n" + op.method + " " + op.path})
	}
	ix := New(docs)
	for i, want := range []bool{true, false, false, false} {
		if ix.docs[i].people != want {
			t.Errorf("%s: people = %v, want %v", ops[i].name, ix.docs[i].people, want)
		}
	}
	for _, tc := range []struct{ query, first string }{
		{"who starred a repository", "activity_list_stargazers_for_repo"},
		{"star a repository", "activity_star_repo"},
	} {
		hits, _ := ix.Search(tc.query, 3)
		if len(hits) == 0 || ops[hits[0].Doc].name != tc.first {
			t.Errorf("Search(%q) = %v, want %s first", tc.query, hits, tc.first)
		}
	}
}

// TestChangeOn: changing a field on an object changes the object ("edit
// the metadata on a refund"), as changing the field of one does.
func TestChangeOn(t *testing.T) {
	ops := []operation{
		{"PostTopupsTopup", "Updates the metadata of a top-up", "POST", "/v1/topups/{topup}"},
		{"PostCouponsCoupon", "Updates the metadata of a coupon", "POST", "/v1/coupons/{coupon}"},
		{"PostRefundsRefund", "Updates the refund that you specify", "POST", "/v1/refunds/{refund}"},
		{"GetRefundsRefund", "Retrieves the details of an existing refund", "GET", "/v1/refunds/{refund}"},
	}
	ix := operationIndex(ops)
	for _, tc := range []struct{ query, first string }{
		{"edit the metadata on a refund", "PostRefundsRefund"},
		{"edit the metadata of a refund", "PostRefundsRefund"},
	} {
		hits, _ := ix.Search(tc.query, 3)
		if len(hits) == 0 || ops[hits[0].Doc].name != tc.first {
			t.Errorf("Search(%q) = %v, want %s first", tc.query, hits, tc.first)
		}
	}
}

// TestMakeComplement: "make X the Y" makes an existing X something (an
// update), "make a new X" creates one.
func TestMakeComplement(t *testing.T) {
	ops := []operation{
		{"createStorageClass", "create a StorageClass", "POST", "/storageclasses"},
		{"patchStorageClass", "partially update the specified StorageClass", "PATCH", "/storageclasses/{name}"},
		{"readStorageClass", "read the specified StorageClass", "GET", "/storageclasses/{name}"},
		{"patchMembership", "Set organization membership for a user", "PUT", "/orgs/{org}/memberships/{username}"},
		{"readBankAccount", "Retrieve a bank account", "GET", "/accounts/{account}/bank_accounts/{id}"},
	}
	ix := operationIndex(ops)
	for _, tc := range []struct {
		after string
		want  bool
	}{
		{"a storage class the cluster default", true},
		{"someone an owner of my organization", true},
		{"one of a connected account's bank accounts the default for its currency", true},
		{"a new branch", false},
		{"a storage class from a template", false},
		{"sure the build passes", false},
	} {
		if got := ix.complemented(words(tc.after)); got != tc.want {
			t.Errorf("complemented(%q) = %v, want %v", tc.after, got, tc.want)
		}
	}
	for _, tc := range []struct{ query, first string }{
		{"make a storage class the cluster default", "patchStorageClass"},
		{"make a new storage class", "createStorageClass"},
	} {
		hits, _ := ix.Search(tc.query, 3)
		if len(hits) == 0 || ops[hits[0].Doc].name != tc.first {
			t.Errorf("Search(%q) = %v, want %s first", tc.query, hits, tc.first)
		}
	}
}

// TestUnknownObject: when the query's object is no object of the
// documents, an operation acting on something else the query names is
// what it most likely means, rather than one acting on a part of it.
func TestUnknownObject(t *testing.T) {
	ops := []operation{
		{"patchStatefulSet", "partially update the specified StatefulSet", "PATCH", "/namespaces/{namespace}/statefulsets/{name}"},
		{"patchStatefulSetStatus", "partially update status of the specified StatefulSet", "PATCH", "/namespaces/{namespace}/statefulsets/{name}/status"},
		{"readStatefulSet", "read the specified StatefulSet", "GET", "/namespaces/{namespace}/statefulsets/{name}"},
	}
	ix := operationIndex(ops)
	for _, tc := range []struct {
		query         string
		unknown       bool
		better, worse int // documents whose structure agreement ranks so
	}{
		{"roll out a new container image to a stateful set", true, 0, 1},
		{"update the status of a stateful set", false, 1, 0},
	} {
		sc := ix.pool.Get().(*scratch)
		q := ix.parseQuery(tc.query, sc.match)
		q.indexWords(sc.wordOf)
		better, worse := ix.structure(int32(tc.better), q), ix.structure(int32(tc.worse), q)
		if q.unknownObject != tc.unknown || better <= worse {
			t.Errorf("%q: unknown object %v, %s %.2f, %s %.2f; want %v and the first higher", tc.query, q.unknownObject,
				ops[tc.better].name, better, ops[tc.worse].name, worse, tc.unknown)
		}
		q.reset()
		ix.pool.Put(sc)
	}
}

// TestWhether: a question whether something holds favours an operation
// whose summary checks whether it does.
func TestWhether(t *testing.T) {
	for _, tc := range []struct {
		summary string
		want    bool
	}{
		{"Check if a repository is starred by the authenticated user", true},
		{"Check organization membership for a user", true},
		{"Get whether a user is blocked", true},
		{"Get a repository", false},
		{"List checks for a ref", false},
	} {
		if got := asksWhether(words(tc.summary)); got != tc.want {
			t.Errorf("asksWhether(%q) = %v, want %v", tc.summary, got, tc.want)
		}
	}
	ops := []operation{
		{"orgs_list_members", "List organization members", "GET", "/orgs/{org}/members"},
		{"orgs_check_membership_for_user", "Check organization membership for a user", "GET", "/orgs/{org}/members/{username}"},
		{"orgs_remove_member", "Remove an organization member", "DELETE", "/orgs/{org}/members/{username}"},
		{"activity_get_stargazer_count", "Get the stargazer count of a repository", "GET", "/repos/{owner}/{repo}/stargazers/count"},
		{"activity_check_repo_is_starred", "Check if a repository is starred by the authenticated user", "GET", "/user/starred/{owner}/{repo}"},
	}
	ix := operationIndex(ops)
	structure := func(query string, doc int) float64 {
		sc := ix.pool.Get().(*scratch)
		defer ix.pool.Put(sc)
		q := ix.parseQuery(query, sc.match)
		q.indexWords(sc.wordOf)
		defer q.reset()
		return ix.structure(int32(doc), q)
	}
	for _, tc := range []struct {
		question, statement string
		doc                 int
		gain                float64
	}{
		{"is this user a member of our org", "this user a member of our org", 1, defaultWeights().whetherAgrees},
		{"is this user a member of our org", "this user a member of our org", 0, 0},
		{"have I starred this repo", "I starred this repo", 4, defaultWeights().whetherAgrees},
	} {
		if gain := structure(tc.question, tc.doc) - structure(tc.statement, tc.doc); gain != tc.gain {
			t.Errorf("%q on %s gains %.2f over %q, want %.2f", tc.question, ops[tc.doc].name, gain, tc.statement, tc.gain)
		}
	}
}

// TestActionIsNoReading: a query whose verb is an action the documents do
// not name generally ("force", "enable") is marked down against an
// operation that only reads.
func TestActionIsNoReading(t *testing.T) {
	ops := []operation{
		{"repos_get_pages", "Get a GitHub Pages site", "GET", "/repos/{owner}/{repo}/pages"},
		{"repos_create_pages_site", "Create a GitHub Pages site", "POST", "/repos/{owner}/{repo}/pages"},
		{"repos_delete_pages_site", "Delete a GitHub Pages site", "DELETE", "/repos/{owner}/{repo}/pages"},
		{"repos_list_pages_builds", "List GitHub Pages builds", "GET", "/repos/{owner}/{repo}/pages/builds"},
		{"repos_enable_automated_security_fixes", "Enable automated security fixes", "PUT", "/repos/{owner}/{repo}/automated-security-fixes"},
	}
	ix := operationIndex(ops)
	sc := ix.pool.Get().(*scratch)
	q := ix.parseQuery("enable GitHub Pages for a repository", sc.match)
	q.indexWords(sc.wordOf)
	get, create := ix.structure(0, q), ix.structure(1, q)
	q.reset()
	ix.pool.Put(sc)
	if get >= create {
		t.Errorf("enable GitHub Pages: structure of getting %.2f, of creating %.2f; want getting lower", get, create)
	}
}

// TestQuestionVerb: in a question without a verb of its own ("which pods
// exist"), a word after the object that is no word of any document's
// object is the question's verb, not the object; and a question about a
// field nothing acts on ("which schedule does a cron job run on") is
// about what it asks of.
func TestQuestionVerb(t *testing.T) {
	ix := kubernetesLikeIndex()
	for _, tc := range []struct {
		query, object string
		family        uint8
	}{
		{"which pods exist across all namespaces", "pod", familyBit(familyList)},
		{"which pod disruption budgets exist", "budget", familyBit(familyList)},
		{"what pods does a namespace have", "pod", familyBit(familyList)},
		// A field of what the question is about: the question reads that.
		{"which schedule does a cron job run on", "job", familyBit(familyGet)},
		{"how many disruptions does a pod disruption budget allow", "budget", familyBit(familyGet)},
	} {
		q := ix.parseQuery(tc.query, make([]float64, len(ix.ids)))
		object := ""
		if q.object != nil {
			object = q.object.stem
		}
		if object != tc.object || q.family != tc.family {
			t.Errorf("%q: object %q family %d, want %q %d", tc.query, object, q.family, tc.object, tc.family)
		}
	}
}

// TestImperative: a query's first word that no document's object has,
// before one that some object has, is a verb, taken to update.
func TestImperative(t *testing.T) {
	ix := operationIndex([]operation{
		{"repos_get_pages", "Get a GitHub Pages site", "GET", "/repos/{owner}/{repo}/pages"},
		{"repos_update_pages", "Update information about a GitHub Pages site", "PUT", "/repos/{owner}/{repo}/pages"},
	})
	for _, tc := range []struct {
		query  string
		family uint8
		object string
	}{
		{"point GitHub Pages at a custom domain", familyBit(familyUpdate), "page"},
		{"GitHub Pages of a repository", familyBit(familyList), "page"}, // no verb: a look at them
	} {
		q := ix.parseQuery(tc.query, make([]float64, len(ix.ids)))
		object := ""
		if q.object != nil {
			object = q.object.stem
		}
		if q.family != tc.family || object != tc.object {
			t.Errorf("%q: family %d object %q, want %d %q", tc.query, q.family, object, tc.family, tc.object)
		}
	}
}

// TestNameCoverageSkipsGenericNouns: a name's word that says nothing of
// what the operation acts on ("Collection" in deleteCollectionNamespacedEvent)
// does not count against the name's coverage, so a query that names many
// of a thing finds the operation on all of them.
func TestNameCoverageSkipsGenericNouns(t *testing.T) {
	ops := []operation{
		{"deleteNamespacedEvent", "delete an Event", "DELETE", "/api/v1/namespaces/{namespace}/events/{name}"},
		{"deleteCollectionNamespacedEvent", "delete collection of Event", "DELETE", "/api/v1/namespaces/{namespace}/events"},
		{"listNamespacedEvent", "list or watch objects of kind Event", "GET", "/api/v1/namespaces/{namespace}/events"},
	}
	ix := operationIndex(ops)
	if got := ix.stemsOf(ix.docs[1].cover); strings.Contains(got, "collect") {
		t.Errorf("deleteCollectionNamespacedEvent covers %q, want no collect", got)
	}
	for _, tc := range []struct{ query, first string }{
		{"clear out all the events in the dev namespace", "deleteCollectionNamespacedEvent"},
		{"delete an event in a namespace", "deleteNamespacedEvent"},
	} {
		hits, _ := ix.Search(tc.query, 3)
		if len(hits) == 0 || ops[hits[0].Doc].name != tc.first {
			t.Errorf("Search(%q) first %v, want %s", tc.query, hits, tc.first)
		}
	}
}

// TestHowMuchReads: "how much" and "how many" ask a quantity; "much" and
// "many" are not the query's verb, and the question reads.
func TestHowMuchReads(t *testing.T) {
	ix := kubernetesLikeIndex()
	for _, tc := range []struct {
		query  string
		family uint8
	}{
		{"how much of a namespace's quota is used up", familyBit(familyGet)},
		{"how many of the pods are ready", familyBit(familyList)},
	} {
		q := ix.parseQuery(tc.query, make([]float64, len(ix.ids)))
		if q.family != tc.family {
			t.Errorf("%q: family %d, want %d", tc.query, q.family, tc.family)
		}
	}
}

// TestMethodInName: an operation whose verb is of no family but whose name
// says, after it, that it sends GET, HEAD or DELETE requests reads or
// deletes; one sending other methods may do anything.
func TestMethodInName(t *testing.T) {
	ops := []operation{
		{"connectCoreV1GetNodeProxy", "connect GET requests to proxy of Node", "GET", "/api/v1/nodes/{name}/proxy"},
		{"connectCoreV1DeleteNodeProxy", "connect DELETE requests to proxy of Node", "DELETE", "/api/v1/nodes/{name}/proxy"},
		{"connectCoreV1PatchNodeProxy", "connect PATCH requests to proxy of Node", "PATCH", "/api/v1/nodes/{name}/proxy"},
		{"readCoreV1Node", "read the specified Node", "GET", "/api/v1/nodes/{name}"},
	}
	ix := operationIndex(ops)
	for i, want := range []uint8{familyBit(familyGet), familyBit(familyDelete), 0} {
		if got := ix.docs[i].families; got != want {
			t.Errorf("%s: families %b, want %b", ops[i].name, got, want)
		}
	}
	hits, _ := ix.Search("fetch the metrics of a node through the API server proxy", 3)
	if len(hits) == 0 || ops[hits[0].Doc].name != "connectCoreV1GetNodeProxy" {
		t.Errorf("fetch through the proxy: first %v, want connectCoreV1GetNodeProxy", hits)
	}
}

// TestGenericHead: a generic noun after the words of a noun phrase heads
// it ("a stale Endpoints object"): the words before it name the object,
// and it tells their number.
func TestGenericHead(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"a", "stale", "endpoints", "object", "left", "behind"}, "stale endpoints"},
		{[]string{"the", "details", "of", "a", "pod"}, "pod"},
		{[]string{"the", "specified", "pod"}, "pod"},
	} {
		if got, _ := nounPhrase(tc.words); strings.Join(got, " ") != tc.want {
			t.Errorf("nounPhrase(%q) = %q, want %q", tc.words, got, tc.want)
		}
	}
	ix := operationIndex([]operation{
		{"deleteNamespacedEndpoints", "delete Endpoints", "DELETE", "/api/v1/namespaces/{namespace}/endpoints/{name}"},
		{"deleteCollectionNamespacedEndpoints", "delete collection of Endpoints", "DELETE", "/api/v1/namespaces/{namespace}/endpoints"},
		{"deleteNamespace", "delete a Namespace", "DELETE", "/api/v1/namespaces/{name}"},
	})
	for _, tc := range []struct {
		query, object string
		plural        bool
	}{
		{"remove a stale Endpoints object left behind in the default namespace", "endpoint", false},
		{"remove the stale Endpoints objects in a namespace", "endpoint", true},
	} {
		q := ix.parseQuery(tc.query, make([]float64, len(ix.ids)))
		if q.object == nil || q.object.stem != tc.object || q.plural != tc.plural {
			t.Errorf("%q: object %v plural %v, want %q %v", tc.query, q.object, q.plural, tc.object, tc.plural)
		}
	}
}

// TestMeans: "by" and a gerund name the means a query's action is done by:
// the means is the action, its purpose an aside.
func TestMeans(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"force a volume to detach by removing its attachment object", "removing its attachment object so force a volume to detach"},
		{"give up leadership by deleting my lease", "deleting my lease so give up leadership"},
		{"list pods by name", "list pods by name"},
		{"sort repositories by stars", "sort repositories by stars"},
	} {
		if got := strings.Join(means(words(tc.query)), " "); got != tc.want {
			t.Errorf("means(%q) = %q, want %q", tc.query, got, tc.want)
		}
	}
	ix := operationIndex([]operation{
		{"patchVolumeAttachment", "partially update the specified VolumeAttachment", "PATCH", "/apis/storage.k8s.io/v1/volumeattachments/{name}"},
		{"deleteVolumeAttachment", "delete a VolumeAttachment", "DELETE", "/apis/storage.k8s.io/v1/volumeattachments/{name}"},
	})
	hits, _ := ix.Search("force a volume to detach by removing its attachment object", 2)
	if len(hits) == 0 || hits[0].Doc != 1 {
		t.Errorf("detach by removing: first %v, want deleteVolumeAttachment", hits)
	}
}

// TestNumberAgrees: one object named ("my reaction") weighs
// for the operation on one item over the one on their collection, and
// many for the collection, enough to outweigh a closer name.
func TestNumberAgrees(t *testing.T) {
	ops := []operation{
		{"reactions_list_for_release", "List reactions for a release", "GET", "/repos/{owner}/{repo}/releases/{release_id}/reactions"},
		{"reactions_create_for_release", "Create reaction for a release", "POST", "/repos/{owner}/{repo}/releases/{release_id}/reactions"},
		{"reactions_delete_for_release", "Delete a release reaction", "DELETE", "/repos/{owner}/{repo}/releases/{release_id}/reactions/{reaction_id}"},
	}
	ix := operationIndex(ops)
	for _, tc := range []struct{ query, first string }{
		{"take back my reaction on a release", "reactions_delete_for_release"},
		{"show the reactions on a release", "reactions_list_for_release"},
	} {
		wantFirst(t, ix, ops, tc.query, tc.first)
	}
}

// TestNewerVersion: of two operations that differ only in their API
// version, the newer ranks first unless the query names the older one's.
func TestNewerVersion(t *testing.T) {
	ops := []operation{
		{"createAutoscalingV1NamespacedHorizontalPodAutoscaler", "create a HorizontalPodAutoscaler", "POST", "/apis/autoscaling/v1/namespaces/{namespace}/horizontalpodautoscalers"},
		{"createAutoscalingV2NamespacedHorizontalPodAutoscaler", "create a HorizontalPodAutoscaler", "POST", "/apis/autoscaling/v2/namespaces/{namespace}/horizontalpodautoscalers"},
		{"createAutoscalingV2beta2NamespacedHorizontalPodAutoscaler", "create a HorizontalPodAutoscaler", "POST", "/apis/autoscaling/v2beta2/namespaces/{namespace}/horizontalpodautoscalers"},
		{"readAutoscalingV1NamespacedHorizontalPodAutoscaler", "read the specified HorizontalPodAutoscaler", "GET", "/apis/autoscaling/v1/namespaces/{namespace}/horizontalpodautoscalers/{name}"},
	}
	ix := operationIndex(ops)
	for _, tc := range []struct{ query, first string }{
		{"autoscale the web deployment with a horizontal pod autoscaler", "createAutoscalingV2NamespacedHorizontalPodAutoscaler"},
		{"create an autoscaling v1 horizontal pod autoscaler", "createAutoscalingV1NamespacedHorizontalPodAutoscaler"},
		{"show the horizontal pod autoscaler web", "readAutoscalingV1NamespacedHorizontalPodAutoscaler"}, // the only read: nothing newer beside it
	} {
		wantFirst(t, ix, ops, tc.query, tc.first)
	}
}

func TestParseVersion(t *testing.T) {
	order := []string{"v1alpha1", "v1beta1", "v1beta2", "v1", "v2alpha1", "v2beta1", "v2beta2", "v2", "v10"}
	for i := range order {
		vi, ok := parseVersion(order[i])
		if !ok {
			t.Fatalf("parseVersion(%q) refused", order[i])
		}
		for j := range order {
			vj, _ := parseVersion(order[j])
			if got, want := vi.newer(vj), i > j; got != want {
				t.Errorf("%s newer than %s: %v, want %v", order[i], order[j], got, want)
			}
		}
	}
	for _, s := range []string{"v1.0", "2010-04-01", "api", "version1", "v", "v1gamma"} {
		if _, ok := parseVersion(s); ok {
			t.Errorf("parseVersion(%q) took it", s)
		}
	}
}

// wantFirst checks that query ranks the operation named first first among
// ops, naming the top three otherwise.
func wantFirst(t *testing.T, ix *Index, ops []operation, query, first string) {
	t.Helper()
	hits, _ := ix.Search(query, 3)
	if len(hits) == 0 || ops[hits[0].Doc].name != first {
		var got []string
		for _, h := range hits {
			got = append(got, ops[h.Doc].name)
		}
		t.Errorf("Search(%q) = %v, want %s first", query, got, first)
	}
}
