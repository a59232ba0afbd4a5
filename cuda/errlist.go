package cuda

import "strings"

// errorList is several errors on one line: errors.Join's, separated by
// "; " instead of newlines, so that kvctl prints each error as one line.
type errorList []error

// joinErrors joins the non-nil errs as errors.Join does, on one line; nil
// when all are nil.
func joinErrors(errs ...error) error {
	var l errorList
	for _, err := range errs {
		if err != nil {
			l = append(l, err)
		}
	}
	if len(l) == 0 {
		return nil
	}
	return l
}

// Error joins the errors' texts with "; ".
func (l errorList) Error() string {
	s := make([]string, len(l))
	for i, err := range l {
		s[i] = err.Error()
	}
	return strings.Join(s, "; ")
}

// Unwrap returns the errors, for errors.Is and errors.As.
func (l errorList) Unwrap() []error { return l }
