package stats

import "fmt"

// Phase is one timed step of a transfer batch.
type Phase int

// The phases of loads (resolve, fence, describe, get, unstage, sync) and of
// saves (resolve, describe, stage, put, sync).
const (
	PhaseResolve  Phase = iota // turn request blocks into keys and pages
	PhaseFence                 // wait for the allocation fence of the destination pages
	PhaseDescribe              // describe the batch: staging slots, buffers, sizes
	PhaseGet                   // the store's batch get
	PhaseUnstage               // scatter staged pages to GPU pages
	PhaseStage                 // gather GPU pages into staging
	PhasePut                   // the store's batch put
	PhaseSync                  // wait for the stream
	NumPhases                  // the number of phases
)

var phaseNames = [NumPhases]string{"resolve", "fence", "describe", "get", "unstage", "stage", "put", "sync"}

// LoadPhases are the phases of a load, in order.
var LoadPhases = []Phase{PhaseResolve, PhaseFence, PhaseDescribe, PhaseGet, PhaseUnstage, PhaseSync}

// SavePhases are the phases of a save, in order.
var SavePhases = []Phase{PhaseResolve, PhaseDescribe, PhaseStage, PhasePut, PhaseSync}

// String returns the phase's name as it appears in log lines, JSON and
// metric labels ("get", "unstage", ...).
func (p Phase) String() string {
	if p < 0 || p >= NumPhases {
		return fmt.Sprintf("phase(%d)", int(p))
	}
	return phaseNames[p]
}

// ParsePhase returns the phase with the given name.
func ParsePhase(name string) (Phase, error) {
	for i, n := range phaseNames {
		if n == name {
			return Phase(i), nil
		}
	}
	return 0, fmt.Errorf("unknown phase %q", name)
}

// Op says which direction a Load describes.
type Op string

// The transfer directions.
const (
	OpLoad Op = "load" // pool -> GPU
	OpSave Op = "save" // GPU -> pool
)

// Phases returns the phases of the direction, in order.
func (o Op) Phases() []Phase {
	if o == OpSave {
		return SavePhases
	}
	return LoadPhases
}

func parseOp(s string) (Op, error) {
	switch Op(s) {
	case OpLoad, OpSave:
		return Op(s), nil
	}
	return "", fmt.Errorf("unknown op %q (want load or save)", s)
}
