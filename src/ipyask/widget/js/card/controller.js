// @ts-check
/**
 * One card in one view: its state (drafts, collapse, busy), the re-render that keeps focus and
 * caret, and the controls every presentation shares (Take time, collapse, close). What the card
 * shows, and what its own controls do, comes from the presentation module for its kind.
 */

import { settleArrival } from "../arrival.js";
import { h } from "../dom.js";
import { approval } from "../presentations/approval.js";
import { generic } from "../presentations/generic.js";
import { form } from "../presentations/form.js";
import { planReview } from "../presentations/plan-review.js";
import { settled } from "../presentations/settled.js";
import { toolApproval } from "../presentations/tool-approval.js";
import { Countdown } from "./countdown.js";
import { freshDrafts } from "./drafts.js";
import { onKeyDown } from "./keyboard.js";
import { cancelConfirm } from "./parts.js";

/**
 * @import { AnswerItem, Card, Draft, Presentation, Refusal } from "../types.js"
 * @import { View } from "../view.js"
 */

/**
 * A presentation module: the card's content, and what its own `data-action` controls do.
 * @typedef {object} Presenter
 * @property {(controller: CardController) => Node[]} build
 * @property {(controller: CardController, action: string, target: HTMLElement) => void} [act]
 * @property {(controller: CardController, event: Event) => void} [input]
 * @property {(controller: CardController, event: KeyboardEvent) => void} [key] the card's keys,
 *   in place of the shared ones (card/keyboard.js)
 */

/**
 * How long a card waits for the kernel's reply before saying that what it sent waits in the
 * kernel's queue. A comm message sent to a busy kernel is queued, not lost: it is handled when the
 * kernel is free, so the card stays locked until the kernel replies or provably lost it.
 */
const QUEUED_MS = 1500;

/** Refusals that mean the kernel already settled the card: its state, on its way, says how. */
const SETTLED_CODES = new Set(["ALREADY_ANSWERED", "NOT_PENDING", "NOT_ANSWERABLE"]);

