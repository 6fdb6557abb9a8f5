// @ts-check
/**
 * One rendered view of the widget: the live cards first, in the kernel's order, then the history
 * (settled cards, oldest first), the restore button for closed cards, an error banner, and the
 * view's side of the protocol (hello, claims, heartbeats, release). Rendering reads only the
 * synced state (through the hub), so a new view, a reload or a second view shows the same cards.
 *
 * Only what is on screen is rendered. The first live cards are rendered at once; the others wait
 * in blocks that hold only their titles, as text (found by find-in-page, read by screen readers,
 * never focusable), and each block renders its cards when it comes near the viewport. A card is
 * rendered exactly when it has a controller, so claims and countdowns are those of the cards a
 * person can see. Of the history only the most recent cards are shown, behind a "Show earlier
 * answers" button that reveals more, a page at a time.
 */

import { Arrivals } from "./arrival.js";
import { Attention } from "./attention.js";
import { CardController } from "./card/controller.js";
import { ICON_CLOSE, h, icon } from "./dom.js";
import { ImageGates } from "./images.js";
import { InboxBar, arrange } from "./inbox.js";
import { PROTOCOL_VERSION, isCard, isLive } from "./protocol.js";
import { RulesSection } from "./rules.js";
import { STRINGS, fill } from "./strings.js";

/**
 * @import { Hub } from "./hub.js"
 * @import { Card, CardChange, Model, Refusal } from "./types.js"
 */

