package hostload

import (
	"errors"
	"math"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/prometheus/procfs"
)

// fixed reads the /proc/stat of dir, a process CPU time of self and the
// time at.
func fixed(t *testing.T, dir string, self time.Duration, at time.Time) Sample {
	t.Helper()
	fs, err := procfs.NewFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := source{fs: fs, self: func() (time.Duration, error) { return self, nil }, now: func() time.Time { return at }}.take()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSinceCountsOthers reads two recorded /proc/stat files of a 4-CPU
// machine 1 s apart: between them its CPUs ran 150 + 10 + 40 ticks
// (user, nice, system: 2.0 s) and the hypervisor took 20 ticks (0.2 s);
// the process used 0.8 s of CPU, so others kept 1.2 cores busy, give or
// take a tick of each CPU (0.04 cores).
func TestSinceCountsOthers(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 19, 0, 0, 0, time.UTC)
	before := fixed(t, "testdata/before", 3*time.Second, t0)
	after := fixed(t, "testdata/after", 3800*time.Millisecond, t0.Add(time.Second))
	got, err := after.Since(before)
	if err != nil {
		t.Fatal(err)
	}
	want := Load{Seconds: 1, OthersCores: 1.2, StealCores: 0.2, Within: 0.04} // 4 CPUs' ticks over 1 s
	if math.Abs(got.Seconds-want.Seconds) > 1e-9 || math.Abs(got.OthersCores-want.OthersCores) > 1e-6 ||
		math.Abs(got.StealCores-want.StealCores) > 1e-6 || math.Abs(got.Within-want.Within) > 1e-9 {
		t.Errorf("Since = %+v, want %+v", got, want)
	}
	// A process that used more than the machine counted (ticks against
	// its precise clock) leaves others at 0, not below.
	busy := fixed(t, "testdata/after", 6*time.Second, t0.Add(time.Second))
	if got, err := busy.Since(before); err != nil || got.OthersCores != 0 {
		t.Errorf("Since with the process over the machine = %+v, %v, want 0 others", got, err)
	}
}

func TestSinceRefusesSamplesOutOfOrder(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 19, 0, 0, 0, time.UTC)
	before := fixed(t, "testdata/before", time.Second, t0)
	after := fixed(t, "testdata/after", 2*time.Second, t0.Add(time.Second))
	for _, c := range []struct {
		name        string
		later, prev Sample
	}{
		{"swapped", before, after},
		{"same time", after, fixed(t, "testdata/before", time.Second, t0.Add(time.Second))},
	} {
		if _, err := c.later.Since(c.prev); !errors.Is(err, errBackwards) {
			t.Errorf("%s: Since = %v, want errBackwards", c.name, err)
		}
	}
}

// TestTakeSeesAnotherProcess spins a shell loop in a child process for
// 400 ms: the machine's CPU time that is not this process's must count
// it (a quarter of a core at least; the machine may be busier still).
func TestTakeSeesAnotherProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/stat is Linux's")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	before, err := Take()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(400 * time.Millisecond)
	after, err := Take()
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if err != nil {
		t.Fatal(err)
	}
	load, err := after.Since(before)
	if err != nil {
		t.Fatal(err)
	}
	if load.OthersCores < 0.25 {
		t.Errorf("others kept %.2f cores busy beside a spinning child process, want 0.25 or more (%+v)", load.OthersCores, load)
	}
}
