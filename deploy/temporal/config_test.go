package temporal

import (
	"maps"
	"os"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

// setting is one value of a dynamic configuration key, as the Temporal server reads it.
type setting struct {
	Value       any            `yaml:"value"`
	Constraints map[string]any `yaml:"constraints"`
}

// partitionKeys are the keys in which the shipped configurations differ.
var partitionKeys = []string{"matching.numTaskqueueReadPartitions", "matching.numTaskqueueWritePartitions"}

func read(t *testing.T, file string) map[string][]setting {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string][]setting
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return cfg
}

// TestPartitionsApplyToEveryTaskQueue: each shipped configuration sets the task queue's
// partitions for every queue, not only one named "paycore" (the worker's queue is
// PAYCORE_TASK_QUEUE, and every test stack has a queue of its own), and enables
// Update-with-Start, which every payment's API call uses.
func TestPartitionsApplyToEveryTaskQueue(t *testing.T) {
	for file, partitions := range map[string]int{"paycore.yaml": 1, "paycore-1000.yaml": 8} {
		cfg := read(t, file)
		for _, key := range partitionKeys {
			s := cfg[key]
			if len(s) != 1 || s[0].Value != partitions || len(s[0].Constraints) != 0 {
				t.Errorf("%s: %s = %+v, want one unconstrained value %d", file, key, s, partitions)
			}
		}
		for _, key := range []string{"frontend.enableUpdateWorkflowExecution", "frontend.enableExecuteMultiOperation"} {
			if s := cfg[key]; len(s) != 1 || s[0].Value != true {
				t.Errorf("%s: %s = %+v, want true (Update-with-Start)", file, key, s)
			}
		}
	}
}

// TestLargeDeploymentDiffersOnlyInPartitions: paycore-1000.yaml is paycore.yaml with more
// task-queue partitions (the server reads one file, so it repeats the rest); a setting
// changed in one and not the other fails here.
func TestLargeDeploymentDiffersOnlyInPartitions(t *testing.T) {
	small, large := read(t, "paycore.yaml"), read(t, "paycore-1000.yaml")
	for _, key := range partitionKeys {
		delete(small, key)
		delete(large, key)
	}
	if !maps.EqualFunc(small, large, func(a, b []setting) bool { return reflect.DeepEqual(a, b) }) {
		t.Fatalf("paycore.yaml and paycore-1000.yaml differ beyond the partitions:\n%v\n%v", small, large)
	}
}
