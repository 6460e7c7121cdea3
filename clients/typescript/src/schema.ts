// A small JSON Schema check for edited tool arguments: the keywords tool
// schemas use (type, properties, required, additionalProperties, items,
// enum, const, bounds, anyOf/oneOf/allOf, $ref to local $defs). Unknown
// keywords are ignored, so a schema never refuses what it does not model.

export type JSONSchema = { [k: string]: unknown } | boolean;

/** The problems of value under schema ([] when it conforms). */
export function validateSchema(schema: JSONSchema, value: unknown): string[] {
  const errs: string[] = [];
  check(schema, value, "", errs, typeof schema === "object" ? schema : {});
  return errs;
}

function typeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function at(path: string): string {
  return path === "" ? "the input" : path;
}

function check(s: JSONSchema, v: unknown, path: string, errs: string[], root: { [k: string]: unknown }): void {
  if (s === true || s === undefined) return;
  if (s === false) { errs.push(`${at(path)} is not allowed`); return; }
  if (typeof s.$ref === "string") {
    const m = /^#\/(\$defs|definitions)\/(.+)$/.exec(s.$ref);
    const target = m ? (root[m[1]] as Record<string, JSONSchema> | undefined)?.[m[2]] : s.$ref === "#" ? root : undefined;
    if (target !== undefined) check(target, v, path, errs, root);
  }
  const t = typeOf(v);
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    const ok = types.some((x) => x === t || (x === "number" && t === "integer"));
    if (!ok) { errs.push(`${at(path)} must be ${types.join(" or ")}, not ${t}`); return; }
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    errs.push(`${at(path)} must be one of ${s.enum.map((e) => JSON.stringify(e)).join(", ")}`);
  }
  if ("const" in s && JSON.stringify(s.const) !== JSON.stringify(v)) errs.push(`${at(path)} must be ${JSON.stringify(s.const)}`);
  if (typeof v === "string") {
    if (typeof s.minLength === "number" && v.length < s.minLength) errs.push(`${at(path)} must be at least ${s.minLength} characters`);
    if (typeof s.maxLength === "number" && v.length > s.maxLength) errs.push(`${at(path)} must be at most ${s.maxLength} characters`);
    if (typeof s.pattern === "string") {
      try { if (!new RegExp(s.pattern, "u").test(v)) errs.push(`${at(path)} must match ${s.pattern}`); } catch { /* a pattern JS cannot read: not checked */ }
    }
  }
  if (typeof v === "number") {
    if (typeof s.minimum === "number" && v < s.minimum) errs.push(`${at(path)} must be ≥ ${s.minimum}`);
    if (typeof s.maximum === "number" && v > s.maximum) errs.push(`${at(path)} must be ≤ ${s.maximum}`);
    if (typeof s.exclusiveMinimum === "number" && v <= s.exclusiveMinimum) errs.push(`${at(path)} must be > ${s.exclusiveMinimum}`);
    if (typeof s.exclusiveMaximum === "number" && v >= s.exclusiveMaximum) errs.push(`${at(path)} must be < ${s.exclusiveMaximum}`);
  }
  if (t === "object") {
    const o = v as Record<string, unknown>;
    const props = (s.properties ?? {}) as Record<string, JSONSchema>;
    if (Array.isArray(s.required)) {
      for (const r of s.required as string[]) if (!(r in o)) errs.push(`${path ? path + "." : ""}${r} is required`);
    }
    for (const [k, val] of Object.entries(o)) {
      const p = path ? `${path}.${k}` : k;
      if (k in props) check(props[k], val, p, errs, root);
      else if (s.additionalProperties === false) errs.push(`${p} is not one of the tool's arguments`);
      else if (typeof s.additionalProperties === "object") check(s.additionalProperties as JSONSchema, val, p, errs, root);
    }
  }
  if (t === "array" && s.items !== undefined && !Array.isArray(s.items)) {
    (v as unknown[]).forEach((x, i) => check(s.items as JSONSchema, x, `${path}[${i}]`, errs, root));
  }
  if (Array.isArray(s.allOf)) for (const sub of s.allOf as JSONSchema[]) check(sub, v, path, errs, root);
  for (const key of ["anyOf", "oneOf"] as const) {
    const alts = s[key];
    if (Array.isArray(alts) && !alts.some((sub: JSONSchema) => validateSchema(sub === true || sub === false ? sub : { ...root, ...sub }, v).length === 0)) {
      errs.push(`${at(path)} matches none of the allowed shapes`);
    }
  }
}
