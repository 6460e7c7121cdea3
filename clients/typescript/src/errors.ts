// The error type lives in core/errors.ts; this path stays for the adapters
// and for code that imported it from here.
export { HitlError, errorCode, codeOfStatus } from "./core/errors.js";
