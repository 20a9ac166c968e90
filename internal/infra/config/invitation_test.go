package config

import "testing"

// An invitation's url is its code under PAYCORE_INVITATION_BASE_URL, by default under the
// public base URL; a base that is not an absolute http(s) URL is refused at start.
func TestInvitationBase(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "http://127.0.0.1:8080/invite"},
		{map[string]string{"PAYCORE_PUBLIC_BASE_URL": "https://api.example.com/"}, "https://api.example.com/invite"},
		{map[string]string{"PAYCORE_INVITATION_BASE_URL": "https://uma.example.com/i/"}, "https://uma.example.com/i"},
	} {
		c, err := LoadFrom(func(k string) string { return tc.env[k] })
		if err != nil || c.InvitationBase() != tc.want {
			t.Errorf("%v: %q %v, want %q", tc.env, c.InvitationBase(), err, tc.want)
		}
	}
	if got := Defaults().InvitationBase(); got != "http://127.0.0.1:8080/invite" {
		t.Errorf("defaults: %q", got)
	}
	for _, bad := range []string{"uma.example.com/i", "ftp://uma.example.com", "https://"} {
		if _, err := LoadFrom(func(k string) string {
			if k == "PAYCORE_INVITATION_BASE_URL" {
				return bad
			}
			return ""
		}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
