// @ts-check
/** The wire: the protocol version this front end speaks and the checks on the synced cards. */

/** @import { Card, CardState } from "./types.js" */

export const PROTOCOL_VERSION = 2;

/**
 * The kernel syncs `cards` as the JSON text of `{rev, cards}`; a plain list (text or not) is
 * taken as revision 0.
 * @param {unknown} raw
 * @returns {CardState}
 */
export function parseState(raw) {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      value = [];
    }
  }
  if (Array.isArray(value)) return { rev: 0, cards: value };
  if (value && typeof value === "object") {
    const { rev, cards } = /** @type {Record<string, unknown>} */ (value);
    if (Array.isArray(cards)) return { rev: Number.isInteger(rev) ? /** @type {number} */ (rev) : 0, cards };
  }
  return { rev: 0, cards: [] };
}

/**
 * @param {unknown} value
 * @returns {value is Card}
 */
export function isCard(value) {
  if (!value || typeof value !== "object") return false;
  const card = /** @type {Record<string, any>} */ (value);
  return (
    typeof card.key === "string" &&
    Array.isArray(card.questions) &&
    card.questions.length > 0 &&
    card.view !== null &&
    typeof card.view === "object" &&
    Array.isArray(card.view.detailHtml) &&
    typeof card.view.presentation?.kind === "string"
  );
}
