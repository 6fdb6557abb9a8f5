// @ts-check
/**
 * One rendered view of the widget: the live cards first, in the kernel's order, then the history
 * (settled cards, oldest first), the restore button for closed cards, an error banner, and the
 * view's side of the protocol (hello, claims, heartbeats, release). Rendering reads only the
 * synced state (through the hub), so a new view, a reload or a second view shows the same cards.
 *
 * Only what is on screen is rendered: a live card is a placeholder (its title as text, never
 * focusable) until it comes near the viewport, and of the history only the most recent cards
 * are shown, behind a "Show earlier answers" button that reveals more, a page at a time. Every
 * live card has its controller, so claims and countdowns do not depend on rendering.
 */

import { CardController } from "./card/controller.js";
import { ICON_CLOSE, h, icon } from "./dom.js";
import { PROTOCOL_VERSION, isCard, isLive } from "./protocol.js";
import { STRINGS, fill } from "./strings.js";

/**
 * @import { Hub } from "./hub.js"
 * @import { Card, CardChange, Model } from "./types.js"
 */

const TICK_MS = 250;
const HEARTBEAT_MS = 5000;
/** Live cards rendered at once (the rest when they come near the viewport). */
const EAGER_CARDS = 8;
/** How far from the viewport a placeholder is rendered. */
const RENDER_MARGIN = "800px 0px";
/** Settled cards a new view shows; the button reveals this many more per press. */
const RECENT_HISTORY = 20;
const HISTORY_PAGE = 50;

/** @param {number} bytes */
function randomId(bytes) {
  const data = new Uint8Array(bytes);
  crypto.getRandomValues(data);
  return Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
}

export class View {
  /**
   * @param {Model} model
   * @param {HTMLElement} el
   * @param {Hub} hub
   */
  constructor(model, el, hub) {
    this.model = model;
    this.hub = hub;
    this.id = randomId(12);
    this.serial = 0;
    this.locale = "en";
    /** @type {"en" | "zh"} */
    this.lang = "en";
    /** @type {Map<string, CardController>} */
    this.cards = new Map();
    /** @type {Set<string>} */
    this.claimed = new Set();
    this.windowActive = !document.hidden;
    this.root = h("div", { class: "ipyask" });
    this.banner = h("div", { class: "ipyask-banner", role: "alert" });
    this.list = h("div", { class: "ipyask-cards" });
    /** How many of the most recent settled cards this view shows. */
    this.historyShown = RECENT_HISTORY;
    this.earlier = h("button", { type: "button", class: "ipyask-btn ipyask-btn--outline ipyask-earlier", hidden: true });
    this.earlier.addEventListener("click", () => this.showEarlier());
    this.historyList = h("div", { class: "ipyask-cards ipyask-history" });
    this.history = h("div", { class: "ipyask-history-part", role: "group" }, this.earlier, this.historyList);
    this.restore = h("button", { type: "button", class: "ipyask-btn ipyask-btn--outline ipyask-restore", hidden: true });
    this.restore.addEventListener("click", () => this.restoreHidden());
    this.root.append(this.banner, this.list, this.history, this.restore);
    el.append(this.root);
    /** @type {WeakMap<Element, CardController>} */
    this.placeholders = new WeakMap();
    this.observer =
      typeof IntersectionObserver === "undefined"
        ? null
        : new IntersectionObserver((entries) => this.onIntersect(entries), { rootMargin: RENDER_MARGIN });

    this.onLanguage = () => this.applyLanguage(true);
    this.onVisibility = () => this.setWindowActive(!document.hidden);
    this.onBlur = () => this.setWindowActive(false);
    this.onFocus = () => this.setWindowActive(!document.hidden);
    model.on("change:language", this.onLanguage);
    document.addEventListener("visibilitychange", this.onVisibility);
    window.addEventListener("blur", this.onBlur);
    window.addEventListener("focus", this.onFocus);

    hub.views.add(this);
    hub.listen();
    this.applyLanguage(false);
    this.send("hello", {});
    this.sync();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.beat = setInterval(() => this.heartbeat(), HEARTBEAT_MS);
  }

