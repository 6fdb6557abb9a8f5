// @ts-check
/**
 * One card in one view: its state (drafts, collapse, busy), the re-render that keeps focus and
 * caret, and the controls every presentation shares (Take time, collapse, close). What the card
 * shows, and what its own controls do, comes from the presentation module for its kind.
 */

import { h } from "../dom.js";
import { approval } from "../presentations/approval.js";
import { generic } from "../presentations/generic.js";
import { planReview } from "../presentations/plan-review.js";
import { settled } from "../presentations/settled.js";
import { Countdown } from "./countdown.js";
import { freshDrafts } from "./drafts.js";
import { onKeyDown } from "./keyboard.js";

/**
 * @import { AnswerItem, Card, Draft } from "../types.js"
 * @import { View } from "../view.js"
 */

/**
 * A presentation module: the card's content, and what its own `data-action` controls do.
 * @typedef {object} Presenter
 * @property {(controller: CardController) => Node[]} build
 * @property {(controller: CardController, action: string, target: HTMLElement) => void} [act]
 * @property {(controller: CardController, event: Event) => void} [input]
 */

/** @type {Map<string, Presenter>} by rendered kind; an unknown kind renders as generic */
const PRESENTERS = new Map([
  ["generic", generic],
  ["plan-review", planReview],
  ["approval", approval],
  ["settled", settled],
]);

export class CardController {
  /**
   * @param {View} view
   * @param {Card} card
   */
  constructor(view, card) {
    this.view = view;
    this.card = card;
    this.el = h("article", { class: "ipyask-card", tabindex: "-1" });
    /** @type {Presenter} the presentation the card was last rendered with */
    this.presenter = generic;
    this.index = 0;
    /** @type {Draft[]} */
    this.drafts = [];
    this.collapsed = false;
    this.expanded = false;
    this.hidden = false;
    this.busy = false;
    this.rendering = false;
    /** @type {{text: string, error: boolean} | null} */
    this.feedback = null;
    this.countdown = new Countdown(this);
    this.shape = "";
    this.questionsJson = "";
    this.el.addEventListener("click", (event) => this.onClick(event));
    this.el.addEventListener("keydown", (event) => onKeyDown(this, event));
    this.el.addEventListener("input", (event) => this.presenter.input?.(this, event));
    this.el.addEventListener("focusin", () => this.countdown.setFocused(true));
    this.el.addEventListener("focusout", (event) => {
      if (!this.rendering) this.countdown.setFocused(this.el.contains(/** @type {Node | null} */ (event.relatedTarget)));
    });
    this.update(card, true);
  }

  get t() {
    return this.view.t;
  }

  get presentation() {
    return this.card.view.presentation;
  }

  get answerable() {
    return this.card.status === "pending" || this.card.status === "continued";
  }

  get keyed() {
    return typeof this.card.callId === "string";
  }

  /**
   * Apply new state for this card; re-render only when something visible changed.
   * @param {Card} card
   * @param {boolean} [first]
   */
  update(card, first = false) {
    const previous = first ? null : this.card;
    this.card = card;
    if (card.wait === "timed" && card.frame) this.view.hub.anchor(card.key, card.frame);
    const questionsJson = JSON.stringify(card.questions);
    if (questionsJson !== this.questionsJson) {
      this.questionsJson = questionsJson;
      this.index = 0;
      this.countdown.held = null;
      this.drafts = freshDrafts(card.questions);
    }
    if (previous && previous.status !== card.status) {
      this.countdown.timedOut = false;
      if (!this.answerable) {
        this.busy = false;
        this.feedback = null;
      }
    } else if (previous && previous.notice !== card.notice) {
      // The kernel acknowledged a late answer ("Answer sent") or reopened the card after the
      // queued reply was discarded: either way the submission is over, so re-arm the controls.
      this.busy = false;
    }
    const { frame: _frame, ...rest } = card;
    const shape = JSON.stringify(rest);
    if (shape !== this.shape) {
      this.shape = shape;
      this.render();
    } else {
      this.countdown.refresh();
    }
    this.view.updateClaim(this);
  }

  wantsClaim() {
    return this.card.wait === "timed" && this.card.status === "pending" && !this.hidden;
  }

  canSubmit() {
    return this.answerable && !this.countdown.timedOut;
  }

  /** @param {"first"} [focusHint] */
  render(focusHint) {
    const active = document.activeElement;
    const hadFocus = active instanceof HTMLElement && this.el.contains(active);
    const focusKey = hadFocus && active !== this.el ? active.dataset.focus ?? null : null;
    const selection =
      active instanceof HTMLTextAreaElement ? [active.selectionStart, active.selectionEnd] : null;
    this.rendering = true;
    const kind = this.answerable ? this.presentation.kind : "settled";
    this.el.className = `ipyask-card ipyask-card--${kind} ipyask-is-${this.card.status}`;
    this.el.hidden = this.hidden;
    this.el.toggleAttribute("aria-busy", this.busy);
    this.el.dataset.key = this.card.key;
    this.countdown.signature = "";
    this.presenter = PRESENTERS.get(kind) ?? generic;
    this.el.replaceChildren(...this.presenter.build(this));
    this.countdown.signature = `${this.countdown.statusText()}|${this.countdown.showTakeTime()}`;
    /** @type {HTMLElement | null} */
    let target = null;
    if (focusHint === "first") target = this.el.querySelector("[data-first]");
    else if (focusKey) target = this.el.querySelector(`[data-focus="${focusKey}"]`);
    if ((hadFocus || focusHint) && !this.hidden) {
      if (!target || /** @type {HTMLButtonElement} */ (target).disabled) target = this.el;
      target.focus({ preventScroll: true });
      if (selection && target instanceof HTMLTextAreaElement) {
        target.setSelectionRange(selection[0], selection[1]);
      }
    }
    this.rendering = false;
    this.countdown.setFocused(this.el.contains(document.activeElement));
  }

  /** @param {MouseEvent} event */
  onClick(event) {
    const target = event.target instanceof Element ? event.target.closest("[data-action]") : null;
    if (!(target instanceof HTMLElement) || !this.el.contains(target)) return;
    const action = target.dataset.action ?? "";
    if (action === "take-time") this.takeTime();
    else if (action === "collapse") this.toggleCollapse();
    else if (action === "close" || action === "dismiss") this.close();
    else this.presenter.act?.(this, action, target);
  }

  /** @param {AnswerItem[]} answers */
  sendAnswer(answers) {
    if (this.busy || !this.canSubmit()) return;
    this.busy = true;
    this.feedback = null;
    this.view.send("answer", { key: this.card.key, answer: { answers } });
    this.render();
  }

  takeTime() {
    this.countdown.held = "waiting";
    this.render();
  }

  toggleCollapse() {
    if (this.busy) return;
    if (this.answerable) this.collapsed = !this.collapsed;
    else this.expanded = !this.expanded;
    this.render();
  }

  close() {
    if (this.busy) return;
    if (!this.keyed && this.answerable) this.view.send("cancel", { key: this.card.key });
    this.hidden = true;
    this.render();
    this.view.updateClaim(this);
    this.view.updateRestore(true);
  }

  /** @param {string} text */
  showError(text) {
    if (!this.answerable) {
      this.view.showBanner(text);
      return;
    }
    this.busy = false;
    this.feedback = { text, error: true };
    this.render();
  }

  destroy() {
    this.el.remove();
  }
}