/** @type {Map<string, Presenter>} by rendered kind; an unknown kind renders as generic */
const PRESENTERS = new Map([
  ["generic", generic],
  ["plan-review", planReview],
  ["approval", approval],
  ["tool-approval", toolApproval],
  ["form", form],
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
    /** what the card sent waits for the kernel's reply: every control is locked */
    this.busy = false;
    /** busy, and no reply came within QUEUED_MS: the message waits in the kernel's queue */
    this.queued = false;
    /** busy when the kernel restarted: what was sent may never have arrived */
    this.lost = false;
    /** the control whose message the card waits on (e.g. an approval's reject) */
    this.pressed = "";
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.replyTimer = undefined;
    /** a plan review's decline was pressed: the person says what to change before it is sent */
    this.requestingChanges = false;
    /** the person pressed close on an un-keyed question: Keep or Cancel it */
    this.confirmingCancel = false;
    this.rendering = false;
    /** @type {{text: string, error: boolean} | null} */
    this.feedback = null;
    /** @type {Refusal | null} the kernel's per-field refusal of the last answer sent */
    this.refusal = null;
    /** the view focused the card when it arrived, and the person has not acted in it yet */
    this.arrivalFocus = false;
    /** @type {number | null} when the view last focused the card on its arrival */
    this.arrivedAt = null;
    this.countdown = new Countdown(this);
    this.shape = "";
    this.questionsJson = "";
    this.el.addEventListener("click", (event) => this.onClick(event));
    this.el.addEventListener("keydown", (event) => onKeyDown(this, event));
    this.el.addEventListener("keydown", () => settleArrival(this));
    this.el.addEventListener("pointerdown", () => settleArrival(this));
    this.el.addEventListener("input", (event) => this.presenter.input?.(this, event));
    this.el.addEventListener("focusin", () => this.countdown.setFocused(true));
    this.el.addEventListener("focusout", (event) => {
      if (this.rendering) return;
      const inside = this.el.contains(/** @type {Node | null} */ (event.relatedTarget));
      // Later: a sync that moves the card in the list blurs it and gives the focus back.
      if (!inside) setTimeout(() => this.el.contains(document.activeElement) || settleArrival(this), 0);
      this.countdown.setFocused(inside);
    });
    this.update(card, true);
  }

  get t() {
    return this.view.t;
  }

  /**
   * How the card presents: the kernel's choice, except that a settled approval asked with a
   * deadline (answered in the generic flow, which counts down) is worded as an approval.
   * @returns {Presentation}
   */
  get presentation() {
    const p = this.card.view.presentation;
    return p.kind === "generic" && !this.answerable ? settledApproval(this.card) ?? p : p;
  }

  /**
   * Whether the person can still answer here: pending or continued, the kernel is there, and
   * so is the store of an inbox card.
   */
  get answerable() {
    return this.open && !this.view.disconnected && !this.storeClosed;
  }

  /**
   * An open card that cannot be answered here (its kernel is gone, or its store was closed in
   * the kernel): it says so instead of taking answers.
   */
  get dead() {
    return this.open && (this.view.disconnected || this.storeClosed);
  }

  /** Pending or continued in the kernel. */
  get open() {
    return this.card.status === "pending" || this.card.status === "continued";
  }

  /** An inbox card whose store the kernel closed: its question stays open there, not here. */
  get storeClosed() {
    return this.card.noticeCode === "store-closed";
  }

  /**
   * How the card looks: its status, except that an answer refusing (a rejected approval or tool
   * call, a declined or cancelled form) never looks answered, and a card whose kernel is gone
   * reads "expired".
   * @returns {"pending" | "continued" | "answered" | "rejected" | "declined" | "cancelled" | "expired"}
   */
  get tone() {
    if (this.dead) return "expired";
    const status = this.card.status;
    const item = this.card.answer?.answers[0];
    return status === "answered" && item ? refusalTone(this.presentation, item) ?? status : status;
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
    // A hold from any view (Take time, or answering) holds the question in this one too.
    if (card.held && this.countdown.held === null) this.countdown.held = "waiting";
    if (previous && previous.status !== card.status) {
      this.countdown.timedOut = false;
      if (!this.answerable) {
        this.replied();
        this.feedback = null;
        this.confirmingCancel = false;
        this.requestingChanges = false;
      }
    } else if (previous && previous.notice !== card.notice) {
      // The kernel acknowledged a late answer ("Answer sent") or reopened the card after the
      // queued reply was discarded: either way the submission is over, so re-arm the controls.
      this.replied();
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
    return this.card.wait === "timed" && this.card.status === "pending" && !this.hidden && !this.view.disconnected;
  }

  canSubmit() {
    return this.answerable && !this.countdown.timedOut;
  }

  /** @param {"first" | "keep"} [focusHint] */
  render(focusHint) {
    const active = document.activeElement;
    const hadFocus = active instanceof HTMLElement && this.el.contains(active);
    const focusKey = hadFocus && active !== this.el ? active.dataset.focus ?? null : null;
    const selection =
      active instanceof HTMLTextAreaElement ? [active.selectionStart, active.selectionEnd] : null;
    // Scrolled parts (a long list of options, a plan) keep their place across the rebuild.
    /** @type {Map<string, [number, number]>} */
    const scrolled = new Map();
    for (const part of this.el.querySelectorAll("[data-scroll]")) {
      if (part instanceof HTMLElement) scrolled.set(part.dataset.scroll ?? "", [part.scrollTop, part.scrollLeft]);
    }
    this.rendering = true;
    const kind = this.answerable ? this.presentation.kind : "settled";
    this.el.className = `ipyask-card ipyask-card--${kind} ipyask-is-${this.card.status} ipyask-tone-${this.tone}`;
    this.el.hidden = this.hidden;
    this.el.toggleAttribute("aria-busy", this.busy);
    this.el.dataset.key = this.card.key;
    this.countdown.signature = "";
    this.presenter = PRESENTERS.get(kind) ?? generic;
    const nodes = this.presenter.build(this);
    if (this.confirmingCancel && this.answerable) nodes.splice(1, 0, cancelConfirm(this));
    this.el.replaceChildren(...nodes);
    for (const part of this.el.querySelectorAll("[data-scroll]")) {
      const place = part instanceof HTMLElement ? scrolled.get(part.dataset.scroll ?? "") : undefined;
      if (place) [part.scrollTop, part.scrollLeft] = place;
    }
    this.countdown.signature = `${this.countdown.statusText()}|${this.countdown.showTakeTime()}`;
    /** @type {HTMLElement | null} */
    let target = null;
    if (focusHint === "keep") target = this.el.querySelector("[data-keep]");
    else if (focusHint === "first") target = this.el.querySelector("[data-first]");
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
    else if (action === "close") this.close();
    else if (action === "dismiss") this.close(true);
    else if (action === "keep") this.keep();
    else if (action === "cancel-confirmed") this.cancelQuestion();
    else this.presenter.act?.(this, action, target);
  }

  /** @param {AnswerItem[]} answers */
  sendAnswer(answers) {
    if (this.busy || !this.canSubmit()) return;
    this.send("answer", { answer: { answers } });
  }

  /**
   * Send `kind` about this card and wait for the kernel's reply (a card change or an error): a
   * send that fails re-arms the card at once; one that gets no reply within QUEUED_MS stays locked
   * and says it is queued, since the kernel handles it once free. Only a kernel restart re-arms it
   * (`kernelLost`).
   * @param {string} kind
   * @param {Record<string, unknown>} fields
   */
  send(kind, fields) {
    this.feedback = null;
    this.refusal = null;
    this.lost = false;
    if (!this.view.send(kind, { key: this.card.key, ...fields })) {
      this.feedback = { text: this.t.sendFailed, error: true };
      this.render();
      return;
    }
    this.busy = true;
    this.queued = false;
    clearTimeout(this.replyTimer);
    this.replyTimer = setTimeout(() => this.showQueued(), QUEUED_MS);
    this.render();
  }

  /** No reply yet: what was sent waits in the kernel's queue; say so, stay locked. */
  showQueued() {
    if (!this.busy || this.queued || this.view.disconnected) return;
    this.queued = true;
    this.feedback = null; // the line says it is queued, in the view's language (card/parts.js)
    this.render();
    this.view.announce(this.t.queued);
  }

  /** The kernel replied to what the card sent: the controls are re-armed. */
  replied() {
    clearTimeout(this.replyTimer);
    this.busy = false;
    this.queued = false;
  }

  /**
   * The kernel restarted (or the model lost its comm): a message still waiting for its reply may
   * never have arrived, and the new kernel knows none of this card. Unlock, and say so.
   */
  kernelLost() {
    if (!this.busy) return;
    this.replied();
    this.lost = true;
    this.feedback = null;
  }

  takeTime() {
    this.countdown.held = "waiting";
    this.sendHold();
    this.render();
  }

  /** Tell the kernel the person holds this timed question, so every view waits for them. */
  sendHold() {
    const card = this.card;
    if (card.wait === "timed" && card.status === "pending" && !card.held) this.view.send("hold", { key: card.key });
  }

  toggleCollapse() {
    if (this.busy) return;
    if (this.answerable) this.collapsed = !this.collapsed;
    else this.expanded = !this.expanded;
    this.render();
  }

  /**
   * Close: a keyed card hides (its tool call reopens it); an un-keyed question asks first,
   * unless `confirmed` (a button that says it declines, such as a plan's Request changes).
   * @param {boolean} [confirmed]
   */
  close(confirmed = false) {
    if (this.busy) return;
    if (!this.keyed && this.answerable && confirmed) {
      this.cancelQuestion();
      return;
    }
    if (!this.keyed && this.answerable) {
      this.confirmingCancel = true;
      this.render("keep");
      return;
    }
    this.hidden = true;
    this.render();
    this.view.updateClaim(this);
    this.view.updateRestore(true);
  }

  keep() {
    this.confirmingCancel = false;
    this.render();
    /** @type {HTMLElement | null} */ (this.el.querySelector("[data-action=close]"))?.focus({ preventScroll: true });
  }

  /** The person confirmed: cancel the question; the card stays to say it was cancelled. */
  cancelQuestion() {
    this.confirmingCancel = false;
    if (this.busy || this.keyed || !this.answerable) return;
    this.send("cancel", {});
  }

  /**
   * @param {string} text
   * @param {Refusal | null} [refusal]
   * @param {string} [code] the kernel's error code
   */
  showError(text, refusal = null, code = "") {
    if (!this.answerable) {
      this.view.showBanner(text);
      return;
    }
    if (this.busy && SETTLED_CODES.has(code)) {
      // The kernel settled the card before this answer arrived: stay locked until its state
      // shows the decision it recorded, never offer a second one meanwhile.
      clearTimeout(this.replyTimer);
      this.queued = false;
      this.feedback = { text, error: true };
      this.render();
      return;
    }
    this.replied();
    this.refusal = refusal;
    this.feedback = { text, error: true };
    this.render();
  }

  destroy() {
    clearTimeout(this.replyTimer);
    this.el.remove();
  }
}

/**
 * The approval presentation of a settled card whose one question is an approval the kernel
 * showed in the generic flow (its labels are its options), else `null`.
 * @param {Card} card
 * @returns {Presentation | null}
 */
function settledApproval(card) {
  const question = card.questions.length === 1 ? card.questions[0] : undefined;
  const intent = /** @type {{kind: string, approve?: string, reject?: string, always?: string,
   *   display?: {question?: Record<string, string>, approve?: Record<string, string>}} | undefined} */ (question?.intent);
  if (!question || intent?.kind !== "approval" || !intent.approve || !intent.reject) return null;
  const labels = [intent.reject, intent.approve, ...(intent.always ? [intent.always] : [])];
  const offered = (question.options ?? []).map((option) => option.label);
  if (offered.length !== labels.length || !labels.every((label) => offered.includes(label))) return null;
  return {
    kind: "approval",
    approve: intent.approve,
    reject: intent.reject,
    always: intent.always,
    question: intent.display?.question ?? { en: question.question },
    approveLabel: intent.display?.approve,
  };
}

/** A tool approval's decisions that refuse the call. */
const REFUSALS = new Set(["reject", "never", "stop"]);

/**
 * How an answer that refuses looks: `rejected` for a rejected approval or tool call and a plan
 * not approved (changes requested), `declined` and `cancelled` for a form; `null` for every
 * other answer.
 * @param {Presentation} p
 * @param {AnswerItem} item the first question's answer
 * @returns {"rejected" | "declined" | "cancelled" | null}
 */
function refusalTone(p, item) {
  const chosen = item.selected[0];
  if (p.kind === "plan-review") return chosen === p.approve.label ? null : "rejected";
  if (chosen === undefined) return null;
  if (p.kind === "approval") return chosen === p.reject ? "rejected" : null;
  if (p.kind === "tool-approval") return p.decisions.some((d) => REFUSALS.has(d.kind) && d.label === chosen) ? "rejected" : null;
  if (p.kind === "form") return chosen === p.decline ? "declined" : chosen === p.cancel ? "cancelled" : null;
  return null;
}