  get t() {
    return STRINGS[this.lang];
  }

  nextId() {
    this.serial += 1;
    return `ipyask-${this.id.slice(0, 8)}-${this.serial}`;
  }

  /** @param {boolean} rerender */
  applyLanguage(rerender) {
    const setting = String(this.model.get("language") ?? "");
    this.locale = setting || document.documentElement.lang || navigator.language || "en";
    this.lang = /^zh(?:$|[-_])/i.test(this.locale) ? "zh" : "en";
    this.root.lang = this.lang;
    if (rerender) {
      for (const card of this.cards.values()) card.render();
      this.updateRestore(false);
    }
  }

  /**
   * Show the hub's cards: after one in-order change only the cards it names, else every card.
   * @param {CardChange | null} [change]
   */
  sync(change = null) {
    if (change && this.syncChange(change)) return;
    const { live } = this.hub.cards();
    const history = this.hub.history();
    const focused = this.focusedController();
    /** @type {Set<string>} */
    const seen = new Set();
    /** @type {CardController | null} */
    let previous = null;
    for (const card of live.values()) {
      const controller = this.controllerFor(card, seen.size < EAGER_CARDS || !this.observer);
      seen.add(card.key);
      previous = this.place(this.list, controller, previous);
    }
    const shown = Math.min(history.length, this.historyShown);
    previous = null;
    for (let index = history.length - shown; index < history.length; index += 1) {
      const controller = this.controllerFor(history[index], true);
      seen.add(controller.card.key);
      previous = this.place(this.historyList, controller, previous);
    }
    for (const [key, controller] of this.cards) {
      if (seen.has(key)) continue;
      controller.destroy();
      this.cards.delete(key);
      if (this.claimed.delete(key)) this.send("release", { key });
    }
    this.earlier.hidden = shown === history.length;
    this.earlier.textContent = fill(this.t.showEarlier, { count: history.length - shown });
    this.history.setAttribute("aria-label", this.t.earlierAnswers);
    this.history.hidden = history.length === 0;
    // A card that moved (it settled) keeps the focus it had.
    if (focused && focused.el.isConnected && !focused.el.contains(document.activeElement)) {
      focused.el.focus({ preventScroll: true });
    }
    this.updateRestore(false);
  }

  /**
   * One change whose cards all stay where this view shows them (a live card still live, a shown
   * settled card still settled): update just those. False when the view must sync as a whole.
   * @param {CardChange} change
   */
  syncChange(change) {
    if (change.remove.length > 0) return false;
    /** @type {[CardController, Card][]} */
    const updates = [];
    for (const card of change.upsert) {
      if (!isCard(card)) continue;
      const known = this.cards.get(card.key);
      if (!known || isLive(known.card) !== isLive(card)) return false;
      updates.push([known, card]);
    }
    for (const [controller, card] of updates) controller.update(card);
    return true;
  }

  /**
   * The controller of `card` (made now when new); settled cards grow the shown history by one, so
   * a card that settles while shown stays shown.
   * @param {Card} card
   * @param {boolean} render rendered at once, else a placeholder until near the viewport
   */
  controllerFor(card, render) {
    let controller = this.cards.get(card.key);
    if (controller) {
      if (isLive(controller.card) && !isLive(card)) this.historyShown += 1;
      if (!isLive(card)) controller.materialise();
      controller.update(card);
      return controller;
    }
    controller = new CardController(this, card, render);
    this.cards.set(card.key, controller);
    if (!render && this.observer) {
      this.placeholders.set(controller.el, controller);
      this.observer.observe(controller.el);
    }
    return controller;
  }

  /**
   * Put `controller`'s element after `previous` in `list` (first when null), moving it only when
   * it is elsewhere.
   * @param {HTMLElement} list
   * @param {CardController} controller
   * @param {CardController | null} previous
   */
  place(list, controller, previous) {
    const expected = previous ? previous.el.nextSibling : list.firstChild;
    if (expected !== controller.el) {
      if (previous) previous.el.after(controller.el);
      else list.prepend(controller.el);
    }
    return controller;
  }

