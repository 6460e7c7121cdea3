package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/hitlbot/hitl/fault"
)

// decodeBody reads one JSON object from the request body into v. The body
// is limited to max bytes (too_large beyond), every key must be exactly a
// field's json name (invalid, naming the key; see checkFields), and an
// empty body is refused when required. A server without tokens has
// already refused bodies that are not Content-Type: application/json
// (checkLoopback); with tokens, agents send what they send.
func decodeBody(w http.ResponseWriter, r *http.Request, max int64, v any, required bool) error {
	r.Body = http.MaxBytesReader(w, r.Body, max)
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return bodyError(err, max)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			if required {
				return fault.Errorf(fault.EINVALID, "a JSON request body is required")
			}
			return nil
		}
		return bodyError(err, max)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return bodyError(err, max)
		}
		return fault.Errorf(fault.EINVALID, "the request body must hold a single JSON object")
	}
	if err := checkFields(doc, reflect.TypeOf(v)); err != nil {
		return err
	}
	strict := json.NewDecoder(bytes.NewReader(b))
	strict.DisallowUnknownFields()
	if err := strict.Decode(v); err != nil {
		return bodyError(err, max)
	}
	return nil
}

// bodyError explains a decoding error in terms the sender can act on.
func bodyError(err error, max int64) error {
	var he *fault.Error
	var tooLarge *http.MaxBytesError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &he):
		return he
	case errors.As(err, &tooLarge):
		return fault.Errorf(fault.ETOOLARGE, "the request body is larger than %d bytes", max)
	case errors.As(err, &syntax):
		return fault.Errorf(fault.EINVALID, "the request body is not valid JSON (at byte %d): %s", syntax.Offset, syntax.Error())
	case errors.As(err, &typ):
		if typ.Field == "" {
			return fault.Errorf(fault.EINVALID, "the request body must be a JSON object, not %s", typ.Value)
		}
		return fault.Errorf(fault.EINVALID, "field %q must be %s, not %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fault.Errorf(fault.EINVALID, "the request body is truncated JSON")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fault.Errorf(fault.EINVALID, "unknown field %s in the request body", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return fault.Errorf(fault.EINVALID, "the request body is invalid: %s", strings.TrimPrefix(err.Error(), "json: "))
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	case "float64", "float32", "int", "int64":
		return "a number"
	}
	return fmt.Sprintf("a %s", goKind)
}

// writeJSON writes v as the JSON response body with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
