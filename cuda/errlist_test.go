package cuda

import (
	"errors"
	"io"
	"os"
	"testing"
)

func TestJoinErrors(t *testing.T) {
	tests := []struct {
		errs []error
		want string
	}{
		{[]error{errors.New("a"), nil, errors.New("b")}, "a; b"},
		{[]error{ErrNoDriver, io.EOF}, ErrNoDriver.Error() + "; EOF"},
	}
	for _, tt := range tests {
		if got := joinErrors(tt.errs...).Error(); got != tt.want {
			t.Errorf("joinErrors(%q) = %q, want %q", tt.errs, got, tt.want)
		}
	}
	if err := joinErrors(nil, nil); err != nil {
		t.Errorf("joinErrors(nil, nil) = %v, want nil", err)
	}
	err := joinErrors(os.ErrNotExist, ErrNoDriver)
	if !errors.Is(err, ErrNoDriver) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("joinErrors(%v, %v) does not wrap both", os.ErrNotExist, ErrNoDriver)
	}
}
