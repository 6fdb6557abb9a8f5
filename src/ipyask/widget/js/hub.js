// @ts-check
/**
 * One hub per model: the custom-message listener lives here (registered in `initialize`), so
 * frames and card changes that arrive before a view renders are kept. A `cards` message carries a
 * change before the state does: the hub applies it over any state of a lower `rev` and drops it
 * once the state reaches that `rev`.
 */

import { PROTOCOL_VERSION, isCard, parseState } from "./protocol.js";

/**
 * @import { Anchor, CardChange, CardState, Model, Refusal } from "./types.js"
 * @import { View } from "./view.js"
 */

export class Hub {
  /** @param {Model} model */
  constructor(model) {
    this.model = model;
    /** @type {Map<string, Anchor>} frames anchored to this page's clock */
    this.frames = new Map();
    /** @type {Set<View>} */
    this.views = new Set();
    /** @type {CardState} the synced `cards` state */
    this.state = parseState(model.get("cards"));
    /** @type {CardChange[]} `cards` messages newer than the state, in `rev` order */
    this.changes = [];
    /** @type {unknown[] | null} the state with the changes applied (cached) */
    this.merged = null;
    this.listening = false;
    this.onMessage = (/** @type {unknown} */ message) => this.receive(message);
    this.onState = () => this.stateChanged();
  }

  listen() {
    if (this.listening) return;
    this.model.on("msg:custom", this.onMessage);
    this.model.on("change:cards", this.onState);
    this.listening = true;
    this.readState(); // the state may have changed while nothing listened
  }

  unlisten() {
    if (!this.listening) return;
    this.model.off("msg:custom", this.onMessage);
    this.model.off("change:cards", this.onState);
    this.listening = false;
  }

  readState() {
    this.state = parseState(this.model.get("cards"));
    const rev = this.state.rev;
    this.changes = this.changes.filter((change) => change.rev > rev);
    this.merged = null;
  }

  stateChanged() {
    this.readState();
    this.cardsChanged();
  }

  /** @param {CardChange} change */
  applyChange(change) {
    if (change.rev <= this.state.rev || this.changes.some((known) => known.rev === change.rev)) return;
    this.changes.push(change);
    this.changes.sort((a, b) => a.rev - b.rev);
    this.cardsChanged();
  }

  cardsChanged() {
    this.merged = null;
    for (const view of this.views) view.sync();
  }

  /**
   * The cards to show: the synced state with the newer `cards` messages applied. An upserted
   * card replaces the card with its key in place, or comes last.
   * @returns {unknown[]}
   */
  cards() {
    if (this.merged) return this.merged;
    if (this.changes.length === 0) return (this.merged = this.state.cards);
    /** @type {Map<string, unknown>} */
    const byKey = new Map();
    for (const card of this.state.cards) {
      if (isCard(card) && !byKey.has(card.key)) byKey.set(card.key, card);
    }
    for (const change of this.changes) {
      for (const key of change.remove) if (typeof key === "string") byKey.delete(key);
      for (const card of change.upsert) if (isCard(card)) byKey.set(card.key, card);
    }
    return (this.merged = Array.from(byKey.values()));
  }

  /**
   * Anchor a frame once per seq: deadline = now + remainingMs.
   * @param {string} key
   * @param {{remainingMs: number, seq: number}} frame
   */
  anchor(key, frame) {
    const known = this.frames.get(key);
    if (known && known.seq >= frame.seq) return false;
    this.frames.set(key, { seq: frame.seq, deadline: Date.now() + frame.remainingMs });
    return true;
  }

  /** @param {unknown} raw */
  receive(raw) {
    if (!raw || typeof raw !== "object") return;
    const message = /** @type {Record<string, unknown>} */ (raw);
    if (message.protocolVersion !== PROTOCOL_VERSION) return;
    if (message.kind === "frame") {
      const { key, remainingMs, seq } = message;
      if (typeof key !== "string" || typeof remainingMs !== "number" || typeof seq !== "number") return;
      if (!(remainingMs >= 0) || !Number.isInteger(seq)) return;
      if (this.anchor(key, { remainingMs, seq })) for (const view of this.views) view.onFrame(key);
    } else if (message.kind === "cards") {
      const { rev, upsert, remove } = message;
      if (!Number.isInteger(rev) || !Array.isArray(upsert) || !Array.isArray(remove)) return;
      this.applyChange({ rev: /** @type {number} */ (rev), upsert, remove });
    } else if (message.kind === "error") {
      const { code, key, viewId } = message;
      if (typeof code !== "string" || typeof message.message !== "string") return;
      const refusal = refusalOf(message);
      for (const view of this.views) {
        if (typeof viewId === "string" && viewId !== view.id) continue;
        view.onError(typeof key === "string" ? key : null, message.message, refusal);
      }
    }
  }
}

/**
 * The per-field part of a refused tool-approval or form answer, when the error carries one.
 * @param {Record<string, unknown>} message
 * @returns {Refusal | null}
 */
function refusalOf(message) {
  const { questionId, fields } = message;
  if (typeof questionId !== "string" || !fields || typeof fields !== "object" || Array.isArray(fields)) return null;
  const entries = Object.entries(fields).filter(([, text]) => typeof text === "string");
  return { questionId, fields: Object.fromEntries(entries) };
}

/** @type {WeakMap<Model, Hub>} */
const hubs = new WeakMap();

/** @param {Model} model */
export function hubOf(model) {
  let hub = hubs.get(model);
  if (!hub) {
    hub = new Hub(model);
    hubs.set(model, hub);
  }
  return hub;
}
