package agentmcp

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestOperationsFromTheAPIDocument(t *testing.T) {
	doc, err := os.ReadFile("../../../api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ops, err := Operations(doc)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Operation{}
	for _, o := range ops {
		byName[o.Name] = o
		var root map[string]any
		if err := json.Unmarshal(o.InputSchema, &root); err != nil || root["type"] != "object" {
			t.Fatalf("%s: the input schema's root is not an object: %s", o.Name, o.InputSchema)
		}
		c := jsonschema.NewCompiler()
		s, _ := jsonschema.UnmarshalJSON(bytes.NewReader(o.InputSchema))
		if err := c.AddResource("tool.json", s); err != nil {
			t.Fatalf("%s: %v", o.Name, err)
		}
		if _, err := c.Compile("tool.json"); err != nil {
			t.Fatalf("%s: the input schema does not compile: %v", o.Name, err)
		}
	}
	if len(ops) != 15 {
		t.Errorf("%d tools, want the 15 /agents/me operations", len(ops))
	}
	out := byName["agentCreateTransferOut"]
	if out.Method != "POST" || out.Path != "/agents/me/transfer-out" || !out.Body || !out.Idempotent || out.ReadOnly() {
		t.Errorf("agentCreateTransferOut: %+v", out)
	}
	exec := byName["agentExecuteQuote"]
	if len(exec.PathParams) != 1 || exec.PathParams[0] != "quoteId" || exec.Body {
		t.Errorf("agentExecuteQuote: %+v", exec)
	}
}
