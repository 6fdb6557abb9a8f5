// @ts-check
/**
 * A question that waits finds the person where they are, beyond the card:
 *
 * - In the page: a card that arrives out of view while the person is busy elsewhere (see
 *   arrival.js) brings up a small "A question is waiting" control in the viewport's corner (in a
 *   layer of its own at the end of the document's body, outside the notebook's cells). It
 *   jumps to the card (scrolls it into view, focuses it), is dismissed by its close button or
 *   Escape, goes away by itself once the card is seen or settles, and never takes the focus; it
 *   sits in a polite live region, so its arrival is said once.
 * - The tab's title: while the page is hidden and questions wait, it starts with their number,
 *   "(2) …"; the title is put back as it was once the page is visible again or nothing waits.
 * - Desktop notifications, off until the person turns them on with the view's "Notify me"
 *   toggle (the browser asks for its permission; the choice is kept in localStorage under
 *   `ipyask:notify`): a question that arrives while the page is hidden shows a silent
 *   notification; clicking it focuses the window and the card. It closes when the card settles.
 *
 * Every view of every ipyask widget on the page takes part through one registry, so the count
 * adds up over widgets, a question shown by two views counts once, one control shows at a time
 * and only the registry writes the title. anywidget imports the module once per widget model, so
 * the registry lives on `globalThis` (under a versioned symbol), not in a module variable.
 */

import { ICON_CLOSE, h, icon } from "./dom.js";
import { fill } from "./strings.js";

/**
 * @import { View } from "./view.js"
 */

/** Where the person's choice about desktop notifications is kept (per browser and origin). */
export const NOTIFY_STORAGE_KEY = "ipyask:notify";
const REGISTRY_KEY = Symbol.for("ipyask.attention.v1");
/** One notification at a time: a newer question replaces the older one's notification. */
const NOTIFICATION_TAG = "ipyask-waiting";
const ICON_BELL = "M4.5 11V7.5a3.5 3.5 0 0 1 7 0V11l1 1.5h-9zM6.8 14h2.4";
/** How much of a card (or of the viewport, for a tall card) must show for it to count as seen. */
const SEEN_PART = 0.5;

/** The Notification API, when the page may use it (a secure context in a browser that has it). */
function notificationApi() {
  // Off a secure context (a notebook served over plain http) browsers refuse every request.
  return typeof Notification === "function" && window.isSecureContext ? Notification : null;
}

/** @returns {string | null} */
function storedChoice() {
  try {
    return localStorage.getItem(NOTIFY_STORAGE_KEY);
  } catch {
    return null; // storage blocked (a sandboxed frame): notifications stay off
  }
}

/** @param {"on" | "off"} choice */
function storeChoice(choice) {
  try {
    localStorage.setItem(NOTIFY_STORAGE_KEY, choice);
    return true;
  } catch {
    return false;
  }
}

/** Whether desktop notifications are on: the person turned them on and the browser allows them. */
export function notificationsOn() {
  return storedChoice() === "on" && notificationApi()?.permission === "granted";
}

/** The page-wide registry of every view's waiting questions (see the module's comment). */
class Registry {
  constructor() {
    /** @type {Set<Attention>} in the order the views opened */
    this.parts = new Set();
    /** @type {Map<string, Attention>} cards that arrived out of view and were not seen yet */
    this.waiting = new Map();
    /** @type {Set<string>} waiting cards whose control the person dismissed */
    this.dismissed = new Set();
    /** @type {Set<string>} cards a notification was shown for */
    this.notified = new Set();
    /** @type {Map<string, Notification>} */
    this.notifications = new Map();
    /** @type {{original: string, shown: string} | null} the title as found, and as set */
    this.title = null;
    this.onVisibility = () => this.changed();
    this.onStorage = (/** @type {StorageEvent} */ event) => {
      if (event.key === NOTIFY_STORAGE_KEY) this.refreshToggles();
    };
  }

  /** @param {Attention} part */
  add(part) {
    if (this.parts.size === 0) {
      document.addEventListener("visibilitychange", this.onVisibility);
      window.addEventListener("storage", this.onStorage);
    }
    this.parts.add(part);
  }

  /** @param {Attention} part */
  remove(part) {
    this.parts.delete(part);
    this.changed();
    if (this.parts.size === 0) {
      document.removeEventListener("visibilitychange", this.onVisibility);
      window.removeEventListener("storage", this.onStorage);
    }
  }

  /** Every waiting question on the page, once each. */
  pending() {
    /** @type {Set<string>} */
    const keys = new Set();
    for (const part of this.parts) for (const key of part.pending) keys.add(key);
    return keys;
  }

  /** Something changed (a view's questions, the page's visibility): bring everything up to date. */
  changed() {
    const pending = this.pending();
    for (const key of this.waiting.keys()) if (!pending.has(key)) this.waiting.delete(key);
    for (const key of this.dismissed) if (!pending.has(key)) this.dismissed.delete(key);
    for (const key of this.notified) if (!pending.has(key)) this.notified.delete(key);
    for (const [key, notification] of this.notifications) {
      if (pending.has(key)) continue;
      notification.close(); // the question settled: its notification says nothing true any more
      this.notifications.delete(key);
    }
    this.updateTitle(pending.size);
    this.showControl();
    this.refreshToggles();
  }

