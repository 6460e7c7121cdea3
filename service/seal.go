package service

import (
	"encoding/json"
	"sync"

	"github.com/hitlbot/hitl"
	"github.com/hitlbot/hitl/fault"
	"github.com/hitlbot/hitl/uid"
)

type sealedAnswer struct {
	Value any    `json:"v"`
	Text  string `json:"t,omitempty"`
}

// seal returns r with only the sealed form of its value and text, bound to
// question id.
func seal(s hitl.Sealer, id string, r hitl.Response) (hitl.Response, error) {
	plain, err := json.Marshal(sealedAnswer{Value: r.Value, Text: r.Text})
	if err != nil {
		return r, fault.Errorf(fault.EINVALID, "the answer cannot be encoded: %v", err)
	}
	data, err := s.Seal(plain, []byte(id))
	clear(plain)
	if err != nil {
		return r, fault.Errorf(fault.EINTERNAL, "sealing the answer: %v", err)
	}
	return hitl.Response{Type: r.Type, Sealed: &hitl.Sealed{Key: s.KeyID(), Data: data}}, nil
}

// unseal opens the sealed answer of question id. ok is false when it was
// sealed under another key (a previous run of the service).
func unseal(s hitl.Sealer, id string, r *hitl.Response) (out hitl.Response, ok bool) {
	if r == nil || r.Sealed == nil || r.Sealed.Key != s.KeyID() {
		return hitl.Response{}, false
	}
	plain, ok := s.Open(r.Sealed.Data, []byte(id))
	if !ok {
		return hitl.Response{}, false
	}
	var a sealedAnswer
	err := json.Unmarshal(plain, &a)
	clear(plain)
	if err != nil {
		return hitl.Response{}, false
	}
	return hitl.Response{Type: r.Type, Value: a.Value, Text: a.Text}, true
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
	return &memorySealer{id: uid.New("m"), kept: map[string]memorySealed{}}
}

func (m *memorySealer) KeyID() string { return m.id }

func (m *memorySealer) Seal(plain, bound []byte) ([]byte, error) {
	ref := uid.New("")
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
