package itick_test

import (
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/d19c4e34/itick"
)

// ignoreEvidence leaves Body and Header out of a comparison of errors;
// evidence_test.go checks them.
var ignoreEvidence = cmpopts.IgnoreFields(itick.APIError{}, "Body", "Header")