  /** @param {number} count */
  updateTitle(count) {
    if (document.visibilityState === "hidden" && count > 0) {
      // Someone else set the title since (the page's own title changed): that is the title now.
      const original = this.title && document.title === this.title.shown ? this.title.original : document.title;
      const shown = `(${count}) ${original}`;
      if (document.title !== shown) document.title = shown;
      this.title = { original, shown };
    } else if (this.title) {
      if (document.title === this.title.shown) document.title = this.title.original;
      this.title = null;
    }
  }

  /**
   * The card `key` arrived out of view while the person works elsewhere.
   * @param {string} key
   * @param {Attention} part the view it arrived in
   */
  wait(key, part) {
    if (this.waiting.has(key) || this.dismissed.has(key) || !part.pending.has(key)) return;
    this.waiting.set(key, part);
    this.showControl();
  }

  /** @param {string} key */
  seen(key) {
    if (this.waiting.delete(key)) this.showControl();
  }

  dismiss() {
    for (const key of this.waiting.keys()) this.dismissed.add(key);
    this.waiting.clear();
    this.showControl();
  }

  /** Jump to the earliest waiting card. */
  jump() {
    const first = this.waiting.entries().next();
    if (first.done) return;
    const [key, part] = first.value;
    this.waiting.delete(key);
    this.showControl();
    part.view.reveal(key);
  }

  /** The first view still on the page shows the control; the others show none. */
  showControl() {
    let host = null;
    for (const part of this.parts) {
      if (!host && part.view.root.isConnected) host = part;
    }
    for (const part of this.parts) part.showControl(part === host ? this.waiting.size : 0);
  }

  refreshToggles() {
    for (const part of this.parts) part.refreshToggle();
  }

  /**
   * Cards new to a view: a notification for the first one nobody was told about yet, when the
   * page is hidden and the person turned notifications on.
   * @param {Attention} part
   * @param {string[]} keys
   */
  arrived(part, keys) {
    const Api = notificationApi();
    if (!Api || document.visibilityState !== "hidden" || !notificationsOn()) return;
    const fresh = keys.filter((key) => !this.notified.has(key) && part.pending.has(key));
    if (fresh.length === 0) return;
    for (const key of fresh) this.notified.add(key);
    const key = fresh[0];
    const t = part.view.t;
    const count = this.pending().size;
    const title = count > 1 ? fill(t.waitingMany, { count }) : t.waitingOne;
    try {
      const notification = new Api(title, { body: part.titleOf(key), tag: NOTIFICATION_TAG, silent: true, lang: part.view.lang });
      notification.onclick = () => {
        window.focus();
        part.view.reveal(key);
        this.seen(key);
        notification.close();
      };
      for (const [other, shown] of this.notifications) {
        if (other !== key) shown.close();
      }
      this.notifications.clear();
      this.notifications.set(key, notification);
    } catch (error) {
      // Some browsers have the API but no page notifications (Chrome on Android).
      console.warn("ipyask: could not show a notification", error);
    }
  }
}

/** The page's registry, shared by every copy of this module. */
function registry() {
  const holder = /** @type {Record<symbol, Registry | undefined>} */ (/** @type {unknown} */ (globalThis));
  return (holder[REGISTRY_KEY] ??= new Registry());
}

/** One view's part: its waiting questions, its "Notify me" toggle and its "waiting" control. */
export class Attention {
  /** @param {View} view */
  constructor(view) {
    this.view = view;
    /** @type {Set<string>} the pending questions this view shows */
    this.pending = new Set();
    /** @type {Element | null} where the focus was before it went to the control */
    this.returnFocus = null;
    this.control = h("div", { class: "ipyask-waiting", "aria-live": "polite", "data-role": "waiting" });
    // The control lives at the page's top level, not in the view: a notebook host contains
    // each cell (JupyterLab's cells have `contain: content`), and a `position: fixed` control
    // inside one would be placed in the cell, off screen with the cell, not in the viewport.
    this.layer = h("div", { class: "ipyask ipyask-layer", lang: view.lang }, this.control);
    document.body.append(this.layer);
    this.control.addEventListener("focusin", (event) => {
      const from = event.relatedTarget;
      if (from instanceof Element && !this.control.contains(from)) this.returnFocus = from;
    });
    this.control.addEventListener("keydown", (event) => {
      if (event.key === "Escape") this.dismiss();
    });
    this.toggle = h("button", { type: "button", class: "ipyask-btn ipyask-btn--ghost ipyask-notify__toggle", "aria-pressed": "false" });
    this.toggle.addEventListener("click", () => void this.switchNotifications());
    this.note = h("span", { class: "ipyask-notify__note", hidden: true });
    this.bar = h("div", { class: "ipyask-notify", hidden: true }, this.toggle, this.note);
    this.observer =
      typeof IntersectionObserver === "undefined"
        ? null
        : new IntersectionObserver((entries) => this.onIntersect(entries), { threshold: [0, 0.25, SEEN_PART, 1] });
    /** @type {Map<Element, string>} the arrived cards watched until they are seen */
    this.watched = new Map();
    registry().add(this);
  }

