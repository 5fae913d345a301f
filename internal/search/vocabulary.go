package search

import (
	"cmp"
	"regexp"
	"strconv"
)

// The general vocabulary: how people name API actions and a few common
// abbreviations. It is deliberately small and not tuned to any one API:
// what an API's own document reveals (the verbs its summaries start with,
// the abbreviations its paths use) is derived from the document when the
// index is built (see New). Every word here is written as a person types
// it; the index stems it.

// verbFamilies group the verbs people use for the same action on an API
// object: "publish a release" means create, "remove a label" means delete.
// A query verb and an operation's verb of the same family agree.
var verbFamilies = map[string][]string{
	familyCreate: {"create", "add", "new", "make", "open", "publish", "post", "insert", "put", "write", "register", "upload", "save", "trigger", "launch"},
	familyGet:    {"get", "read", "retrieve", "fetch", "show", "view", "see", "display", "describe", "inspect", "look", "return", "check"},
	familyList:   {"list", "enumerate", "browse"},
	familySearch: {"search", "find", "query", "lookup", "filter"},
	familyUpdate: {"update", "edit", "change", "modify", "set", "patch", "replace", "configure", "adjust", "alter", "rename", "move", "toggle", "raise", "lower", "increase", "decrease", "bump", "annotate"},
	familyDelete: {"delete", "remove", "unset", "destroy", "drop", "erase", "clear", "purge", "discard", "uninstall",
		"wipe", "nuke", "scrap", "trash", "deregister", "unregister", "unpublish"},
}

// everydayVerbs are everyday words for actions that APIs name otherwise,
// and the verbs an API's summaries use for them, most usual first: a
// person kills a run the API cancels, or a pod it deletes. A query verb
// here agrees with an operation whose verb is any of those its document
// uses, and matches their words (with weights.alias). Only actions with no
// general family of their own are here; everyday words of a family are
// its members (wipe: delete).
var everydayVerbs = map[string][]string{
	"kill":       {"cancel", "stop", "terminate", "delete"},
	"abort":      {"cancel", "stop"},
	"halt":       {"stop", "cancel", "suspend"},
	"terminate":  {"cancel", "stop", "delete"},
	"withdraw":   {"cancel", "revoke", "delete"},
	"undo":       {"reverse", "revert", "cancel"},
	"restart":    {"rerun", "retry", "restart"},
	"retry":      {"rerun", "retry"},
	"activate":   {"enable", "update"}, // often a flag the object's update sets
	"deactivate": {"disable", "update"},
	"pause":      {"suspend", "disable", "update"},
	"resume":     {"unsuspend", "enable", "update"},
	"run":        {"run", "trigger", "create"}, // a job, a workflow: make a run of it
	"start":      {"start", "trigger", "create"},
	"record":     {"create"}, // nouns too: not family members, which names are read for
	"store":      {"create", "upload"},
	"stream":     {"watch"}, // a feed of an object's changes
	"monitor":    {"watch"},
	"close":      {"close", "update"}, // an issue, a pull request, an alert: its state
	"reopen":     {"reopen", "update"},
	"allow":      {"enable", "update"}, // a setting or a rule on an object
	"let":        {"enable", "update"},
	"prevent":    {"disable", "update"},
	"forbid":     {"disable", "update"},
}

// phrasalVerbs are everyday verbs of two words and the one word an API
// would use: "get rid of" something deletes it whole, "shut down a
// codespace" stops it, "turn a workflow back on" enables it, "take a
// reviewer off a pull request" removes one from it.
// The particle may follow the verb or its object; "off" before another
// noun phrase says where from ("off a subscription": from). Emoji
// reactions, "thumbs up", are made, like a reaction.
var phrasalVerbs = map[[2]string][]string{
	{"turn", "on"}: {"enable"}, {"switch", "on"}: {"enable"}, {"turn", "off"}: {"disable"},
	{"switch", "off"}: {"disable"}, {"shut", "down"}: {"stop"}, {"shut", "off"}: {"stop"},
	{"take", "off"}: {"remove"}, {"take", "away"}: {"remove"}, {"take", "down"}: {"remove"},
	{"get", "rid"}: {"delete"}, {"spin", "up"}: {"create"}, {"spin", "down"}: {"stop"},
	{"thumbs", "up"}: {"add", "reaction", "to"}, {"thumbs", "down"}: {"add", "reaction", "to"},
	{"clean", "up"}: {"delete"}, {"kick", "off"}: {"trigger"}, {"roll", "out"}: {"update"},
	{"roll", "back"}: {"update"},
}

