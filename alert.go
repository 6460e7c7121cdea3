package hitl

import (
	"time"
)

// AlertState says whether an alert event starts or clears an alert.
type AlertState string

const (
	AlertStarted AlertState = "started"
	AlertCleared AlertState = "cleared"
)

// Alert is an alert that started (and is active until it clears) or
// cleared. Message says why, for people.
type Alert struct {
	Name    string     `json:"name"`
	State   AlertState `json:"state"`
	Since   time.Time  `json:"since"` // when it started
	At      time.Time  `json:"at"`    // when this state began
	Message string     `json:"message"`
}

// Tally counts the questions of one type settled in the alert window.
type Tally struct {
	Settled  int `json:"settled"`
	TimedOut int `json:"timedOut"`
}
