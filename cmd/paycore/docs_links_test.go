package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// The README and the documents under docs/ link to each other with relative paths: every such
// link must name a file or folder that exists, and a #fragment must name a heading of its
// target. Links to other sites and text inside fenced code blocks are not checked.
func TestDocsLinks(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{filepath.Join(root, "README.md")}
	err = filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{} // file → its headings' anchors
	anchorsOf := func(file string) map[string]bool {
		if a, ok := anchors[file]; ok {
			return a
		}
		a := map[string]bool{}
		for _, l := range markdownLines(t, file) {
			if h, ok := strings.CutPrefix(l.text, "#"); ok {
				a[headingAnchor(strings.TrimLeft(h, "#"))] = true
			}
		}
		anchors[file] = a
		return a
	}
	checked := 0
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		for _, l := range markdownLines(t, file) {
			for _, m := range markdownLink.FindAllStringSubmatch(stripCodeSpans(l.text), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				checked++
				path, frag, _ := strings.Cut(target, "#")
				dest := file
				if path != "" {
					dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
					info, err := os.Stat(dest)
					if err != nil {
						t.Errorf("%s:%d: link to %s: no such file", rel, l.n, target)
						continue
					}
					if info.IsDir() || !strings.HasSuffix(dest, ".md") {
						if frag != "" {
							t.Errorf("%s:%d: link to %s: a fragment on something that is not a markdown file", rel, l.n, target)
						}
						continue
					}
				}
				if frag != "" && !anchorsOf(dest)[frag] {
					t.Errorf("%s:%d: link to %s: no heading with that anchor", rel, l.n, target)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d relative links checked in %d files: is the link pattern still right?", checked, len(files))
	}
}

// markdownLink matches an inline link or image, capturing its target.
var markdownLink = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

type markdownLine struct {
	n    int
	text string
}

// markdownLines returns the lines of a markdown file outside fenced code blocks.
func markdownLines(t *testing.T, file string) []markdownLine {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []markdownLine
	fenced := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, markdownLine{n: n, text: line})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// stripCodeSpans removes `code spans`, whose text is not a link.
func stripCodeSpans(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		if r == '`' {
			in = !in
			continue
		}
		if !in {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// headingAnchor is the anchor GitHub gives a heading: lower case, punctuation dropped,
// spaces as hyphens.
func headingAnchor(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
