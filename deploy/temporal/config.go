// Package temporal holds the Temporal server's dynamic configuration that paycore ships:
// paycore.yaml for a deployment up to a few hundred payments a second (the compose stack
// mounts it), paycore-1000.yaml for 1,000 a second. The Temporal server that `make
// run-cluster` and the cluster test profile run (internal/infra/tcluster) reads
// paycore.yaml too, so what is measured there is what is shipped.
package temporal

import _ "embed" // the configuration files

// DynamicConfig is paycore.yaml: the dynamic configuration of a small deployment.
//
//go:embed paycore.yaml
var DynamicConfig []byte
