package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// doc is a small API document: version v, with extra appended under the GET /things
// operation's 200 item schema's properties and ops appended to its paths.
func doc(v, itemProps, statusEnum, ops string) string {
	return `openapi: 3.1.0
info:
  title: t
  version: "` + v + `"
paths:
  /things:
    get:
      operationId: listThings
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                type: object
                required: [id, status]
                properties:
                  id:
                    type: string
                  status:
                    type: string
                    enum: [` + statusEnum + `]
` + itemProps + ops
}

// thingOp is an operation on one thing, path /things/{id}<suffix>, answering 204.
func thingOp(suffix, method, operationID string) string {
	return `  /things/{id}` + suffix + `:
    ` + method + `:
      operationId: ` + operationID + `
      parameters:
        - name: id
          in: path
          required: true
          schema:
            type: string
      responses:
        "204":
          description: done
`
}

var (
	deleteThing = thingOp("", "delete", "deleteThing")
	postThing   = thingOp("/archive", "post", "archiveThing")
)

func runCase(t *testing.T, base, revision, changelog string) (bool, string) {
	t.Helper()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var out strings.Builder
	ok, err := run(&out, write("base.yaml", base), write("doc.yaml", revision), write("CHANGELOG.md", changelog))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return ok, out.String()
}

const emptyLog = "# API changelog\n\n## 2026-01-01\n\nThe first version.\n"

func TestRemovedOperationMustBeRecorded(t *testing.T) {
	base := doc("2026-01-01", "", "ACTIVE", deleteThing)
	revision := doc("2026-02-01", "", "ACTIVE", "")

	ok, out := runCase(t, base, revision, emptyLog)
	if ok {
		t.Fatalf("a removed operation passed unrecorded:\n%s", out)
	}
	want := "- `DELETE /things/{id}` — `api-path-removed-without-deprecation`"
	if !strings.Contains(out, want) {
		t.Fatalf("the report does not give the line to record (%q):\n%s", want, out)
	}

	recorded := emptyLog + "\n## 2026-02-01\n\n### Breaking\n" + want + ": use archive instead.\n"
	if ok, out := runCase(t, base, revision, recorded); !ok {
		t.Fatalf("a recorded removal failed:\n%s", out)
	}
}

func TestRecordMustBeInAVersionOfTheRange(t *testing.T) {
	base := doc("2026-01-01", "", "ACTIVE", deleteThing)
	revision := doc("2026-02-01", "", "ACTIVE", "")
	line := "- `DELETE /things/{id}` — `api-path-removed-without-deprecation`\n"

	// Under a version before the base: an old release's notes do not cover today's change.
	old := "## 2025-12-01\n\n" + line + "\n## 2026-01-01\n\nThe first version.\n"
	if ok, out := runCase(t, base, revision, old); ok {
		t.Fatalf("a change recorded under an older version passed:\n%s", out)
	}
	// Naming the operation without the check id (or the reverse), either without its backquotes, or
	// another operation does not record it.
	for _, partial := range []string{"- `DELETE /things/{id}` was removed\n", "- `api-path-removed-without-deprecation`\n",
		"- DELETE /things/{id} api-path-removed-without-deprecation\n", "- `DELETE /things` — `api-path-removed-without-deprecation`\n"} {
		if ok, out := runCase(t, base, revision, emptyLog+"\n## 2026-02-01\n\n"+partial); ok {
			t.Fatalf("%q recorded the change:\n%s", partial, out)
		}
	}
	// Under the base's own version (no version bump yet) it is recorded.
	if ok, out := runCase(t, base, revision, "## 2026-01-01\n\n"+line); !ok {
		t.Fatalf("a change recorded under the base's version failed:\n%s", out)
	}
}

func TestAdditiveChangesNeedNoRecord(t *testing.T) {
	base := doc("2026-01-01", "", "ACTIVE", "")
	// A new optional property in an answer, a new enum value in an answer, a new operation.
	revision := doc("2026-01-01", "                  note:\n                    type: string\n", "ACTIVE, ARCHIVED", postThing)
	ok, out := runCase(t, base, revision, emptyLog)
	if !ok || !strings.Contains(out, "0 breaking change(s)") {
		t.Fatalf("additive changes were reported as breaking:\n%s", out)
	}
}

func TestChangedAnswerTypeIsBreaking(t *testing.T) {
	base := doc("2026-01-01", "", "ACTIVE", "")
	revision := strings.Replace(base, "                  id:\n                    type: string", "                  id:\n                    type: integer", 1)
	if revision == base {
		t.Fatal("the fixture did not change")
	}
	ok, out := runCase(t, base, revision, emptyLog)
	if ok || !strings.Contains(out, "`GET /things` — `response-property-type-changed`") {
		t.Fatalf("a changed answer type was not refused:\n%s", out)
	}
}

func TestChangelogNeedsVersionSections(t *testing.T) {
	if _, err := parseChangelog([]byte("# API changelog\n\nnothing\n")); err == nil {
		t.Fatal("a changelog without a version section was accepted")
	}
	if _, err := parseChangelog([]byte("## 2026-01-01\n\n## 2026-01-01\n")); err == nil {
		t.Fatal("a version with two sections was accepted")
	}
}
