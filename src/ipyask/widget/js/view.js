// @ts-check
/**
 * One rendered view of the widget: its cards in the kernel's order, the restore button for
 * closed cards, an error banner, and the view's side of the protocol (hello, claims,
 * heartbeats, release). Rendering reads only the synced state (through the hub), so a new view, a
 * reload or a second view shows the same cards.
 */

import { CardController } from "./card/controller.js";
import { ICON_CLOSE, h, icon } from "./dom.js";
import { ImageGates } from "./images.js";
import { InboxBar, arrange } from "./inbox.js";
import { PROTOCOL_VERSION, isCard } from "./protocol.js";
import { STRINGS, fill } from "./strings.js";

/**
 * @import { Hub } from "./hub.js"
 * @import { Model, Refusal } from "./types.js"
 */

const TICK_MS = 250;
const HEARTBEAT_MS = 5000;
/** ipywidgets marks a view whose model lost its kernel (restarted, or the page disconnected). */
const DISCONNECTED = ".jupyter-widgets-disconnected";

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
    this.restore = h("button", { type: "button", class: "ipyask-btn ipyask-btn--outline ipyask-restore", hidden: true });
    this.restore.addEventListener("click", () => this.restoreHidden());
    this.inbox = new InboxBar(this);
    this.root.append(this.banner, this.inbox.el, this.list, this.restore);
    el.append(this.root);
    this.images = new ImageGates(this.root, model, () => this.t);

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

  sync() {
    const cards = arrange(this.hub.cards().filter(isCard));
    const seen = new Set();
    /** @type {[import("./types.js").Card, CardController][]} */
    const shown = [];
    /** @type {CardController | null} */
    let previous = null;
    for (const card of cards) {
      if (seen.has(card.key)) continue;
      seen.add(card.key);
      let controller = this.cards.get(card.key);
      if (controller) controller.update(card);
      else {
        controller = new CardController(this, card);
        this.cards.set(card.key, controller);
      }
      shown.push([card, controller]);
      const expected = previous ? previous.el.nextSibling : this.list.firstChild;
      if (expected !== controller.el) {
        if (previous) previous.el.after(controller.el);
        else this.list.prepend(controller.el);
      }
      previous = controller;
    }
    for (const [key, controller] of this.cards) {
      if (seen.has(key)) continue;
      controller.destroy();
      this.cards.delete(key);
      if (this.claimed.delete(key)) this.send("release", { key });
    }
    this.inbox.apply(shown);
    this.updateRestore(false);
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

  /** @param {boolean} disconnected */
  setDisconnected(disconnected) {
    if (this.disconnected === disconnected) return;
    this.disconnected = disconnected;
    for (const card of this.cards.values()) {
      card.render();
      this.updateClaim(card);
    }
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
   */
  onError(key, text, refusal = null) {
    const card = key === null ? undefined : this.cards.get(key);
    if (card) card.showError(text, refusal);
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
    clearInterval(this.timer);
    clearInterval(this.beat);
    this.model.off("change:language", this.onLanguage);
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