// The verb families.
const (
	familyCreate = "create"
	familyGet    = "get"
	familyList   = "list"
	familySearch = "search"
	familyUpdate = "update"
	familyDelete = "delete"
)

// abbreviations are common short forms and what they stand for.
var abbreviations = map[string]string{
	"pr": "pull request", "prs": "pull requests", "repo": "repository", "repos": "repositories",
	"org": "organization", "orgs": "organizations", "config": "configuration", "configs": "configurations",
	"env": "environment", "envs": "environments", "info": "information", "msg": "message", "msgs": "messages",
	"db": "database", "dir": "directory", "dirs": "directories", "app": "application", "apps": "applications",
	"admin": "administrator", "stats": "statistics", "cert": "certificate", "certs": "certificates",
	"img": "image", "pkg": "package", "pkgs": "packages", "auth": "authentication", "creds": "credentials",
	"sub": "subscription", "subs": "subscriptions", "txn": "transaction", "txns": "transactions",
}

// prepositions end a noun phrase: in "list the comments on a pull
// request" the object is comments and "pull request" says where.
var prepositions = map[string]bool{
	"of": true, "on": true, "in": true, "to": true, "from": true, "for": true, "with": true, "by": true,
	"into": true, "at": true, "across": true, "under": true, "about": true, "between": true, "within": true,
	"via": true, "as": true, "onto": true, "over": true, "without": true, "after": true, "before": true, "like": true,
}

// genericNouns say nothing about which object an operation acts on
// ("Retrieves the details of an account", "list objects of kind Pod").
var genericNouns = map[string]bool{
	"object": true, "objects": true, "details": true, "detail": true, "list": true, "specified": true,
	"given": true, "existing": true, "new": true, "single": true, "collection": true, "information": true,
	"current": true, "kind": true, "one": true, "previously": true, "created": true, "particular": true,
	"specific": true, "individual": true, "changes": true, "multiple": true, "partially": true, "or": true,
	"number": true, "count": true, "amount": true,
}

// genericHeads are the generic nouns that head a noun phrase the words
// before them modify and whose number they tell: "a stale Endpoints object" is one
// Endpoints; the other generic words are adjectives ("the specified pod").
var genericHeads = map[string]bool{
	"object": true, "objects": true, "details": true, "detail": true, "collection": true, "information": true, "kind": true, "changes": true, "number": true, "count": true, "amount": true,
}

// apiVersion is how new an API version is, as Kubernetes orders its
// versions (https://kubernetes.io/docs/reference/using-api/#api-versioning):
// by major, then stable over beta over alpha, then the pre-release's
// number: v2 > v2beta2 > v2beta1 > v1 > v1beta1 > v1alpha1.
type apiVersion struct{ major, stability, pre int }

func (v apiVersion) newer(w apiVersion) bool {
	return cmp.Or(cmp.Compare(v.major, w.major), cmp.Compare(v.stability, w.stability), cmp.Compare(v.pre, w.pre)) > 0
}

var versionPattern = regexp.MustCompile(`^v([0-9]+)(?:(alpha|beta)([0-9]*))?$`)

// parseVersion reads a version segment of the form v2, v1beta1 or
// v1alpha2; others (dates, v1.0) are not ordered.
func parseVersion(s string) (apiVersion, bool) {
	m := versionPattern.FindStringSubmatch(s)
	if m == nil {
		return apiVersion{}, false
	}
	v := apiVersion{stability: 2}
	v.major, _ = strconv.Atoi(m[1])
	switch m[2] {
	case "beta":
		v.stability = 1
	case "alpha":
		v.stability = 0
	}
	v.pre, _ = strconv.Atoi(m[3])
	return v, true
}

// versionSegment reports whether a path segment is an API version (v1,
// v2beta1, 2010-04-01) or a generic prefix (api, apis), not an object.
func versionSegment(s string) bool {
	switch s {
	case "api", "apis", "rest":
		return true
	}
	if len(s) >= 2 && s[0] == 'v' && s[1] >= '0' && s[1] <= '9' {
		return true
	}
	for _, r := range s {
		if (r < '0' || r > '9') && r != '-' && r != '.' {
			return false
		}
	}
	return true
}
