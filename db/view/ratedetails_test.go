package view

import (
	"encoding/json"
	"testing"
)

// Rate details show the service's parts under the peer API's names too, numbers as stored;
// a name already stored and details that do not decode are left as they are.
func TestRateDetailsOf(t *testing.T) {
	got := rateDetailsOf(json.RawMessage(`{"counterpartyMultiplier":1.08,"counterpartyFixedFee":0,"serviceApiMultiplier":0.925000000000001,` +
		`"serviceApiFixedFee":10,"serviceApiVariableFeeRate":0.003,"serviceApiVariableFeeAmount":30}`))
	var m map[string]json.RawMessage
	if err := json.Unmarshal(got, &m); err != nil {
		t.Fatal(err)
	}
	for peer, want := range map[string]string{"gridApiMultiplier": "0.925000000000001", "gridApiFixedFee": "10", "gridApiVariableFeeRate": "0.003", "gridApiVariableFeeAmount": "30"} {
		if string(m[peer]) != want {
			t.Errorf("%s = %s, want %s", peer, m[peer], want)
		}
	}
	if string(rateDetailsOf(json.RawMessage(`{"serviceApiFixedFee":1,"gridApiFixedFee":2}`))) != `{"gridApiFixedFee":2,"serviceApiFixedFee":1}` {
		t.Error("a stored peer name was replaced")
	}
	for _, raw := range []string{"", "null", "[1]"} {
		if string(rateDetailsOf(json.RawMessage(raw))) != raw {
			t.Errorf("%q changed", raw)
		}
	}
}
