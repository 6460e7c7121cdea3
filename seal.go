package hitl

// Sealed is a sensitive answer as the store holds it: sealed under a key
// that is never written to the database. Key names that key, so that a
// service holding another key (after a restart) knows the answer is lost
// and asks again, rather than failing to open it.
type Sealed struct {
	Key  string `json:"key"`
	Data []byte `json:"data"`
}

// Sealer keeps sensitive answers out of the store's clear text: it seals
// an answer, bound to its question, and opens what it sealed. Package
// seal is the cipher (AES-256-GCM, a key made at start or a key file
// replicas share).
type Sealer interface {
	// KeyID names the key: an answer sealed under another cannot be
	// opened.
	KeyID() string
	// Seal returns plain sealed and bound to bound.
	Seal(plain, bound []byte) ([]byte, error)
	// Open returns what Seal sealed with bound; false when it cannot.
	// It may be called more than once for the same data.
	Open(data, bound []byte) ([]byte, bool)
}
