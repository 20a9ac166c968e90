package paycore_test

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"go.yaml.in/yaml/v3"

	paycore "paycore/sdk/go"
)

// Every operation of the API document is a method of the client, in both forms: the raw
// answer (Client) and the decoded one (…WithResponse).
func TestEveryOperationIsAMethod(t *testing.T) {
	raw, err := os.ReadFile("../../api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]yaml.Node `yaml:"paths"` // an operation per method, and the item's parameters
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	client := reflect.TypeFor[*paycore.ClientWithResponses]()
	var n int
	for path, ops := range doc.Paths {
		for method, node := range ops {
			var op struct {
				OperationID string `yaml:"operationId"`
			}
			if node.Kind != yaml.MappingNode || node.Decode(&op) != nil || op.OperationID == "" {
				continue // the path item's parameters or summary: not an operation
			}
			n++
			r := []rune(op.OperationID)
			r[0] = unicode.ToUpper(r[0])
			name := string(r)
			if _, ok := client.MethodByName(name + "WithResponse"); !ok {
				if _, ok := client.MethodByName(name + "WithBodyWithResponse"); !ok {
					t.Errorf("%s %s (%s): no %sWithResponse method", strings.ToUpper(method), path, op.OperationID, name)
				}
			}
		}
	}
	if n < 100 {
		t.Fatalf("%d operations read from the document: not the API's", n)
	}
	t.Logf("%d operations, each a method", n)
}
