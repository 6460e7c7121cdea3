package storetest

import "testing"

func TestWhole(t *testing.T) {
	for _, tc := range []struct {
		name, run, skip string
		want            bool
	}{
		{"TestStoreContract/QuestionStore", "", "", true},                                       // no filter
		{"TestStoreContract/QuestionStore", "TestStoreContract", "", true},                      // the whole test
		{"TestStoreContract/QuestionStore", "Contract/QuestionStore", "", true},                 // the part itself
		{"TestStoreContract/QuestionStore", "Contract/QuestionStore/paging", "", false},         // one test of the part
		{"TestOutboxContract", "TestOutboxContract", "", true},                                  // a part run by a test
		{"TestOutboxContract", "TestOutboxContract/a_new_outbox", "", false},                    // one of its tests
		{"TestStoreContract/QuestionStore", "TestStoreContract", "QuestionStore/paging", false}, // a skip
		{"TestStoreContract/QuestionStore", "Contract/[/]", "", false},                          // a '/' in brackets: not checked
	} {
		if got := whole(tc.name, tc.run, tc.skip); got != tc.want {
			t.Errorf("whole(%q, -run %q, -skip %q) = %v, want %v", tc.name, tc.run, tc.skip, got, tc.want)
		}
	}
}
