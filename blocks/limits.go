package blocks

import "unicode/utf16"

// Slack's Block Kit limits. Every renderer in this package stays within them
// (long text is cut with a visible marker); the bot can reuse them for what
// it builds itself. Lengths are counted with Len.
const (
	MaxMessageBlocks   = 50    // blocks in a message
	MaxViewBlocks      = 100   // blocks in a modal or a Home tab
	MaxMessageText     = 40000 // top-level text of a message (Slack truncates beyond)
	MaxFallbackText    = 3000  // our own cap on the top-level text
	MaxTextObject      = 3000  // any text object, e.g. a context element
	MaxSectionText     = 3000  // section text
	MaxSectionField    = 2000  // one section field
	MaxSectionFields   = 10    // section fields
	MaxHeaderText      = 150   // header block text
	MaxButtonText      = 75    // button text
	MaxButtonValue     = 2000  // button value
	MaxActionID        = 255   // action_id, unique within its block
	MaxBlockID         = 255   // block_id, unique within its message or view
	MaxCallbackID      = 255   // a view's callback_id
	MaxActionsElements = 25    // elements in an actions block
	MaxContextElements = 10    // elements in a context block
	MaxSelectOptions   = 100   // options of a static_select
	MaxOptionText      = 75    // option text
	MaxOptionValue     = 150   // option value
	MaxOptionDesc      = 75    // option description
	MaxPlaceholder     = 150   // placeholder of an input or a select
	MaxInputLabel      = 2000  // input block label
	MaxInputHint       = 2000  // input block hint
	MaxInputLength     = 3000  // max_length of a plain_text_input
	MaxModalTitle      = 24    // modal title
	MaxModalButton     = 24    // modal submit and close texts
	MaxPrivateMetadata = 3000  // a view's private_metadata

	// MaxButtonChoices is the most options a choice question shows as
	// buttons; more become a static_select.
	MaxButtonChoices = 5
	// MaxQuestionIDLen bounds a question id so that "q:<id>" fits a
	// block_id. Longer ids (hitl's are 18 characters) get no inputs.
	MaxQuestionIDLen = MaxBlockID - len(blockIDPrefix)
)

// Len is the length of s as this package counts it against Slack's limits:
// UTF-16 code units. That is never less than the number of characters (code
// points), so a string within a limit by Len is within it whichever way Slack
// counts.
func Len(s string) int {
	n := 0
	for _, r := range s {
		n += runeLen(r)
	}
	return n
}

// runeLen is Len for one rune; invalid runes count as 1 (they are sent as
// U+FFFD).
func runeLen(r rune) int {
	if n := utf16.RuneLen(r); n > 0 {
		return n
	}
	return 1
}
