package config

import "testing"

// The End User Terms are PAYCORE_END_USER_TERMS_VERSION at PAYCORE_END_USER_TERMS_URL, by
// default under the public base URL; a blank version or a URL that is not absolute http(s)
// is refused at start.
func TestEndUserTerms(t *testing.T) {
	for _, tc := range []struct {
		env           map[string]string
		version, link string
	}{
		{map[string]string{}, "2026-11-01", "http://127.0.0.1:8080/end-user-terms/2026-11-01"},
		{map[string]string{"PAYCORE_PUBLIC_BASE_URL": "https://api.example.com/", "PAYCORE_END_USER_TERMS_VERSION": "v 2"},
			"v 2", "https://api.example.com/end-user-terms/v%202"},
		{map[string]string{"PAYCORE_END_USER_TERMS_URL": "https://example.com/legal/terms"}, "2026-11-01", "https://example.com/legal/terms"},
	} {
		c, err := LoadFrom(func(k string) string { return tc.env[k] })
		if err != nil {
			t.Fatalf("%v: %v", tc.env, err)
		}
		if v, l := c.EndUserTerms(); v != tc.version || l != tc.link {
			t.Errorf("%v: %q %q, want %q %q", tc.env, v, l, tc.version, tc.link)
		}
	}
	for _, bad := range []map[string]string{{"PAYCORE_END_USER_TERMS_VERSION": " "}, {"PAYCORE_END_USER_TERMS_URL": "example.com/terms"}} {
		if _, err := LoadFrom(func(k string) string { return bad[k] }); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
