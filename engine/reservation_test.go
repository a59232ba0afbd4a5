package engine

import "testing"

// TestCompletionReservation: long generations that outgrow the GPU are
// preempted without reservations, and wait instead with them.
func TestCompletionReservation(t *testing.T) {
	src := sliceSource{
		{ID: "a", Tokens: tokensOf(0, 200), OutputLength: 200},
		{ID: "b", Tokens: tokensOf(1000, 200), OutputLength: 200},
		{ID: "c", Tokens: tokensOf(2000, 200), OutputLength: 200},
	}
	for _, reserve := range []bool{false, true} {
		cfg, _ := testConfig(t)
		cfg.Scheduler.CompletionReservation = reserve
		rep := runOK(t, cfg, src)
		if got := rep.Preemptions > 0; got == reserve {
			t.Errorf("reservation %v: %d preemptions, want preemptions only without reservation", reserve, rep.Preemptions)
		}
		if got := rep.ReservationWaits > 0; got != reserve {
			t.Errorf("reservation %v: %d reservation waits, want waits only with reservation", reserve, rep.ReservationWaits)
		}
	}
}
