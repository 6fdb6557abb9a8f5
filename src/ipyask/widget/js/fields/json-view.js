// @ts-check
/**
 * JSON shown as readable, highlighted text: keys, strings, numbers and literals as text nodes in
 * their own spans (never HTML), indented two spaces. Long strings and large nested values start
 * collapsed, each with a button that expands it; `expanded` holds the paths the person opened.
 */

import { h } from "../dom.js";
import { fill } from "../strings.js";

/** @import { Strings } from "../strings.js" */

/** Strings longer than this start shortened to their first `STRING_SHOWN` characters. */
const STRING_LIMIT = 160;
const STRING_SHOWN = 100;
/** Nested arrays and objects whose JSON text is longer than this start collapsed. */
const CONTAINER_LIMIT = 400;

/**
 * @param {unknown} value
 * @param {Set<string>} expanded paths (child indices joined by ".") the person expanded
 * @param {Strings} t
 * @param {boolean} busy
 */
export function jsonView(value, expanded, t, busy) {
  const code = h("code", { class: "ipyask-json" });
  write(code, value, "", 0, { expanded, t, busy });
  return code;
}

/**
 * @typedef {{expanded: Set<string>, t: Strings, busy: boolean}} Context
 */

/**
 * @param {string} kind
 * @param {string} text
 */
const token = (kind, text) => h("span", { class: `ipyask-json__${kind}` }, text);

/**
 * @param {HTMLElement} out
 * @param {unknown} value
 * @param {string} path
 * @param {number} depth
 * @param {Context} context
 */
function write(out, value, path, depth, context) {
  if (value === null || value === undefined) out.append(token("null", "null"));
  else if (typeof value === "boolean") out.append(token("literal", String(value)));
  else if (typeof value === "number") out.append(token("number", JSON.stringify(value)));
  else if (typeof value === "string") writeString(out, value, path, context);
  else if (Array.isArray(value)) writeContainer(out, value, value.map((item) => [null, item]), path, depth, context);
  else if (typeof value === "object") writeContainer(out, value, Object.entries(value), path, depth, context);
  else out.append(token("string", JSON.stringify(String(value))));
}

/**
 * @param {HTMLElement} out
 * @param {string} value
 * @param {string} path
 * @param {Context} context
 */
function writeString(out, value, path, context) {
  const text = JSON.stringify(value);
  const chars = [...value];
  if (chars.length <= STRING_LIMIT) {
    out.append(token("string", text));
    return;
  }
  const open = context.expanded.has(path);
  const shown = open ? text : `${JSON.stringify(chars.slice(0, STRING_SHOWN).join("")).slice(0, -1)}…"`;
  out.append(
    token("string", shown),
    " ",
    toggle(path, open, open ? context.t.showLess : fill(context.t.showAllCharacters, { count: chars.length.toLocaleString() }), context),
  );
}

/**
 * @param {HTMLElement} out
 * @param {object} value
 * @param {[string | null, unknown][]} entries keys are `null` in an array
 * @param {string} path
 * @param {number} depth
 * @param {Context} context
 */
function writeContainer(out, value, entries, path, depth, context) {
  const [opener, closer] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
  if (entries.length === 0) {
    out.append(`${opener}${closer}`);
    return;
  }
  const large = depth > 0 && JSON.stringify(value).length > CONTAINER_LIMIT;
  const open = !large || context.expanded.has(path);
  if (!open) {
    out.append(`${opener}…${closer} `, toggle(path, false, fill(context.t.showItems, { count: entries.length }), context));
    return;
  }
  const pad = "  ".repeat(depth + 1);
  out.append(opener);
  if (large) out.append(" ", toggle(path, true, context.t.showLess, context));
  entries.forEach(([key, item], i) => {
    out.append(`\n${pad}`);
    if (key !== null) out.append(token("key", JSON.stringify(key)), ": ");
    write(out, item, path === "" ? String(i) : `${path}.${i}`, depth + 1, context);
    if (i < entries.length - 1) out.append(",");
  });
  out.append(`\n${"  ".repeat(depth)}${closer}`);
}

/**
 * @param {string} path
 * @param {boolean} open
 * @param {string} label
 * @param {Context} context
 */
function toggle(path, open, label, context) {
  return h(
    "button",
    {
      type: "button",
      class: "ipyask-json__toggle",
      "aria-expanded": String(open),
      "data-action": "json-toggle",
      "data-path": path,
      "data-focus": `json-${path}`,
      disabled: context.busy,
    },
    label,
  );
}
