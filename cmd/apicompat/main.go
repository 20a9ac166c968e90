// Command apicompat fails when the API document has a breaking change, against a base version of
// it, that CHANGELOG.md does not record. It compares the two documents with oasdiff's
// backward-compatibility checks: every change they rate ERR must be named in the changelog,
// in the section of an API version between the base's and the document's (both inclusive), on
// one line giving the operation (or the component) and oasdiff's check id, each in backquotes,
// for example
//
//	## 2026-12-01
//	### Breaking
//	- `POST /quotes` — `request-property-became-required`: `destination` is now required.
//
// Changes rated WARN are printed and do not fail. `make api-compat` runs it with the base taken
// from git (docs/api/changelog-and-compatibility.md).
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/oasdiff/oasdiff/checker"
	"github.com/oasdiff/oasdiff/diff"
	"github.com/oasdiff/oasdiff/load"
)

func main() {
	base := flag.String("base", "", "the base version of the API document (a file)")
	doc := flag.String("doc", "api/openapi.yaml", "the API document as it is now")
	changelog := flag.String("changelog", "CHANGELOG.md", "the API changelog")
	flag.Parse()
	if *base == "" {
		fmt.Fprintln(os.Stderr, "apicompat: -base is required")
		os.Exit(2)
	}
	ok, err := run(os.Stdout, *base, *doc, *changelog)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apicompat:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

// run compares the files and reports to w; it returns false when a breaking change is not
// recorded.
func run(w io.Writer, basePath, docPath, changelogPath string) (bool, error) {
	baseDoc, err := os.ReadFile(basePath)
	if err != nil {
		return false, fmt.Errorf("read the base document: %w", err)
	}
	doc, err := os.ReadFile(docPath)
	if err != nil {
		return false, fmt.Errorf("read the document: %w", err)
	}
	log, err := os.ReadFile(changelogPath)
	if err != nil {
		return false, fmt.Errorf("read the changelog: %w", err)
	}
	cmp, err := compare(baseDoc, doc)
	if err != nil {
		return false, err
	}
	missing, err := unrecorded(cmp, log)
	if err != nil {
		return false, fmt.Errorf("%s: %w", changelogPath, err)
	}
	return report(w, cmp, missing), nil
}

// finding is one change oasdiff reported.
type finding struct {
	breaking bool   // rated ERR: it must be recorded
	id       string // oasdiff's check id, e.g. "api-removed-without-deprecation"
	key      string // "METHOD /path", or the component's name when the change has no operation
	text     string
}

// comparison is what changed between two versions of the document.
type comparison struct {
	baseVersion, docVersion string // their info.version
	changes                 []finding
}

// compare runs oasdiff's checks on the two documents.
func compare(baseDoc, doc []byte) (comparison, error) {
	// One loader per document, as oasdiff asks: its cache is keyed by the document's name.
	s1, err := load.NewSpecInfoFromData(openapi3.NewLoader(), baseDoc, "base/openapi.yaml")
	if err != nil {
		return comparison{}, fmt.Errorf("load the base document: %w", err)
	}
	s2, err := load.NewSpecInfoFromData(openapi3.NewLoader(), doc, "openapi.yaml")
	if err != nil {
		return comparison{}, fmt.Errorf("load the document: %w", err)
	}
	report, sources, err := diff.GetWithOperationsSourcesMap(diff.NewConfig(), s1, s2)
	if err != nil {
		return comparison{}, fmt.Errorf("compare the documents: %w", err)
	}
	cmp := comparison{baseVersion: version(s1.Spec), docVersion: version(s2.Spec)}
	l := checker.NewDefaultLocalizer()
	config := checker.NewConfig(checker.GetAllChecks(), checker.WithSeverityLevels(additive()))
	for _, c := range checker.CheckBackwardCompatibilityUntilLevel(config, report, sources, checker.WARN) {
		key := c.GetSource()
		if c.GetPath() != "" {
			key = strings.TrimSpace(c.GetOperation() + " " + c.GetPath())
		}
		cmp.changes = append(cmp.changes, finding{
			breaking: c.GetLevel() >= checker.ERR,
			id:       c.GetId(),
			key:      key,
			text:     c.GetUncolorizedText(l),
		})
	}
	return cmp, nil
}

// additive lowers to INFO (not reported) the changes the API's compatibility rules call
// additive: a new value of an enum in an answer (a status, an event type, a reason). Clients
// must treat a value they do not know as "other" (docs/api/conventions.md).
func additive() map[string]checker.Level {
	return map[string]checker.Level{
		"response-property-enum-value-added":  checker.INFO,
		"response-mediatype-enum-value-added": checker.INFO,
	}
}

func version(t *openapi3.T) string {
	if t.Info == nil {
		return ""
	}
	return t.Info.Version
}

// unrecorded returns the breaking changes the changelog does not name in the section of a
// version between the base's and the document's. API versions are dates (YYYY-MM-DD), so they
// order as strings.
func unrecorded(cmp comparison, changelog []byte) ([]finding, error) {
	sections, err := parseChangelog(changelog)
	if err != nil {
		return nil, err
	}
	var missing []finding
	for _, f := range cmp.changes {
		if !f.breaking || recorded(f, sections, cmp.baseVersion, cmp.docVersion) {
			continue
		}
		missing = append(missing, f)
	}
	return missing, nil
}

func recorded(f finding, sections map[string][]string, from, to string) bool {
	for v, lines := range sections {
		if v < from || v > to {
			continue
		}
		for _, line := range lines {
			if strings.Contains(line, "`"+f.key+"`") && strings.Contains(line, "`"+f.id+"`") {
				return true
			}
		}
	}
	return false
}

// parseChangelog returns each version section's lines: a section starts at a "## <version>"
// heading and ends at the next "## " heading.
func parseChangelog(b []byte) (map[string][]string, error) {
	sections := map[string][]string{}
	current := ""
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "## "); ok {
			current = strings.TrimSpace(v)
			if _, dup := sections[current]; dup {
				return nil, fmt.Errorf("version %q has two sections", current)
			}
			sections[current] = nil
			continue
		}
		if current != "" {
			sections[current] = append(sections[current], line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	if len(sections) == 0 {
		return nil, errors.New(`no version section ("## <version>")`)
	}
	return sections, nil
}

// report prints the comparison and, for each unrecorded breaking change, the line that would
// record it; it returns whether nothing is missing.
func report(w io.Writer, cmp comparison, missing []finding) bool {
	breaking := 0
	for _, f := range cmp.changes {
		level := "warning"
		if f.breaking {
			level, breaking = "breaking", breaking+1
		}
		fmt.Fprintf(w, "%s: %s [%s] %s\n", level, f.key, f.id, f.text)
	}
	fmt.Fprintf(w, "API %s → %s: %d breaking change(s), %d warning(s), %d not recorded in the changelog\n",
		cmp.baseVersion, cmp.docVersion, breaking, len(cmp.changes)-breaking, len(missing))
	if len(missing) == 0 {
		return true
	}
	fmt.Fprintf(w, "\nRecord each under \"## %s\" → \"### Breaking\" in CHANGELOG.md (or undo it):\n", cmp.docVersion)
	for _, f := range missing {
		fmt.Fprintf(w, "- `%s` — `%s`: %s\n", f.key, f.id, f.text)
	}
	return false
}
