package hitl

import "github.com/hitlbot/hitl/steer"

// Checkpoint is what an agent learns at an iteration boundary.
type Checkpoint struct {
	RunID  string          `json:"runId"`
	Status steer.RunStatus `json:"status"`
	// Model is the model to use now; NewModel is set once, at the first
	// checkpoint after an escalation.
	Model    string `json:"model,omitempty"`
	NewModel string `json:"newModel,omitempty"`
	// Instruction is a redirect, handed over once.
	Instruction string `json:"instruction,omitempty"`
	Reason      string `json:"reason,omitempty"`
	// Threshold is the run's interaction threshold, when one applies.
	Threshold *int `json:"interactionThreshold,omitempty"`
	// Version is the run record's version after the checkpoint: WaitRun
	// past it to learn of the next change.
	Version uint64 `json:"version"`
}