const TICK_MS = 250;
const HEARTBEAT_MS = 5000;
/** ipywidgets marks a view whose model lost its kernel (restarted, or the page disconnected). */
const DISCONNECTED = ".jupyter-widgets-disconnected";
/** Live cards rendered at once (the rest when they come near the viewport). */
const EAGER_CARDS = 8;
/** Live cards not rendered yet, per block of titles. */
const BLOCK_CARDS = 50;
/** About the height of a rendered card: a block reserves this much per card. */
const CARD_HEIGHT_PX = 160;
/** How far from the viewport a block renders its cards. */
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
    /** the kernel behind the model is gone (restarted): no card here is live any more */
    this.disconnected = false;
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
    this.inbox = new InboxBar(this);
    this.arrivals = new Arrivals(this);
    this.attention = new Attention(this);
    this.rules = new RulesSection(this);
    this.root.append(
      this.banner,
      this.inbox.el,
      this.list,
      this.attention.bar,
      this.history,
      this.restore,
      this.arrivals.region,
      this.rules.el,
    );
    el.append(this.root);
    this.images = new ImageGates(this.root, model, () => this.t);
    /** @type {WeakMap<Element, string[]>} the keys of the cards each block of titles holds */
    this.blockKeys = new WeakMap();
    /** @type {HTMLElement[]} the blocks of the last sync, reused in order */
    this.blocks = [];
    this.observer =
      typeof IntersectionObserver === "undefined"
        ? null
        : new IntersectionObserver((entries) => this.onIntersect(entries), { rootMargin: RENDER_MARGIN });

    this.onLanguage = () => this.applyLanguage(true);
    this.onVisibility = () => this.setWindowActive(!document.hidden);
    this.onBlur = () => this.setWindowActive(false);
    this.onFocus = () => this.setWindowActive(!document.hidden);
    // ipywidgets' manager sets the model's comm_live to false when the kernel restarts, fires
    // "comm_live_update" and marks the view's element; the model proxy does not show comm_live.
    // Never back to live: the old kernel's questions are gone for good.
    this.onCommLive = () => setTimeout(() => el.closest(DISCONNECTED) && this.setDisconnected(true), 0);
    model.on("comm_live_update", this.onCommLive);
    // JupyterLab's widget manager exposes its kernel connection: a restart or a dead kernel
    // ends every question of this model (the new kernel knows none of them).
    /** @type {{statusChanged?: {connect: Function, disconnect: Function}} | undefined} */
    const kernel = model.widget_manager?.kernel;
    this.kernelSignal = kernel?.statusChanged;
    this.onKernelStatus = (/** @type {unknown} */ _kernel, /** @type {unknown} */ status) => {
      if (status === "restarting" || status === "autorestarting" || status === "dead") this.setDisconnected(true);
    };
    this.kernelSignal?.connect(this.onKernelStatus, this);
    model.on("change:language", this.onLanguage);
    this.onAnswerer = () => this.sync(); // the inbox's "Only mine" names who answers here
    model.on("change:answerer", this.onAnswerer);
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
      this.attention.relabel();
      this.rules.render();
      for (const card of this.cards.values()) card.render();
      this.sync(); // the history's button and label, the restore button
    }
  }

  /**
   * Show the hub's cards: after one in-order change only the cards it names, else every card.
   * An inbox (cards with a source) is grouped and filtered, so it always syncs whole.
   * @param {CardChange | null} [change]
   */
  sync(change = null) {
    if (change && this.inbox.el.hidden && this.syncChange(change)) {
      this.reportWaiting();
      return;
    }
    const { live } = this.hub.cards();
    const history = this.hub.history();
    const focused = this.focusedController();
    /** @type {Set<string>} */
    const seen = new Set();
    /** @type {[Card, CardController][]} the rendered live cards, in display order */
    const onScreen = [];
    const blocks = this.blocks;
    this.blocks = [];
    /** @type {Element | null} */
    let previous = null;
    /** @type {Card[]} */
    let waiting = [];
    const flush = () => {
      if (waiting.length > 0) previous = place(this.list, this.block(waiting, blocks.shift()), previous);
      waiting = [];
    };
    for (const card of arrange(Array.from(live.values()))) {
      const rendered = this.cards.has(card.key) || seen.size < EAGER_CARDS || !this.observer;
      seen.add(card.key);
      if (!rendered) {
        waiting.push(card);
        if (waiting.length === BLOCK_CARDS) flush();
        continue;
      }
      flush();
      const controller = this.controllerFor(card);
      onScreen.push([card, controller]);
      previous = place(this.list, controller.el, previous);
    }
    flush();
    trimAfter(this.list, previous);
    const shown = Math.min(history.length, this.historyShown);
    previous = null;
    for (let index = history.length - shown; index < history.length; index += 1) {
      const card = history[index];
      seen.add(card.key);
      previous = place(this.historyList, this.controllerFor(card).el, previous);
    }
    trimAfter(this.historyList, previous);
    for (const [key, controller] of this.cards) {
      // In this view's tree, not in the document: a host may render the view detached first
      // (Voila does), and a card must not be dropped for that.
      if (seen.has(key) && this.root.contains(controller.el)) continue;
      controller.destroy();
      this.cards.delete(key);
      if (this.claimed.delete(key)) this.send("release", { key });
    }
    this.inbox.apply(onScreen);
    this.earlier.hidden = shown === history.length;
    this.earlier.textContent = fill(this.t.showEarlier, { count: history.length - shown });
    this.history.setAttribute("aria-label", this.t.earlierAnswers);
    this.history.hidden = history.length === 0;
    // A card that moved (it settled) keeps the focus it had.
    if (focused && this.root.contains(focused.el) && !focused.el.contains(document.activeElement)) {
      focused.el.focus({ preventScroll: true });
    }
    this.updateRestore(false);
    this.reportWaiting();
    this.arrivals.check(live.values()); // last: it may render a card, which syncs again
  }

  /** Tell the page's registry which questions wait in this view (attention.js). */
  reportWaiting() {
    /** @type {Set<string>} */
    const pending = new Set();
    if (!this.disconnected) {
      for (const card of this.hub.cards().live.values()) if (card.status === "pending") pending.add(card.key);
    }
    this.attention.report(pending);
  }

  /**
   * Bring the live card `key` to the person who asked for it (the "waiting" control, a
   * notification): shown again if they had closed it, scrolled into view and focused.
   * @param {string} key
   */
  reveal(key) {
    const controller = this.render(key);
    if (!controller || !this.root.contains(controller.el)) return;
    if (controller.el.classList.contains("ipyask-card--filtered")) this.inbox.clear();
    if (controller.hidden) {
      controller.hidden = false;
      controller.render();
      this.updateClaim(controller);
      this.updateRestore(false);
    }
    const reduce = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
    controller.el.scrollIntoView({ block: "nearest", behavior: reduce ? "auto" : "smooth" });
    controller.el.focus({ preventScroll: true });
  }

  /**
   * One change whose cards all stay where this view shows them (a rendered live card still live,
   * a shown settled card still settled): update just those. False when the view must sync whole.
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
   * The controller of `card`, made (and rendered) now when new; a card that settles while shown
   * grows the shown history by one, so it stays shown.
   * @param {Card} card
   */
  controllerFor(card) {
    let controller = this.cards.get(card.key);
    if (controller) {
      if (isLive(controller.card) && !isLive(card)) this.historyShown += 1;
      controller.update(card);
      return controller;
    }
    controller = new CardController(this, card);
    this.cards.set(card.key, controller);
    return controller;
  }

  /**
   * A block holding the titles of `cards` (not rendered yet), reusing `reused` when given.
   * @param {Card[]} cards
   * @param {HTMLElement | undefined} reused
   */
  block(cards, reused) {
    const text = cards.map((card) => card.questions[0].question).join("\n");
    const el = reused ?? h("div", { class: "ipyask-card-block" });
    if (el.textContent !== text) el.textContent = text;
    el.style.containIntrinsicSize = `auto ${cards.length * CARD_HEIGHT_PX}px`;
    el.style.minHeight = `${cards.length * CARD_HEIGHT_PX}px`;
    el.dataset.cards = String(cards.length);
    if (!reused) this.observer?.observe(el);
    this.blockKeys.set(el, cards.map((card) => card.key));
    this.blocks.push(el);
    return el;
  }

  /** The controller whose card holds the focus, if any. */
  focusedController() {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || !this.root.contains(active)) return null;
    const article = active.closest("article");
    const key = article instanceof HTMLElement ? article.dataset.key : undefined;
    return key === undefined ? null : this.cards.get(key) ?? null;
  }

  /**
   * Render the cards of every block near the viewport.
   * @param {IntersectionObserverEntry[]} entries
   */
  onIntersect(entries) {
    const { live } = this.hub.cards();
    let added = false;
    for (const entry of entries) {
      if (!entry.isIntersecting || !entry.target.isConnected) continue;
      for (const key of this.blockKeys.get(entry.target) ?? []) {
        const card = live.get(key);
        if (card && !this.cards.has(key)) {
          this.cards.set(key, new CardController(this, card));
          added = true;
        }
      }
    }
    if (added) this.sync();
  }

  /**
   * Render the live card `key` now (it is to show an error, or take the focus).
   * @param {string} key
   */
  render(key) {
    const card = this.hub.cards().live.get(key);
    if (!card || this.cards.has(key)) return this.cards.get(key);
    const controller = new CardController(this, card);
    this.cards.set(key, controller);
    this.sync();
    return controller;
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

  /**
   * Say `text` through the view's polite live region (a card's own lines are rebuilt on each
   * render, which screen readers do not reliably announce).
   * @param {string} text
   */
  announce(text) {
    this.arrivals.region.textContent = text;
  }

  /** @param {boolean} disconnected */
  setDisconnected(disconnected) {
    if (this.disconnected === disconnected) return;
    this.disconnected = disconnected;
    for (const card of this.cards.values()) {
      if (disconnected) card.kernelLost();
      card.render();
      this.updateClaim(card);
    }
    this.reportWaiting();
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
   * @param {Refusal | null} [refusal]
   * @param {string} [code] the kernel's error code
   */
  onError(key, text, refusal = null, code = "") {
    const card = key === null ? undefined : this.render(key);
    if (card) card.showError(text, refusal, code);
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
   * Send a message to the kernel; false when it could not go out.
   * @param {string} kind
   * @param {Record<string, unknown>} fields
   */
  send(kind, fields) {
    if (this.disconnected) return false;
    try {
      this.model.send({ kind, protocolVersion: PROTOCOL_VERSION, viewId: this.id, ...fields });
      return true;
    } catch (error) {
      console.warn("ipyask: could not send a message to the kernel", error);
      return false;
    }
  }

  destroy() {
    this.images.destroy();
    this.arrivals.destroy();
    this.attention.destroy();
    this.rules.destroy();
    this.observer?.disconnect();
    clearInterval(this.timer);
    clearInterval(this.beat);
    this.model.off("change:language", this.onLanguage);
    this.model.off("change:answerer", this.onAnswerer);
    this.model.off("comm_live_update", this.onCommLive);
    this.kernelSignal?.disconnect(this.onKernelStatus, this);
    document.removeEventListener("visibilitychange", this.onVisibility);
    window.removeEventListener("blur", this.onBlur);
    window.removeEventListener("focus", this.onFocus);
    for (const key of this.claimed) this.send("release", { key });
    this.claimed.clear();
    this.hub.views.delete(this);
    this.root.remove();
  }
}


/**
 * Put `el` after `previous` in `list` (first when null), moving it only when it is elsewhere.
 * @param {HTMLElement} list
 * @param {Element} el
 * @param {Element | null} previous
 */
function place(list, el, previous) {
  const expected = previous ? previous.nextSibling : list.firstChild;
  if (expected !== el) {
    if (previous) previous.after(el);
    else list.prepend(el);
  }
  return el;
}

/**
 * Remove every child of `list` after `last` (all of them when null).
 * @param {HTMLElement} list
 * @param {Element | null} last
 */
function trimAfter(list, last) {
  while (last ? last.nextSibling : list.firstChild) (last ? last.nextSibling : list.firstChild)?.remove();
}
