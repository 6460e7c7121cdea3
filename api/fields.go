package api

import (
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hitlbot/hitl/fault"
)

// checkFields checks a decoded JSON document (objects as map[string]any,
// numbers as json.Number) against t, the type it will be decoded into.
// encoding/json matches object keys case-insensitively, so {"Question": …}
// would be taken for "question" and a typo in another key's case would
// pass silently; here every key must be exactly the json name of a field,
// in nested structs, pointers, slices and map values too. Maps take any
// key; fields of type any or json.RawMessage are not looked into, but for
// numbers. Types with their own UnmarshalJSON (hitl.Option) still get their
// declared fields checked. Every number must be finite as a float64.
func checkFields(doc any, t reflect.Type) error {
	return checkValue(doc, t, "")
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

func checkValue(v any, t reflect.Type, path string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessageType {
		return nil
	}
	switch v := v.(type) {
	case json.Number:
		return checkNumber(v, path)
	case []any:
		var elem reflect.Type // any, or not an array: numbers only
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i, e := range v {
			if err := checkValue(e, elem, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case map[string]any:
		var fields map[string]reflect.Type
		if t != nil && t.Kind() == reflect.Struct {
			fields = jsonFields(t)
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			var ft reflect.Type
			switch {
			case fields != nil:
				var ok bool
				if ft, ok = fields[k]; !ok {
					return unknownField(k, path, fields)
				}
			case t != nil && t.Kind() == reflect.Map:
				ft = t.Elem()
			}
			if err := checkValue(v[k], ft, join(path, k)); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkNumber refuses a number float64 cannot hold (1e999), which
// encoding/json would report as a type error.
func checkNumber(n json.Number, path string) error {
	if _, err := strconv.ParseFloat(string(n), 64); errors.Is(err, strconv.ErrRange) {
		if path == "" {
			path = "the request body"
		}
		return fault.Errorf(fault.EINVALID, "%s: %s is out of range: send a number a float64 holds (at most about 1.8e308)", path, n)
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// unknownField explains a key that names no field: the right spelling
// when only its case is wrong, else the fields there are.
func unknownField(key, path string, fields map[string]reflect.Type) error {
	where := "the request body"
	if path != "" {
		where = path
	}
	names := slices.Sorted(maps.Keys(fields))
	for _, name := range names {
		if strings.EqualFold(name, key) {
			return fault.Errorf(fault.EINVALID, "unknown field %q in %s: did you mean %q? (field names are case-sensitive)", key, where, name)
		}
	}
	return fault.Errorf(fault.EINVALID, "unknown field %q in %s: use %s", key, where, strings.Join(names, ", "))
}

var fieldCache sync.Map // reflect.Type → map[string]reflect.Type

// jsonFields returns the json names of struct type t's fields and their
// types, with the fields of embedded structs promoted as encoding/json
// does (a name at a shallower depth wins).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]reflect.Type)
	}
	m := map[string]reflect.Type{}
	collectFields(t, m, map[reflect.Type]bool{})
	fieldCache.Store(t, m)
	return m
}

func collectFields(t reflect.Type, m map[string]reflect.Type, seen map[reflect.Type]bool) {
	if seen[t] {
		return
	}
	seen[t] = true
	var embedded []reflect.Type
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embedded = append(embedded, ft)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
	}
	for _, et := range embedded {
		inner := map[string]reflect.Type{}
		collectFields(et, inner, seen)
		for name, ft := range inner {
			if _, ok := m[name]; !ok {
				m[name] = ft
			}
		}
	}
}
