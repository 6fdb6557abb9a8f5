// @ts-check
/**
 * The countdown of a timed card and the wait line that shows it. The hub anchors each kernel
 * frame to this page's clock; the count pauses while the card has focus in an active window and
 * the person has not held it (Take time, or started answering). At zero, a card this view claimed
 * tells the kernel it timed out.
 */

import { STATE_ICONS, h, icon } from "../dom.js";
import { fill } from "../strings.js";

/** @import { CardController } from "./controller.js" */

export class Countdown {
  /** @param {CardController} controller */
  constructor(controller) {
    this.controller = controller;
    this.focused = false;
    /** @type {null | "waiting" | "editing"} why the person holds the count, if they do */
    this.held = null;
    this.timedOut = false;
    /** @type {{seq: number, deadline: number, paused: number | null}} */
    this.timing = { seq: -1, deadline: 0, paused: null };
    /** the wait line last shown, so a tick that changes nothing touches no DOM */
    this.signature = "";
    /** the longest time left this view has seen: the bar's length when the card has no timeoutMs */
    this.span = 0;
  }

  /** The person started answering: from now on the card waits for them. */
  engage() {
    if (this.held !== null) return;
    this.held = "editing";
    this.controller.sendHold();
  }

  /** Paused while the person's focus is in the card (not the focus the view gave it on arrival). */
  isPaused() {
    return this.focused && !this.controller.arrivalFocus && this.controller.view.windowActive && this.held === null;
  }

  /** @param {number} now */
  remaining(now) {
    const { card, view } = this.controller;
    if (card.wait !== "timed" || card.status !== "pending") return null;
    const anchor = view.hub.frames.get(card.key);
    if (!anchor) return null;
    if (anchor.seq !== this.timing.seq) {
      const paused = this.isPaused() ? Math.max(0, anchor.deadline - now) : null;
      this.timing = { seq: anchor.seq, deadline: anchor.deadline, paused };
      this.span = Math.max(this.span, anchor.deadline - now);
    }
    return this.timing.paused ?? Math.max(0, this.timing.deadline - now);
  }

  /** @param {boolean} focused */
  setFocused(focused) {
    const now = Date.now();
    const remaining = this.remaining(now);
    this.focused = focused;
    if (remaining !== null) {
      if (this.isPaused() && this.timing.paused === null) this.timing.paused = remaining;
      if (!this.isPaused() && this.timing.paused !== null) {
        this.timing.deadline = now + this.timing.paused;
        this.timing.paused = null;
      }
    }
    this.refresh();
  }

  /** @param {number} now */
  tick(now) {
    const controller = this.controller;
    const card = controller.card;
    if (card.wait !== "timed" || card.status !== "pending" || controller.hidden || controller.dead) return;
    const remaining = this.remaining(now);
    if (remaining === null) return;
    const claimed = controller.view.claimed.has(card.key);
    if (remaining <= 0 && claimed && !this.timedOut && !controller.busy && !this.isPaused() && !this.held) {
      this.timedOut = true;
      controller.view.send("timed_out", { key: card.key });
      controller.render(); // no channel until the card is continued: disable Submit
      return;
    }
    this.refresh();
  }

  statusText() {
    const t = this.controller.t;
    const status = this.controller.card.status;
    if (this.controller.dead) return t.noLongerLive;
    const tone = this.controller.tone;
    if (tone === "answered" && this.controller.card.late) return t.answeredLate; // as the transcript says
    if (tone === "rejected" && this.controller.presentation.kind === "plan-review") return t.notApproved;
    if (status !== "pending") return t[tone];
    const remaining = this.remaining(Date.now());
    if (remaining === null) return "";
    if (this.held) return t.waiting;
    const seconds = Math.ceil(remaining / 1000);
    return fill(this.timing.paused !== null ? t.paused : t.countdown, { seconds });
  }

  showTakeTime() {
    const c = this.controller;
    return !c.busy && !c.dead && this.held === null && this.remaining(Date.now()) !== null;
  }

  takeTimeButton() {
    return h(
      "button",
      { type: "button", class: "ipyask-btn ipyask-btn--ghost", "data-action": "take-time", "data-focus": "take-time" },
      this.controller.t.takeTime,
    );
  }

  /**
   * How much of the countdown bar is left (0–1), or null when the card has no running count: the
   * time left out of the question's whole window (`timeoutMs`), so a view opened late shows the
   * part already gone; a card without it (an older kernel) measures against the longest time left
   * this view has seen.
   */
  fraction() {
    const remaining = this.remaining(Date.now());
    const timeout = this.controller.card.timeoutMs;
    const total = typeof timeout === "number" && timeout > 0 ? timeout : this.span;
    if (remaining === null || this.controller.dead || total <= 0) return null;
    return Math.min(1, remaining / total);
  }

  /** The bar along the card's top edge; the wait line says the same in words. */
  bar() {
    const fraction = this.fraction();
    const fill = h("span", { class: "ipyask-timebar__fill", "data-role": "timebar-fill" });
    fill.style.width = `${((fraction ?? 0) * 100).toFixed(1)}%`;
    return h("span", { class: "ipyask-timebar", "aria-hidden": "true", "data-role": "timebar", hidden: fraction === null }, fill);
  }

  /** The wait line's content, for a header being built: state icon, words, Take time, bar. */
  statusNodes() {
    const tone = this.controller.tone;
    const nodes = [
      h("span", { class: "ipyask-state", "data-state": tone }, icon(STATE_ICONS[tone])),
      h("span", { class: "ipyask-wait", "data-role": "wait" }, this.statusText()),
    ];
    if (this.showTakeTime()) nodes.push(this.takeTimeButton());
    nodes.push(this.bar());
    return nodes;
  }

  /** Update the wait text and the Take-time button in place (never replace a pressed button). */
  refresh() {
    const host = this.controller.el.querySelector("[data-role=status]");
    if (!host) return;
    const text = this.statusText();
    const show = this.showTakeTime();
    const signature = `${text}|${show}`;
    const bar = host.querySelector("[data-role=timebar]");
    if (bar instanceof HTMLElement && bar.firstElementChild instanceof HTMLElement) {
      const fraction = this.fraction();
      const width = `${((fraction ?? 0) * 100).toFixed(1)}%`;
      if (bar.hidden !== (fraction === null)) bar.hidden = fraction === null;
      if (bar.firstElementChild.style.width !== width) bar.firstElementChild.style.width = width;
    }
    if (signature === this.signature) return;
    this.signature = signature;
    const wait = host.querySelector("[data-role=wait]");
    if (wait && wait.textContent !== text) wait.textContent = text;
    const button = host.querySelector("[data-action=take-time]");
    if (show && !button) wait?.after(this.takeTimeButton());
    if (!show && button) button.remove();
  }
}
