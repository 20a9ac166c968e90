package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const validDeployment = `# Source: paycore/templates/api.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  annotations: {scrape: "true"}
spec:
  replicas: 2
  selector: {app: api}
  template: {anything: [goes, here]}
`

func checkManifests(t *testing.T, stream string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), []string{"manifests", "-schemas", "testdata/schemas"}, strings.NewReader(stream), &out)
	return out.String(), err
}

func TestManifestsValid(t *testing.T) {
	out, err := checkManifests(t, "---\n"+validDeployment+"---\n# an empty document\n")
	if err != nil {
		t.Fatalf("a valid Deployment: %v\n%s", err, out)
	}
	if !strings.Contains(out, "1 manifests valid") {
		t.Fatalf("output %q", out)
	}
}

func TestManifestsInvalid(t *testing.T) {
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"unknown field", "  replicas: 2\n", "  replicas: 2\n  replicaCount: 2\n", "'replicaCount' not allowed"},
		{"unknown field in a referenced schema", "  name: api\n", "  name: api\n  nmespace: x\n", "'nmespace' not allowed"},
		{"wrong type", "replicas: 2", "replicas: two", "want integer"},
		{"out of int32", "replicas: 2", "replicas: 3000000000", "int32"},
		{"missing required field", "  selector: {app: api}\n", "", "selector"},
		{"YAML 1.1 boolean", `scrape: "true"`, "scrape: yes", "got boolean, want string"},
		{"unknown apiVersion", "apiVersion: apps/v1", "apiVersion: apps/v2", "not served"},
		{"unknown kind", "kind: Deployment", "kind: Deploymnt", "no kind Deploymnt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.Replace(validDeployment, tc.from, tc.to, 1)
			if doc == validDeployment {
				t.Fatalf("the replacement of %q changed nothing", tc.from)
			}
			out, err := checkManifests(t, doc)
			if err == nil {
				t.Fatalf("accepted:\n%s", doc)
			}
			if !strings.Contains(out+err.Error(), tc.want) {
				t.Fatalf("error without %q:\n%s%v", tc.want, out, err)
			}
			if err.Error() != "manifests: no documents to validate" && !strings.Contains(out, "paycore/templates/api.yaml") && !strings.Contains(err.Error(), "not served") && !strings.Contains(err.Error(), "no kind") {
				t.Fatalf("the template is not named:\n%s", out)
			}
		})
	}
}

func TestManifestsDuplicate(t *testing.T) {
	out, err := checkManifests(t, validDeployment+"---\n"+validDeployment)
	if err == nil || !strings.Contains(out, "a second Deployment named \"api\"") {
		t.Fatalf("two Deployments named api: %v\n%s", err, out)
	}
}

func writeCompose(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "compose.yaml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const validCompose = `name: t
services:
  db:
    image: postgres:15
    healthcheck: {test: ["CMD", "pg_isready"]}
  api:
    image: paycore
    environment: {KEY: "${KEY:?set KEY}"}
    deploy: {replicas: 2}
    depends_on:
      db: {condition: service_healthy}
  proxy:
    image: caddy
    ports: ["8080:8080"]
`

func TestCompose(t *testing.T) {
	t.Setenv("KEY", "x")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"compose", writeCompose(t, validCompose)}, nil, &out); err != nil {
		t.Fatalf("a valid compose file: %v", err)
	}
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"unknown key", "    image: caddy\n", "    image: caddy\n    restart_policy: always\n", "restart_policy"},
		{"undefined dependency", "      db: {condition", "      dbx: {condition", "dbx"},
		{"replicas publishing one port", "    deploy: {replicas: 2}\n", "    deploy: {replicas: 2}\n    ports: [\"8081:8080\"]\n", "2 replicas cannot all publish"},
		{"port published twice", "    deploy: {replicas: 2}\n", "    ports: [\"8080:8080\"]\n", "already published"},
		{"healthy without healthcheck", "    healthcheck: {test: [\"CMD\", \"pg_isready\"]}\n", "", "has no healthcheck"},
		{"missing build context", "    image: paycore\n", "    build: {context: ./nowhere}\n", "build context"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Replace(validCompose, tc.from, tc.to, 1)
			if body == validCompose {
				t.Fatalf("the replacement of %q changed nothing", tc.from)
			}
			err := run(context.Background(), []string{"compose", writeCompose(t, body)}, nil, &out)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("want an error with %q, got %v", tc.want, err)
			}
		})
	}
	t.Setenv("KEY", "")
	if err := run(context.Background(), []string{"compose", writeCompose(t, validCompose)}, nil, &out); err == nil || !strings.Contains(err.Error(), "set KEY") {
		t.Fatalf("a required variable unset: %v", err)
	}
}
