package hitl

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
)

// Sealed is a sensitive answer encrypted with AES-256-GCM under a key that
// exists only in the memory of the running service. Key names that key, so
// that after a restart (a new key) the service knows the answer is lost
// and asks again, rather than failing to open it.
type Sealed struct {
	Key  string `json:"key"`
	Data []byte `json:"data"` // nonce ‖ ciphertext
}

// sealer seals and opens sensitive answers. Its key is made at start and
// never written anywhere, so neither live records nor freed pages of the
// database ever hold a secret in the clear.
type sealer struct {
	aead  cipher.AEAD
	keyID string
}

func newSealer() *sealer {
	key := make([]byte, 32)
	id := make([]byte, 8)
	_, _ = rand.Read(key) // crypto/rand never fails on supported platforms
	_, _ = rand.Read(id)
	block, err := aes.NewCipher(key)
	if err != nil {
		panic("hitl: AES-256 key rejected: " + err.Error())
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		panic("hitl: GCM: " + err.Error())
	}
	return &sealer{aead: aead, keyID: hex.EncodeToString(id)}
}

type sealedAnswer struct {
	Value any    `json:"v"`
	Text  string `json:"t,omitempty"`
}

// seal encrypts r's value and text, bound to question id, and returns r
// with only the sealed form.
func (s *sealer) seal(id string, r Response) (Response, error) {
	plain, err := json.Marshal(sealedAnswer{Value: r.Value, Text: r.Text})
	if err != nil {
		return r, Errorf(EINVALID, "the answer cannot be encoded: %v", err)
	}
	nonce := make([]byte, s.aead.NonceSize())
	_, _ = rand.Read(nonce)
	data := s.aead.Seal(nonce, nonce, plain, []byte(id))
	clear(plain)
	return Response{Type: r.Type, Sealed: &Sealed{Key: s.keyID, Data: data}}, nil
}

// open decrypts a sealed answer of question id. ok is false when it was
// sealed under another key (a previous run of the service).
func (s *sealer) open(id string, r *Response) (out Response, ok bool) {
	if r == nil || r.Sealed == nil || r.Sealed.Key != s.keyID {
		return Response{}, false
	}
	n := s.aead.NonceSize()
	if len(r.Sealed.Data) < n {
		return Response{}, false
	}
	plain, err := s.aead.Open(nil, r.Sealed.Data[:n], r.Sealed.Data[n:], []byte(id))
	if err != nil {
		return Response{}, false
	}
	var a sealedAnswer
	if json.Unmarshal(plain, &a) != nil {
		return Response{}, false
	}
	clear(plain)
	return Response{Type: r.Type, Value: a.Value, Text: a.Text}, true
}
