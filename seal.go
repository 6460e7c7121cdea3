package hitl

import (
	"encoding/json"
	"sync"
)

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

type sealedAnswer struct {
	Value any    `json:"v"`
	Text  string `json:"t,omitempty"`
}

// seal returns r with only the sealed form of its value and text, bound to
// question id.
func seal(s Sealer, id string, r Response) (Response, error) {
	plain, err := json.Marshal(sealedAnswer{Value: r.Value, Text: r.Text})
	if err != nil {
		return r, Errorf(EINVALID, "the answer cannot be encoded: %v", err)
	}
	data, err := s.Seal(plain, []byte(id))
	clear(plain)
	if err != nil {
		return r, Errorf(EINTERNAL, "sealing the answer: %v", err)
	}
	return Response{Type: r.Type, Sealed: &Sealed{Key: s.KeyID(), Data: data}}, nil
}

// unseal opens the sealed answer of question id. ok is false when it was
// sealed under another key (a previous run of the service).
func unseal(s Sealer, id string, r *Response) (out Response, ok bool) {
	if r == nil || r.Sealed == nil || r.Sealed.Key != s.KeyID() {
		return Response{}, false
	}
	plain, ok := s.Open(r.Sealed.Data, []byte(id))
	if !ok {
		return Response{}, false
	}
	var a sealedAnswer
	err := json.Unmarshal(plain, &a)
	clear(plain)
	if err != nil {
		return Response{}, false
	}
	return Response{Type: r.Type, Value: a.Value, Text: a.Text}, true
}

// memorySealer is the Sealer of a service given none: it keeps each
// sealed answer in this process's memory and stores only a reference, so
// the store never holds the secret and a restart loses it (people are
// asked again). It keeps what it sealed until the process ends (an open
// inside a transaction that is retried must find it again), so a service
// that runs long is given a seal.Cipher instead, as hitl serve does.
type memorySealer struct {
	id   string
	mu   sync.Mutex
	kept map[string]memorySealed
}

type memorySealed struct {
	plain, bound []byte
}

func newMemorySealer() *memorySealer {
	return &memorySealer{id: NewID("m"), kept: map[string]memorySealed{}}
}

func (m *memorySealer) KeyID() string { return m.id }

func (m *memorySealer) Seal(plain, bound []byte) ([]byte, error) {
	ref := NewID("")
	m.mu.Lock()
	m.kept[ref] = memorySealed{plain: append([]byte(nil), plain...), bound: append([]byte(nil), bound...)}
	m.mu.Unlock()
	return []byte(ref), nil
}

func (m *memorySealer) Open(data, bound []byte) ([]byte, bool) {
	m.mu.Lock()
	s, ok := m.kept[string(data)]
	m.mu.Unlock()
	if !ok || string(s.bound) != string(bound) {
		return nil, false
	}
	return append([]byte(nil), s.plain...), true
}
