package main

import (
	"context"
	"strings"
	"testing"
)

// The repository's compose file is laptop-only: its secrets have no defaults (it does not
// load without them), nothing in it holds the old default password, and every port it
// publishes is bound to the host's loopback (the Temporal UI has no login; the Temporal
// frontend is not published).
func TestRepositoryComposeFile(t *testing.T) {
	const file = "../../deploy/compose.yaml"
	env := map[string]string{"PAYCORE_MASTER_KEY": "placeholder", "PAYCORE_POSTGRES_PASSWORD": "generated-password"}
	for _, required := range []string{"PAYCORE_MASTER_KEY", "PAYCORE_POSTGRES_PASSWORD"} {
		without := map[string]string{}
		for k, v := range env {
			if k != required {
				without[k] = v
			}
		}
		if _, err := loadCompose(context.Background(), file, without); err == nil || !strings.Contains(err.Error(), required) {
			t.Errorf("loads without %s: %v", required, err)
		}
	}
	p, err := loadCompose(context.Background(), file, env)
	if err != nil {
		t.Fatal(err)
	}
	if errs := checkProject(p); len(errs) > 0 {
		t.Fatalf("%v", errs)
	}
	for name, s := range p.Services {
		for k, v := range s.Environment {
			password := strings.HasSuffix(k, "PASSWORD") || strings.HasSuffix(k, "PWD")
			if v != nil && (password && *v == "postgres" || strings.Contains(*v, "postgres:postgres@")) {
				t.Errorf("service %s: %s keeps the default password", name, k)
			}
		}
		for _, port := range s.Ports {
			if port.Published != "" && port.HostIP != "127.0.0.1" {
				t.Errorf("service %s publishes %s on %q, not on loopback", name, port.Published, port.HostIP)
			}
		}
		if name == "temporal" && len(s.Ports) > 0 {
			t.Errorf("the Temporal frontend is published: %v", s.Ports)
		}
	}
}
