// @ts-check
/**
 * A form's values while the person fills it in: the draft of every field (as its input holds
 * it), the checks the kernel makes again (docs/protocol.md), and the JSON object sent. The kernel
 * derives the typed fields from the JSON Schema, so nothing here reads JSON Schema itself.
 */

import { fill } from "../strings.js";

/**
 * @import { FormField, FormSchema } from "../types.js"
 * @import { Strings } from "../strings.js"
 */

/**
 * What each field's input holds: text for text, number, date and select inputs, a flag for a
 * checkbox, the chosen values of a checkbox group. `bad` names the inputs the browser could not
 * read (an incomplete date, letters in a number); `touched` those the person has changed.
 * @typedef {{values: Map<string, string | boolean | string[]>, given: Set<string>,
 *   touched: Set<string>, bad: Set<string>, attempted: boolean}} FormDraft
 */

const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const URI = /^[A-Za-z][A-Za-z0-9+.\-]*:[^\s]+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?$/;

/**
 * A draft per field: from `start` (a tool call's arguments) when given, else the defaults.
 * @param {FormSchema} schema
 * @param {Record<string, unknown> | null} start
 * @returns {FormDraft}
 */
export function formDraft(schema, start) {
  /** @type {FormDraft} */
  const draft = { values: new Map(), given: new Set(), touched: new Set(), bad: new Set(), attempted: false };
  for (const field of schema.fields) {
    const value = start ? (Object.hasOwn(start, field.name) ? start[field.name] : undefined) : field.default;
    const held = inputValue(field, value);
    if (value !== undefined && value !== null) draft.given.add(field.name);
    draft.values.set(field.name, held);
  }
  return draft;
}

/**
 * What a field's input shows for JSON `value` (empty when it does not fit the field).
 * @param {FormField} field
 * @param {unknown} value
 * @returns {string | boolean | string[]}
 */
function inputValue(field, value) {
  if (field.kind === "boolean") return value === true;
  if (field.kind === "multi-select") return Array.isArray(value) ? value.filter((item) => typeof item === "string") : [];
  if (field.kind === "number" || field.kind === "integer") return typeof value === "number" ? String(value) : "";
  if (typeof value !== "string") return "";
  return field.kind === "string" && field.format === "date-time" ? toLocalInput(value) : value;
}

/** @param {number} n */
const pad = (n) => String(n).padStart(2, "0");

/**
 * An RFC 3339 date-time as a `datetime-local` input shows it: in the person's time zone.
 * @param {string} value
 */
export function toLocalInput(value) {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return "";
  const seconds = date.getSeconds() ? `:${pad(date.getSeconds())}` : "";
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}${seconds}`;
}

/**
 * A `datetime-local` value as RFC 3339 with the person's time-zone offset (the kernel needs one).
 * @param {string} local
 */
export function fromLocalInput(local) {
  const match = LOCAL_DATE_TIME.exec(local);
  if (!match) return null;
  const [y, mo, d, hh, mm, ss = "00", fraction = ""] = match.slice(1);
  const date = new Date(Number(y), Number(mo) - 1, Number(d), Number(hh), Number(mm), Number(ss));
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? "-" : "+";
  const zone = `${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
  return `${y}-${mo}-${d}T${hh}:${mm}:${ss}${fraction}${zone}`;
}

