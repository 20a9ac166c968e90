package temporal

import (
	"os"
	"testing"

	"go.yaml.in/yaml/v3"
)

// setting is one value of a dynamic configuration key, as the Temporal server reads it.
type setting struct {
	Value       any            `yaml:"value"`
	Constraints map[string]any `yaml:"constraints"`
}

// TestPartitionsApplyToEveryTaskQueue: each shipped configuration sets the task queue's
// partitions for every queue, not only one named "paycore" (the worker's queue is
// PAYCORE_TASK_QUEUE, and every test stack has a queue of its own), and DynamicConfig is
// paycore.yaml as it is on disk.
func TestPartitionsApplyToEveryTaskQueue(t *testing.T) {
	small, err := os.ReadFile("paycore.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if string(small) != string(DynamicConfig) {
		t.Fatal("DynamicConfig is not paycore.yaml")
	}
	for file, partitions := range map[string]int{"paycore.yaml": 1, "paycore-1000.yaml": 8} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var cfg map[string][]setting
		if err := yaml.Unmarshal(b, &cfg); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, key := range []string{"matching.numTaskqueueReadPartitions", "matching.numTaskqueueWritePartitions"} {
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
