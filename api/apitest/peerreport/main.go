// Command peerreport summarises the report of the peer check (make peer-check): the
// mismatches of 2xx answers with the peer's document, grouped by operation and message
// (ids replaced, long messages cut), most frequent first. A oneOf in the peer's document
// makes the validator list every branch's complaint; the full lines are in the report.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

var idRE = regexp.MustCompile(`[A-Za-z]+:[0-9a-f]{8}-[0-9a-f-]{27}`)

type line struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Status int    `json:"status"`
	Error  string `json:"error"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: peerreport REPORT.jsonl")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	total := 0
	for sc.Scan() {
		var l line
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		total++
		path, _, _ := strings.Cut(l.Path, "?")
		msg := idRE.ReplaceAllString(l.Error, "{id}")
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		counts[fmt.Sprintf("%s %s → %d: %s", l.Method, idRE.ReplaceAllString(path, "{id}"), l.Status, msg)]++
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cmp.Or(counts[b]-counts[a], strings.Compare(a, b)) })
	fmt.Printf("%d mismatches, %d kinds\n", total, len(keys))
	for _, k := range keys {
		fmt.Printf("%6d  %s\n", counts[k], k)
	}
}
