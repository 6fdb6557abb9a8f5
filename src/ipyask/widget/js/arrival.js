// @ts-check
/**
 * A question that arrives while a view is open is brought to the person: the view renders its
 * card (even when it would wait in a block of titles), scrolls it into view (`block: "nearest"`,
 * without the smooth motion when the person asked for reduced motion) and focuses it, with a
 * visible ring. Only pending cards new to this view arrive: the cards of the view's first render
 * (a reloaded page) do not, and of several arriving at once only the first is focused.
 *
 * The focus moves only while the person is not busy elsewhere: it stays where it is when it sits
 * in something editable (a cell's editor, a text field), in a dialog or menu, in a card the
 * person is answering (a pending card of any ipyask view that is not submitting), or when they
 * pressed a key outside the cards in the last moment. Then nothing scrolls, and a polite live
 * region says that a question arrived; a moved focus speaks for itself (the card is labelled by
 * its title). A card that then stays out of view brings up the "waiting" control, and a card
 * that arrives while the page is hidden counts in the tab's title and may show a desktop
 * notification (attention.js).
 *
 * The arrival focus is not the person's: it does not pause the card's countdown until they press
 * a key or the pointer in the card, and for a moment the card's answering keys (Enter, Escape)
 * wait, so a key already on its way does not answer a question nobody has read.
 */

import { h, isEditable } from "./dom.js";
import { fill } from "./strings.js";

/**
 * @import { CardController } from "./card/controller.js"
 * @import { View } from "./view.js"
 */

/** A key pressed outside the cards this recently means the person is working there. */
const RECENT_KEY_MS = 1500;
/** How long the view keeps an arrived card in view while the cards around it render. */
const SETTLE_MS = 3000;
/** How long after an arrival focus the card's answering keys wait. */
export const ARRIVAL_GRACE_MS = 800;
/** Where focus means the person is busy with something else. */
const ELSEWHERE = "dialog, [role=dialog], [role=alertdialog], [role=menu], [role=listbox]";

export class Arrivals {
  /** @param {View} view */
  constructor(view) {
    this.view = view;
    /** @type {Set<string> | null} the pending cards this view has seen; null before its first render */
    this.known = null;
    this.lastKeyElsewhere = -Infinity;
    /** @type {CardController | null} the card last scrolled into view on its arrival */
    this.scrolled = null;
    this.region = h("p", { class: "ipyask-sr", role: "status", "aria-live": "polite", "data-role": "arrivals" });
    this.onKey = (/** @type {KeyboardEvent} */ event) => {
      const target = event.target;
      if (!(target instanceof Element) || !target.closest(".ipyask")) this.lastKeyElsewhere = Date.now();
    };
    document.addEventListener("keydown", this.onKey, true);
  }

  /**
   * After a whole sync: bring the first newly arrived pending card to the person.
   * @param {Iterable<import("./types.js").Card>} live the live cards, in the kernel's order
   */
  check(live) {
    const first = this.known === null;
    const known = this.known ?? new Set();
    /** @type {Set<string>} */
    const pending = new Set();
    /** @type {string[]} */
    const arrived = [];
    for (const card of live) {
      if (card.status !== "pending") continue;
      pending.add(card.key);
      if (!first && !known.has(card.key)) arrived.push(card.key);
    }
    this.known = pending;
    if (arrived.length > 0 && !this.view.disconnected) {
      this.view.attention.arrived(arrived); // a notification, when the page is hidden
      this.bring(arrived[0]);
    } else {
      this.keepInView();
    }
  }

  /**
   * Cards rendered above the arrived one (blocks of titles coming near the screen while it
   * scrolls) push it down: scroll it back while the focus is still the arrival's.
   */
  keepInView() {
    const controller = this.scrolled;
    if (!controller) return;
    if (!controller.arrivalFocus || Date.now() - (controller.arrivedAt ?? 0) > SETTLE_MS) {
      this.scrolled = null;
      return;
    }
    if (document.activeElement === controller.el) controller.el.scrollIntoView({ block: "nearest" });
  }

  /** @param {string} key */
  bring(key) {
    const controller = this.view.render(key); // a card waiting in a block renders now
    if (!controller || controller.hidden || !this.view.root.contains(controller.el)) return;
    const el = controller.el;
    // Another view of the same question already brought it to the person.
    if (document.activeElement?.closest(".ipyask article")?.getAttribute("data-key") === key) return;
    if (el.isConnected && this.mayMoveFocus()) {
      controller.arrivalFocus = true;
      controller.arrivedAt = Date.now();
      el.dataset.arrived = "";
      el.focus({ preventScroll: true });
      if (document.activeElement === el) {
        controller.countdown.setFocused(true); // not paused while the focus is the arrival's
        const reduce = window.matchMedia?.("(prefers-reduced-motion: reduce)").matches ?? false;
        el.scrollIntoView({ block: "nearest", behavior: reduce ? "auto" : "smooth" });
        this.scrolled = controller;
        return;
      }
      settleArrival(controller);
    }
    this.announce(controller);
    this.view.attention.unseen(key, el); // out of view: the "waiting" control shows
  }

  /** Whether the person is not busy elsewhere (see the module's comment). */
  mayMoveFocus() {
    if (Date.now() - this.lastKeyElsewhere < RECENT_KEY_MS) return false;
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || active === document.body) return true;
    if (isEditable(active) || active.closest(ELSEWHERE)) return false;
    const card = active.closest(".ipyask article");
    if (!(card instanceof HTMLElement)) return true;
    const answering = /\bipyask-is-(?:pending|continued)\b/.test(card.className) && !card.hasAttribute("aria-busy");
    return !answering;
  }

  /** @param {CardController} controller */
  announce(controller) {
    const title = controller.el.querySelector(".ipyask-title")?.textContent ?? controller.card.questions[0].question;
    this.region.textContent = fill(this.view.t.newQuestion, { title });
  }

  destroy() {
    document.removeEventListener("keydown", this.onKey, true);
  }
}

/**
 * The person acted in the card (a key, the pointer) or the focus left it: from now on the
 * card's focus is the person's (it pauses the countdown).
 * @param {CardController} controller
 */
export function settleArrival(controller) {
  if (!controller.arrivalFocus) return;
  controller.arrivalFocus = false;
  delete controller.el.dataset.arrived;
  controller.countdown.setFocused(controller.countdown.focused);
}

/**
 * Whether the card's answering keys still wait after an arrival focus.
 * @param {CardController} controller
 */
export function inArrivalGrace(controller) {
  return controller.arrivedAt !== null && Date.now() - controller.arrivedAt < ARRIVAL_GRACE_MS;
}
