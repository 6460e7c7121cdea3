package hitl

import "github.com/hitlbot/hitl/fault"

// ListOrder names the order a question list is read in, as the edges
// take it (the API's ?order=, `hitl pending --order`).
type ListOrder string

const (
	// OrderCreated is creation order, oldest first: every list's default.
	OrderCreated ListOrder = "created"
	// OrderDeadline lists pending questions only, soonest deadline first,
	// those that never time out last (QuestionFilter.ByDeadline).
	OrderDeadline ListOrder = "deadline"
)

// OrderBy sets the order f is read in: "" or created, or deadline. A list
// by deadline holds pending questions only, so deadline with a status
// other than pending is EINVALID, as is an order of another name.
func (f *QuestionFilter) OrderBy(o ListOrder) error {
	switch o {
	case "", OrderCreated:
		f.ByDeadline = false
	case OrderDeadline:
		if f.Status != "" && f.Status != StatusPending {
			return fault.Errorf(fault.EINVALID, "order %s lists pending questions only: drop status %s, or use order %s", OrderDeadline, f.Status, OrderCreated)
		}
		f.ByDeadline = true
	default:
		return fault.Errorf(fault.EINVALID, "order %q is invalid: use %s (the default) or %s", string(o), OrderCreated, OrderDeadline)
	}
	return nil
}