/** @param {string} value */
function isDate(value) {
  const match = DATE.exec(value);
  if (!match) return false;
  const [y, m, d] = match.slice(1).map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/**
 * The pattern as a JavaScript regular expression; `null` when it uses syntax JavaScript lacks
 * (the kernel still checks it).
 * @param {string} pattern
 */
function compile(pattern) {
  for (const flags of ["u", ""]) {
    try {
      return new RegExp(pattern, flags);
    } catch {
      // try the next flags
    }
  }
  return null;
}

/**
 * Whether a field holds nothing (it is then left out of the values).
 * @param {FormField} field
 * @param {FormDraft} draft
 */
function isEmpty(field, draft) {
  const value = draft.values.get(field.name);
  if (field.kind === "boolean") return false;
  if (field.kind === "multi-select") return !Array.isArray(value) || value.length === 0;
  return value === "" && !draft.bad.has(field.name);
}

/**
 * What is wrong with one field, in the person's language; `null` when it is fine.
 * @param {FormField} field
 * @param {FormDraft} draft
 * @param {Strings} t
 */
export function fieldError(field, draft, t) {
  const value = draft.values.get(field.name);
  if (isEmpty(field, draft)) {
    if (field.kind === "multi-select" && field.required && (field.minItems ?? 1) > 0) {
      return fill(t.fewChoices, { count: Math.max(1, field.minItems ?? 1) });
    }
    return field.required && field.kind !== "multi-select" ? t.fieldRequired : null;
  }
  if (field.kind === "string" && typeof value === "string") {
    if (draft.bad.has(field.name)) return field.format === "date" ? t.badDate : t.badDateTime;
    const length = [...value].length;
    if (field.minLength !== undefined && length < field.minLength) return fill(t.tooShort, { count: field.minLength });
    if (field.maxLength !== undefined && length > field.maxLength) return fill(t.tooLong, { count: field.maxLength });
    const pattern = field.pattern === undefined ? null : compile(field.pattern);
    if (pattern && !pattern.test(value)) return fill(t.patternMismatch, { pattern: field.pattern ?? "" });
    if (field.format === "email" && !EMAIL.test(value)) return t.badEmail;
    if (field.format === "uri" && !URI.test(value)) return t.badUrl;
    if (field.format === "date" && !isDate(value)) return t.badDate;
    if (field.format === "date-time" && fromLocalInput(value) === null) return t.badDateTime;
    return null;
  }
  if ((field.kind === "number" || field.kind === "integer") && typeof value === "string") {
    const number = Number(value);
    if (draft.bad.has(field.name) || value.trim() === "" || !Number.isFinite(number)) return t.badNumber;
    if (field.kind === "integer" && !Number.isInteger(number)) return t.badInteger;
    if (field.minimum !== undefined && number < field.minimum) return fill(t.tooSmall, { min: field.minimum });
    if (field.maximum !== undefined && number > field.maximum) return fill(t.tooBig, { max: field.maximum });
    return null;
  }
  if (field.kind === "select") {
    return field.options.some((option) => option.value === value) ? null : t.chooseOption;
  }
  if (field.kind === "multi-select" && Array.isArray(value)) {
    if (field.minItems !== undefined && value.length < field.minItems) return fill(t.fewChoices, { count: field.minItems });
    if (field.maxItems !== undefined && value.length > field.maxItems) return fill(t.manyChoices, { count: field.maxItems });
  }
  return null;
}

/**
 * Every field's error, by field name.
 * @param {FormSchema} schema
 * @param {FormDraft} draft
 * @param {Strings} t
 * @returns {Map<string, string>}
 */
export function formErrors(schema, draft, t) {
  const errors = new Map();
  for (const field of schema.fields) {
    const error = fieldError(field, draft, t);
    if (error !== null) errors.set(field.name, error);
  }
  return errors;
}

/**
 * The JSON object of the values (call only when `formErrors` is empty). Empty fields are left
 * out; an untouched checkbox is left out only when `omitUnset` (an edited tool call keeps the
 * arguments it was proposed with). `base` keeps the entries no field shows.
 * @param {FormSchema} schema
 * @param {FormDraft} draft
 * @param {{base?: Record<string, unknown>, omitUnset?: boolean}} [options]
 * @returns {Record<string, unknown>}
 */
export function formValues(schema, draft, options = {}) {
  /** @type {Record<string, unknown>} no prototype: a field may be called `__proto__` */
  const values = Object.create(null);
  const shown = new Set(schema.fields.map((field) => field.name));
  for (const [name, value] of Object.entries(options.base ?? {})) if (!shown.has(name)) values[name] = value;
  for (const field of schema.fields) {
    const value = draft.values.get(field.name);
    if (isEmpty(field, draft) && !(field.kind === "multi-select" && field.required)) continue;
    if (field.kind === "boolean") {
      const unset = !field.required && !draft.given.has(field.name) && !draft.touched.has(field.name);
      if (!(options.omitUnset && unset)) values[field.name] = value === true;
    } else if (field.kind === "number" || field.kind === "integer") values[field.name] = Number(value);
    else if (field.kind === "string" && field.format === "date-time") values[field.name] = fromLocalInput(String(value));
    else if (field.kind === "multi-select" && Array.isArray(value)) {
      values[field.name] = field.options.map((option) => option.value).filter((item) => value.includes(item));
    } else values[field.name] = value;
  }
  return values;
}
