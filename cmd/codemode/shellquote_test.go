package main

import (
	"os/exec"
	"strings"
	"testing"
)

// bashWords is how bash splits line into words (brace expansion, globbing
// and all), or the test is skipped without bash.
func bashWords(t *testing.T, line string) []string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	out, err := exec.Command(bash, "-c", "printf '%s\\0' "+line).Output()
	if err != nil {
		t.Fatalf("bash -c %q: %v", line, err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// TestShellQuoteIsOneWord: a quoted value reads back in bash as the one
// word it was, whatever it holds: newlines, braces, brackets, an empty
// value.
func TestShellQuoteIsOneWord(t *testing.T) {
	for _, v := range []string{
		"plain", "a b", "a'b", "$(id)", "`id`", "a;b", "x\ninjected_cmd\ny", "a{b,c}", "{a..c}",
		"http://[::1]:8080", "[ab]", "^x", "~root", "é", "a=b", "-x", "", "a\\b", "#x", "a\tb", "=x",
	} {
		got := bashWords(t, "prefix "+shellQuote(v))
		if len(got) != 2 || got[1] != v {
			t.Errorf("shellQuote(%q) = %s reads back as %q", v, shellQuote(v), got)
		}
	}
}

// TestRecordedFlagsFromAHostileJournal: recorded names, base URLs and
// header names with newlines, braces or brackets give flags that bash
// reads as those flags and nothing more: pasting the hint runs no other
// command and adds no argument.
func TestRecordedFlagsFromAHostileJournal(t *testing.T) {
	conf := map[string]string{
		"x\ninjected_cmd\ny document":     "sha256:1",
		"x\ninjected_cmd\ny base URL":     "http://a\ninjected_cmd\n",
		"x\ninjected_cmd\ny header names": "A\ninjected_cmd\nB, {C,--yes}",
		"api document":                    "sha256:2",
		"api base URL":                    "http://[::1]:8080/{a,b}",
	}
	flags, _ := recordedFlags(conf)
	got := bashWords(t, "codemode approve"+flags)
	want := []string{"codemode", "approve",
		"--openapi", "api=SPEC", "--base-url", "api=http://[::1]:8080/{a,b}",
		"--openapi", "x\ninjected_cmd\ny=SPEC", "--base-url", "x\ninjected_cmd\ny=http://a\ninjected_cmd\n",
		"--header-env", "x\ninjected_cmd\ny=A\ninjected_cmd\nB:ENVVAR", "--header-env", "x\ninjected_cmd\ny={C,--yes}:ENVVAR"}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Fatalf("recordedFlags printed%s\nbash reads %q\nwant %q", flags, got, want)
	}
}
