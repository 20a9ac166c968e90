// Command deploycheck validates the deployment files offline (`make deploy-check`):
//
//	deploycheck manifests -schemas DIR [FILE...]
//	deploycheck compose FILE
//
// manifests reads Kubernetes manifests (the output of `helm template`, from the files or
// standard input) and validates every document against the official OpenAPI v3 schemas of
// the Kubernetes API, as published in the api/openapi-spec/v3 folder of the
// k8s.io/kubernetes module (fetched through the Go module proxy, so nothing is downloaded
// at run time). Validation is strict: a field the schema does not know is an error, like
// kubectl's server-side field validation, and YAML is read with the YAML 1.1 rules the API
// machinery uses, so an unquoted `yes` is a boolean.
//
// compose loads a compose file with the Compose specification's reference loader
// (compose-go), which validates it against the specification's schema and checks the
// references between services, as `docker compose config` does.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "deploycheck:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("usage: deploycheck manifests -schemas DIR [FILE...] | deploycheck compose FILE")
	}
	switch args[0] {
	case "manifests":
		return runManifests(args[1:], stdin, stdout)
	case "compose":
		return runCompose(ctx, args[1:], stdout)
	default:
		return fmt.Errorf("unknown command %q (manifests or compose)", args[0])
	}
}
