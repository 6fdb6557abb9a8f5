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

/** @param {unknown} value */
const count = (value) => (Number.isInteger(value) && /** @type {number} */ (value) > 0 ? /** @type {number} */ (value) : 0);

/**
 * The kernel syncs `cards` as the JSON text of `{rev, live, pages}` (the numbers of live and of
 * history pages, the cards being in those pages); `{rev, cards, pages}` (the live cards in
 * `cards`), `{rev, cards}` (every card, no pages) and a plain list (revision 0) are read too.
 * @param {unknown} raw
 * @returns {CardState}
 */
export function parseState(raw) {
  const value = parseJson(raw);
  if (Array.isArray(value)) return { rev: 0, cards: value, live: 0, pages: 0 };
  if (value && typeof value === "object") {
    const { rev, cards, live, pages } = /** @type {Record<string, unknown>} */ (value);
    if (Array.isArray(cards) || Number.isInteger(live)) {
      return {
        rev: Number.isInteger(rev) ? /** @type {number} */ (rev) : 0,
        cards: Array.isArray(cards) ? cards : [],
        live: count(live),
        pages: count(pages),
      };
    }
  }
  return { rev: 0, cards: [], live: 0, pages: 0 };
}

/**
 * A page (live or history): the JSON text of a list of cards.
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
