// Package cases loads the shared agent-authored program cases
// (testdata/cases, copied from shared/cases) and checks one against a
// runtime, so every driver's tests can run all of them.
package cases
