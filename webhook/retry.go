package webhook

import "time"

// Schedule is the wait before each retry of a failed delivery: Svix's
// published schedule. A delivery is sent once, then retried after each
// of these (with jitter), then given up: 8 attempts over about 27.6 h.
var Schedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// JitterShare is how far a wait may move either way: ±10 %.
const JitterShare = 0.1

// Retry returns when a delivery that has failed attempts times (1 after
// its first failure) is due again, at now with jitter j in [0, 1): the
// wait of Schedule moved by up to JitterShare either way. ok is false
// once the schedule is over: the delivery has failed.
func Retry(attempts int, now time.Time, j float64) (next time.Time, ok bool) {
	if attempts < 1 || attempts > len(Schedule) {
		return time.Time{}, false
	}
	wait := Schedule[attempts-1]
	shift := time.Duration((2*j - 1) * JitterShare * float64(wait))
	return now.Add(wait + shift), true
}
