package workload

import "testing"

func FuzzParseConversations(f *testing.F) {
	f.Add("conversations=200,turns=6,system=2048,user=512,output=256")
	f.Add("seed=18446744073709551615,think_ms=5")
	f.Add("conversations=2,,turns=1, vocab=2")
	f.Add("turns=2,turns=2")
	f.Fuzz(func(t *testing.T, spec string) {
		c, err := ParseConversations(spec)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("ParseConversations(%q) = %+v, which fails Validate: %v", spec, c, err)
		}
		back, err := ParseConversations(c.String())
		if err != nil || back != c {
			t.Fatalf("ParseConversations(%q) = %+v, %v, want %+v", c.String(), back, err, c)
		}
		if c.Requests() <= 4 && c.promptLen(c.Turns-1) <= 1<<16 {
			n := 0
			if err := c.Each(func(req Request) error {
				n++
				if req.ID == "" || len(req.Tokens) == 0 {
					t.Fatalf("Each gave request %+v", req)
				}
				return nil
			}); err != nil || n != c.Requests() {
				t.Fatalf("Each = %v after %d requests, want %d", err, n, c.Requests())
			}
		}
	})
}