  /**
   * The view's pending questions now (none when its kernel is gone).
   * @param {Set<string>} keys
   */
  report(keys) {
    const same = keys.size === this.pending.size && Array.from(keys).every((key) => this.pending.has(key));
    if (same) return;
    this.pending = keys;
    for (const [el, key] of this.watched) {
      if (keys.has(key)) continue;
      this.observer?.unobserve(el);
      this.watched.delete(el);
    }
    registry().changed();
  }

  /** @param {string[]} keys cards new to this view, in its order */
  arrived(keys) {
    registry().arrived(this, keys);
  }

  /**
   * The card arrived while the person works elsewhere: watch whether it is out of view.
   * @param {string} key
   * @param {HTMLElement} el
   */
  unseen(key, el) {
    if (!this.observer || this.watched.has(el)) return;
    this.watched.set(el, key);
    this.observer.observe(el);
  }

  /** @param {IntersectionObserverEntry[]} entries */
  onIntersect(entries) {
    for (const entry of entries) {
      const key = this.watched.get(entry.target);
      if (key === undefined) continue;
      if (isSeen(entry)) {
        this.observer?.unobserve(entry.target);
        this.watched.delete(entry.target);
        registry().seen(key);
      } else {
        registry().wait(key, this);
      }
    }
  }

  /** @param {string} key */
  titleOf(key) {
    return this.view.hub.cards().live.get(key)?.questions[0]?.question ?? "";
  }

  /** @param {number} count how many cards wait out of view (0: no control here) */
  showControl(count) {
    if (count === 0) {
      if (this.control.firstChild) this.control.replaceChildren();
      return;
    }
    const t = this.view.t;
    const text = count > 1 ? fill(t.waitingMany, { count }) : t.waitingOne;
    const jump = this.control.querySelector(".ipyask-waiting__jump");
    if (jump && jump.textContent === text) return;
    const go = h("button", { type: "button", class: "ipyask-btn ipyask-btn--primary ipyask-waiting__jump" }, text);
    go.addEventListener("click", () => registry().jump());
    const close = h("button", { type: "button", class: "ipyask-icon ipyask-waiting__dismiss", "aria-label": t.dismissWaiting, title: t.dismissWaiting }, icon(ICON_CLOSE));
    close.addEventListener("click", () => this.dismiss());
    const hadFocus = this.control.contains(document.activeElement);
    this.control.replaceChildren(h("div", { class: "ipyask-waiting__body" }, go, close));
    if (hadFocus) go.focus({ preventScroll: true }); // the person was on it: the count changed
  }

  dismiss() {
    const back = this.control.contains(document.activeElement) ? this.returnFocus : null;
    registry().dismiss();
    if (back instanceof HTMLElement && back.isConnected) back.focus({ preventScroll: true });
  }

  /** The toggle shows while a question waits in this view, where the browser has notifications. */
  refreshToggle() {
    const t = this.view.t;
    this.bar.hidden = !notificationApi() || this.pending.size === 0;
    this.toggle.replaceChildren(icon(ICON_BELL), t.notifyMe);
    this.toggle.setAttribute("aria-pressed", String(notificationsOn()));
    this.toggle.title = t.notifyMeHint;
    if (notificationApi()?.permission !== "denied") this.note.hidden = true;
    this.note.textContent = t.notifyBlocked;
  }

  /** The view's language changed. */
  relabel() {
    this.layer.lang = this.view.lang;
    this.refreshToggle();
    registry().showControl();
  }

  /** Turn desktop notifications on (the browser asks for its permission) or off. */
  async switchNotifications() {
    const Api = notificationApi();
    if (!Api) return;
    if (notificationsOn()) {
      storeChoice("off");
    } else {
      let permission = Api.permission;
      if (permission === "default") permission = await Api.requestPermission();
      if (permission === "granted") storeChoice("on");
      this.note.hidden = permission === "granted";
      if (permission !== "granted") this.view.announce(this.view.t.notifyBlocked);
    }
    registry().refreshToggles();
  }

  destroy() {
    this.observer?.disconnect();
    this.watched.clear();
    this.pending = new Set();
    this.control.replaceChildren();
    this.layer.remove();
    registry().remove(this);
  }
}

/**
 * Enough of the card shows: half of it, or half of the viewport for a card taller than that.
 * @param {IntersectionObserverEntry} entry
 */
function isSeen(entry) {
  if (!entry.isIntersecting) return false;
  const viewport = entry.rootBounds?.height ?? window.innerHeight;
  const shown = entry.intersectionRect.height;
  return entry.intersectionRatio >= SEEN_PART || shown >= Math.min(entry.boundingClientRect.height, viewport) * SEEN_PART;
}
