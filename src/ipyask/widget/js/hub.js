// @ts-check
/**
 * One hub per model: the custom-message listener lives here (registered in `initialize`), so
 * frames and card changes that arrive before a view renders are kept. A `cards` message carries a
 * change before the state does: the hub applies it over any state of a lower `rev` and drops it
 * once the state reaches that `rev`.
 *
 * The state is split (docs/protocol.md): `cards` holds the revision and the numbers of live and of
 * history pages; `live_0`, `live_1`, … the live cards in order, `history_0`, `history_1`, … the
 * settled cards, oldest first. The hub keeps the live cards and the history apart, as the views
 * show them, and parses a page only when its text changed.
 */

import { PROTOCOL_VERSION, isCard, isLive, parsePage, parseState } from "./protocol.js";
import { errorText } from "./strings.js";

/**
 * @import { Anchor, Card, CardChange, CardState, Model, Refusal } from "./types.js"
 * @import { View } from "./view.js"
 */

/** @typedef {"live" | "history"} Part */
/** @typedef {{raw: unknown, cards: unknown[]}} Page */

/**
 * @param {Part} part
 * @param {number} index
 */
const pageName = (part, index) => `${part}_${index}`;

export class Hub {
  /** @param {Model} model */
  constructor(model) {
    this.model = model;
    /** @type {Map<string, Anchor>} frames anchored to this page's clock */
    this.frames = new Map();
    /** @type {Set<View>} */
    this.views = new Set();
    /** @type {CardState} the synced `cards` entry */
    this.state = parseState(model.get("cards"));
    /** @type {{live: Page[], history: Page[]}} the synced pages, parsed */
    this.pages = { live: [], history: [] };
    /** @type {CardChange[]} `cards` messages newer than the state, in `rev` order */
    this.changes = [];
    /** @type {{live: Map<string, Card>, history: Map<string, Card>} | null} merged (cached) */
    this.merged = null;
    /** @type {Card[] | null} the history in order (cached) */
    this.historyList = null;
    this.listening = false;
    /** @type {Set<string>} the pages whose changes this hub listens to */
    this.watched = new Set();
    this.onMessage = (/** @type {unknown} */ message) => this.receive(message);
    this.onState = () => this.stateChanged();
    this.readPages();
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
    for (const name of this.watched) this.model.off(`change:${name}`, this.onState);
    this.watched.clear();
    this.listening = false;
  }

  readState() {
    this.state = parseState(this.model.get("cards"));
    const rev = this.state.rev;
    this.changes = this.changes.filter((change) => change.rev > rev);
    this.readPages();
    this.merged = null;
  }

  /** Parse the pages whose text changed; listen to every page the state names. */
  readPages() {
    this.readPart("live", this.state.live);
    this.readPart("history", this.state.pages);
  }

  /**
   * @param {Part} part
   * @param {number} count
   */
  readPart(part, count) {
    const pages = this.pages[part];
    pages.length = Math.min(pages.length, count);
    for (let index = 0; index < count; index += 1) {
      const name = pageName(part, index);
      const raw = this.model.get(name);
      const known = pages[index];
      if (!known || known.raw !== raw) pages[index] = { raw, cards: parsePage(raw) };
      if (this.listening && !this.watched.has(name)) {
        this.model.on(`change:${name}`, this.onState);
        this.watched.add(name);
      }
    }
  }

  stateChanged() {
    this.readState();
    this.cardsChanged(null);
  }

  /** @param {CardChange} change */
  applyChange(change) {
    if (change.rev <= this.state.rev || this.changes.some((known) => known.rev === change.rev)) return;
    const last = this.changes[this.changes.length - 1];
    this.changes.push(change);
    if (last && last.rev > change.rev) {
      this.changes.sort((a, b) => a.rev - b.rev);
      this.merged = null; // out of order: merge again from the state
    } else if (this.merged) {
      this.apply(this.merged, change); // in order: only this change's cards
    }
    this.cardsChanged(change);
  }

  /**
   * @param {CardChange | null} change the one change applied, or null when anything may differ
   */
  cardsChanged(change) {
    this.historyList = null;
    for (const view of this.views) view.sync(change);
  }

  /**
   * The cards to show, live and history apart: the synced state with the newer `cards` messages
   * applied. An upserted card stays in place while it stays live (or settled); a card that changes
   * part comes last in the other one, as the kernel places it.
   */
  cards() {
    if (this.merged) return this.merged;
    /** @type {Map<string, Card>} */
    const live = new Map();
    /** @type {Map<string, Card>} */
    const history = new Map();
    for (const card of this.state.cards) if (isCard(card) && !live.has(card.key)) live.set(card.key, card);
    for (const page of this.pages.live) {
      for (const card of page.cards) if (isCard(card) && !live.has(card.key)) live.set(card.key, card);
    }
    for (const page of this.pages.history) {
      for (const card of page.cards) {
        if (isCard(card) && !live.has(card.key) && !history.has(card.key)) history.set(card.key, card);
      }
    }
    const merged = { live, history };
    for (const change of this.changes) this.apply(merged, change);
    return (this.merged = merged);
  }

  /** The history, oldest first. */
  history() {
    return (this.historyList ??= Array.from(this.cards().history.values()));
  }

  /**
   * @param {{live: Map<string, Card>, history: Map<string, Card>}} merged
   * @param {CardChange} change
   */
  apply({ live, history }, change) {
    for (const key of change.remove) {
      if (typeof key !== "string") continue;
      live.delete(key);
      history.delete(key);
    }
    for (const card of change.upsert) {
      if (!isCard(card)) continue;
      const [part, other] = isLive(card) ? [live, history] : [history, live];
      other.delete(card.key);
      part.set(card.key, card);
    }
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
      for (const view of this.views) {
        if (typeof viewId === "string" && viewId !== view.id) continue;
        const refusal = refusalOf(message, view.lang);
        view.onError(typeof key === "string" ? key : null, errorText(code, message.message, view.lang), refusal, code);
      }
    }
  }
}

/**
 * The per-field part of a refused tool-approval or form answer, when the error carries one, in
 * `lang` when the kernel wrote it in that language (else as `fields` has it).
 * @param {Record<string, unknown>} message
 * @param {"en" | "zh"} lang
 * @returns {Refusal | null}
 */
function refusalOf(message, lang) {
  const { questionId, fieldTexts } = message;
  const written = isRecord(fieldTexts) && isRecord(fieldTexts[lang]) ? fieldTexts[lang] : message.fields;
  if (typeof questionId !== "string" || !isRecord(written)) return null;
  /** @type {Record<string, string>} */
  const fields = {};
  for (const [name, text] of Object.entries(written)) if (typeof text === "string") fields[name] = text;
  return { questionId, fields };
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
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
