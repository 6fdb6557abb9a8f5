// @ts-check
/** The wire: the protocol version this front end speaks and the checks on the synced cards. */

/** @import { Card, CardState } from "./types.js" */

export const PROTOCOL_VERSION = 2;

/** @param {unknown} raw */
function parseJson(raw) {
  if (typeof raw !== "string") return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return [];
  }
}

/**
 * The kernel syncs `cards` as the JSON text of `{rev, cards, pages}` (the live cards and the
 * number of history pages); `{rev, cards}` (every card, no pages) and a plain list (revision 0)
 * are read too.
 * @param {unknown} raw
 * @returns {CardState}
 */
export function parseState(raw) {
  const value = parseJson(raw);
  if (Array.isArray(value)) return { rev: 0, cards: value, pages: 0 };
  if (value && typeof value === "object") {
    const { rev, cards, pages } = /** @type {Record<string, unknown>} */ (value);
    if (Array.isArray(cards)) {
      return {
        rev: Number.isInteger(rev) ? /** @type {number} */ (rev) : 0,
        cards,
        pages: Number.isInteger(pages) && /** @type {number} */ (pages) > 0 ? /** @type {number} */ (pages) : 0,
      };
    }
  }
  return { rev: 0, cards: [], pages: 0 };
}

/**
 * A history page: the JSON text of a list of settled cards.
 * @param {unknown} raw
 * @returns {unknown[]}
 */
export function parsePage(raw) {
  const value = parseJson(raw);
  return Array.isArray(value) ? value : [];
}

/**
 * Whether a card is live (a person can still answer it); the others are history.
 * @param {Card} card
 */
export function isLive(card) {
  return card.status === "pending" || card.status === "continued";
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
