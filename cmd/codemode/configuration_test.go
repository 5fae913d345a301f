package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestApproveRefusesAnotherConnectorConfiguration: a run paused before an
// OpenAPI PUT names, in its pause's hint, the exact connector flags it ran
// with (--header-env by its variable, never the secret). An approve with
// another base URL, or without the header, is refused naming the
// difference: nothing is sent, the run stays paused and its approval is
// not used, so that the approve with the run's flags then completes it.
// On a SQLite file and on PostgreSQL.
func TestApproveRefusesAnotherConnectorConfiguration(t *testing.T) {
	spec, err := filepath.Abs("../../.tools/node_modules/@readme/oas-examples/3.0/json/petstore.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spec); err != nil {
		t.Skip(err)
	}
	journals := map[string]func(t *testing.T) string{
		"sqlite":   func(t *testing.T) string { return filepath.Join(t.TempDir(), "journal.db") },
		"postgres": postgresJournal,
	}
	for name, journal := range journals {
		t.Run(name, func(t *testing.T) { testApproveRefusesAnotherConfiguration(t, spec, journal(t)) })
	}
}

func testApproveRefusesAnotherConfiguration(t *testing.T, spec, journal string) {
	api, seen := petAPI(t)
	other, otherSeen := petAPI(t)
	t.Setenv("PETSTORE_TOKEN", "Bearer secret-token-from-env")
	base := []string{"--journal", journal, "--openapi", "petstore=" + spec}
	flags := append(base[:len(base):len(base)], "--base-url", "petstore="+api.URL+"/v3", "--header-env", "petstore=Authorization:PETSTORE_TOKEN")
	prog := writeFile(t, "prog.ts", `const pets = await petstore.findPetsByStatus({ status: ["available"] });
await petstore.updatePet({ body: { id: 7, name: "Max", photoUrls: [] } });
pets.map((p) => p.name).join("+")
`)
	code, stdout, stderr := runCLI(t, append(append([]string{"run"}, flags...), prog)...)
	id := regexp.MustCompile(`exec_[0-9a-f_]+`).FindString(stdout)
	if code != exitPaused || id == "" {
		t.Fatalf("run: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	hint := "--base-url petstore=" + api.URL + "/v3 --header-env petstore=Authorization:PETSTORE_TOKEN " + id + " --shown "
	if !strings.Contains(stdout, hint) || strings.Contains(stdout, "secret-token") {
		t.Fatalf("the pause's hint does not repeat the run's connector flags (%s), or shows the secret:\n%s", hint, stdout)
	}
	tests := []struct {
		name  string
		flags []string
		want  string
	}{
		{"another base URL", append(base[:len(base):len(base)], "--base-url", "petstore="+other.URL+"/v3", "--header-env", "petstore=Authorization:PETSTORE_TOKEN"),
			`petstore base URL "` + api.URL + `/v3", now "` + other.URL + `/v3"`},
		{"the header missing", append(base[:len(base):len(base)], "--base-url", "petstore="+api.URL+"/v3"),
			`petstore header names "Authorization", now "none"`},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(t, append(append([]string{"approve"}, tt.flags...), id)...)
		if code == exitCompleted || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "stays paused") {
			t.Fatalf("%s: approve: exit %d, want a refusal naming %s\nstdout: %s\nstderr: %s", tt.name, code, tt.want, stdout, stderr)
		}
		if got := append(seen(), otherSeen()...); len(got) != 1 {
			t.Fatalf("%s: after the refused approval the APIs saw %q, want the one GET", tt.name, got)
		}
		_, show, _ := runCLI(t, "show", "--json", "--journal", journal, id)
		var e struct {
			Status string
			Passes int
		}
		if err := json.Unmarshal([]byte(show), &e); err != nil || e.Status != "paused" || e.Passes != 1 {
			t.Fatalf("%s: after the refused approval: %v %s", tt.name, err, show)
		}
	}
	code, stdout, stderr = runCLI(t, append(append([]string{"approve"}, flags...), id)...)
	if code != exitCompleted || !strings.Contains(stdout, "Rex+Tom") {
		t.Fatalf("approve with the run's flags: exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	if got := seen(); len(got) != 2 || !strings.HasPrefix(got[1], "PUT /v3/pet Bearer secret-token-from-env") {
		t.Fatalf("the API saw %q", got)
	}
}