  /** The controller whose card holds the focus, if any. */
  focusedController() {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || !this.root.contains(active)) return null;
    const article = active.closest("article");
    const key = article instanceof HTMLElement ? article.dataset.key : undefined;
    return key === undefined ? null : this.cards.get(key) ?? null;
  }

  /** @param {IntersectionObserverEntry[]} entries */
  onIntersect(entries) {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const controller = this.placeholders.get(entry.target);
      this.observer?.unobserve(entry.target);
      if (controller && this.cards.get(controller.card.key) === controller) controller.materialise();
    }
  }

  /** Reveal a page of earlier settled cards; the focus stays on the button while it remains. */
  showEarlier() {
    const before = this.hub.history().length - Math.min(this.historyShown, this.hub.history().length);
    this.historyShown += HISTORY_PAGE;
    this.sync();
    if (this.earlier.hidden && before > 0) {
      const first = this.historyList.firstElementChild;
      if (first instanceof HTMLElement) first.focus({ preventScroll: true });
    }
  }

  /** @param {CardController} controller */
  updateClaim(controller) {
    const key = controller.card.key;
    const wanted = controller.wantsClaim();
    if (wanted && !this.claimed.has(key)) {
      this.claimed.add(key);
      this.send("claim", { key });
    } else if (!wanted && this.claimed.delete(key)) {
      this.send("release", { key });
    }
  }

  /** @param {boolean} focus */
  updateRestore(focus) {
    const count = Array.from(this.cards.values()).filter((card) => card.hidden).length;
    this.restore.hidden = count === 0;
    this.restore.textContent = fill(this.t.showHidden, { count });
    if (focus && count > 0) this.restore.focus({ preventScroll: true });
  }

  restoreHidden() {
    /** @type {CardController | null} */
    let first = null;
    for (const card of this.cards.values()) {
      if (!card.hidden) continue;
      card.hidden = false;
      card.materialise(); // it takes the focus: never a placeholder
      card.render();
      this.updateClaim(card);
      first ??= card;
    }
    this.updateRestore(false);
    first?.el.focus({ preventScroll: true });
  }

  /** @param {string} text */
  showBanner(text) {
    const close = h("button", { type: "button", class: "ipyask-icon", "aria-label": this.t.dismissError, title: this.t.dismissError }, icon(ICON_CLOSE));
    close.addEventListener("click", () => this.banner.replaceChildren());
    this.banner.replaceChildren(h("div", { class: "ipyask-banner__body" }, h("span", {}, text), close));
  }

  /** @param {boolean} active */
  setWindowActive(active) {
    if (this.windowActive === active) return;
    this.windowActive = active;
    for (const card of this.cards.values()) card.countdown.setFocused(card.countdown.focused);
  }

  /** @param {string} key */
  onFrame(key) {
    this.cards.get(key)?.countdown.refresh();
  }

  /**
   * @param {string | null} key
   * @param {string} text
   */
  onError(key, text) {
    const card = key === null ? undefined : this.cards.get(key);
    card?.materialise();
    if (card) card.showError(text);
    else this.showBanner(text);
  }

  tick() {
    const now = Date.now();
    for (const card of this.cards.values()) card.countdown.tick(now);
  }

  heartbeat() {
    if (this.claimed.size > 0) this.send("heartbeat", { keys: Array.from(this.claimed) });
  }

  /**
   * @param {string} kind
   * @param {Record<string, unknown>} fields
   */
  send(kind, fields) {
    try {
      this.model.send({ kind, protocolVersion: PROTOCOL_VERSION, viewId: this.id, ...fields });
    } catch (error) {
      console.warn("ipyask: could not send a message to the kernel", error);
    }
  }

  destroy() {
    this.observer?.disconnect();
    clearInterval(this.timer);
    clearInterval(this.beat);
    this.model.off("change:language", this.onLanguage);
    document.removeEventListener("visibilitychange", this.onVisibility);
    window.removeEventListener("blur", this.onBlur);
    window.removeEventListener("focus", this.onFocus);
    for (const key of this.claimed) this.send("release", { key });
    this.claimed.clear();
    this.hub.views.delete(this);
    this.root.remove();
  }
}

