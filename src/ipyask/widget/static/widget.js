// @ts-check
/**
 * ipyask question widget: renders every card of the `cards` state and reports what the person
 * does through custom messages (docs/protocol.md). Hand-written ESM, vanilla DOM, no imports.
 *
 * Rendering reads only the `cards`, `language` and `protocol_version` state, so a new view, a
 * reload or a second view shows the same cards. Custom messages are the fast path: the listener
 * is registered in `initialize`, so frames and card changes that arrive before a view renders
 * are kept. A `cards` message carries a change before the state does: the hub applies it over
 * any state of a lower `rev` and drops it once the state reaches that `rev`.
 *
 * All text is inserted as text. The only HTML inserted is the kernel-rendered Markdown of a
 * `detail`, which is sanitized once more here (allow-listed tags, attributes and URL schemes).
 */

const PROTOCOL_VERSION = 2;
const TICK_MS = 250;
const HEARTBEAT_MS = 5000;
const RECOMMENDED = /\s*(?:\((?:recommended|推荐)\)|（(?:recommended|推荐)）)\s*$/i;
const ICON_URL = /^(?:https?:|data:image\/)/i;

/**
 * @typedef {{
 *   get(name: string): any,
 *   set(name: string, value: unknown): void,
 *   on(event: string, callback: (...args: any[]) => void): void,
 *   off(event: string, callback?: (...args: any[]) => void): void,
 *   send(content: object, callbacks?: unknown, buffers?: ArrayBuffer[]): void,
 *   save_changes(): void,
 * }} Model
 * @typedef {{label: string, description?: string}} Option
 * @typedef {{id: string, question: string, detail?: string, header?: string,
 *   options?: Option[], multiSelect?: boolean, intent?: {kind: string}}} Question
 * @typedef {{id: string, selected: string[], custom?: string}} AnswerItem
 * @typedef {{answers: AnswerItem[]}} Answer
 * @typedef {{kind: "generic"}
 *   | {kind: "plan-review", approve: Option, decline?: Option}
 *   | {kind: "approval", approve: string, reject: string, always?: string,
 *      subjectName?: string, subjectIcon?: string, question: Record<string, string>,
 *      detailHtml?: Record<string, string>, approveLabel?: Record<string, string>}} Presentation
 * @typedef {{key: string, callId?: string, wait: "none" | "indefinite" | "timed",
 *   questions: Question[], status: "pending" | "continued" | "answered" | "cancelled" | "expired",
 *   answer?: Answer, frame?: {remainingMs: number, seq: number}, notice?: string,
 *   view: {presentation: Presentation, detailHtml: (string | null)[]}}} Card
 * @typedef {{selected: string[], custom: string, skipped: boolean}} Draft
 * @typedef {{seq: number, deadline: number}} Anchor
 * @typedef {{rev: number, cards: unknown[]}} CardState
 * @typedef {{rev: number, upsert: unknown[], remove: unknown[]}} CardChange
 */

/** @type {Record<"en" | "zh", Record<string, string>>} */
const STRINGS = {
  en: {
    countdown: "Continuing in {seconds}s",
    paused: "Paused · {seconds}s remaining",
    waiting: "Waiting until you answer",
    continued: "Work continued — you can still answer",
    answered: "Answered",
    cancelled: "Cancelled",
    expired: "Expired",
    takeTime: "Take time",
    skip: "Skip",
    next: "Next",
    submit: "Submit",
    submitting: "Submitting…",
    recommended: "Recommended",
    placeholder: "Type your answer",
    other: "Other answer",
    incomplete: "Please select an option or enter a custom answer.",
    completeFirst: "Please complete this question first.",
    noChannel: "Can't submit right now; please try again shortly.",
    collapse: "Collapse the question card",
    expand: "Expand the question card",
    closeKeyed: "Close the panel — reopen it from the tool call",
    dismissAll: "Dismiss all questions",
    previous: "Previous question",
    following: "Next question",
    questionOf: "Question {index} of {total}",
    skipped: "Skipped",
    skippedItem: "This question was skipped.",
    answerPrefix: "Answer: ",
    planReview: "Plan review",
    requestChanges: "Request changes",
    approvePlan: "Approve",
    waitingApproval: "Waiting for approval",
    approvalDetails: "Approval details",
    reject: "Reject",
    allowOnce: "Allow once",
    alwaysAllow: "Always allow",
    showHidden: "Show hidden questions ({count})",
    dismissError: "Dismiss the message",
  },
  zh: {
    countdown: "{seconds} 秒后继续工作",
    paused: "已暂停 · 剩余 {seconds} 秒",
    waiting: "会一直等你回答",
    continued: "已继续工作，仍可回答",
    answered: "已回答",
    cancelled: "已取消",
    expired: "已失效",
    takeTime: "慢慢回答",
    skip: "跳过",
    next: "下一题",
    submit: "提交",
    submitting: "正在提交…",
    recommended: "推荐",
    placeholder: "输入你的答案",
    other: "其他答案",
    incomplete: "请选择一个选项或填写自定义答案。",
    completeFirst: "请先完成这道问题。",
    noChannel: "当前无法提交，请稍候再试。",
    collapse: "收起问题卡片",
    expand: "展开问题卡片",
    closeKeyed: "收起问题面板，可从工具调用重新打开",
    dismissAll: "放弃整组问题",
    previous: "上一个问题",
    following: "下一个问题",
    questionOf: "第 {index} 题，共 {total} 题",
    skipped: "已跳过",
    skippedItem: "这道问题当时被跳过。",
    answerPrefix: "回答：",
    planReview: "计划待审",
    requestChanges: "要求修改",
    approvePlan: "同意执行",
    waitingApproval: "等待审批",
    approvalDetails: "审批详情",
    reject: "拒绝",
    allowOnce: "允许一次",
    alwaysAllow: "始终允许",
    showHidden: "显示已收起的问题（{count}）",
    dismissError: "关闭提示",
  },
};

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/**
 * Create an element; string children become text nodes (never HTML).
 * @param {string} tag
 * @param {Record<string, string | number | boolean | null | undefined>} [attrs]
 * @param {(Node | string | null | undefined | false)[]} children
 * @returns {HTMLElement}
 */
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = String(value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

/**
 * @param {string} template
 * @param {Record<string, string | number>} values
 */
function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
}

/** @type {Map<string, SVGSVGElement>} one prototype per icon; cloning is much cheaper */
const ICONS = new Map();

/** @param {string} path */
function icon(path) {
  let proto = ICONS.get(path);
  if (!proto) {
    const ns = "http://www.w3.org/2000/svg";
    proto = document.createElementNS(ns, "svg");
    proto.setAttribute("viewBox", "0 0 16 16");
    proto.setAttribute("aria-hidden", "true");
    proto.setAttribute("focusable", "false");
    proto.setAttribute("class", "ipyask-svg");
    const line = document.createElementNS(ns, "path");
    line.setAttribute("d", path);
    proto.append(line);
    ICONS.set(path, proto);
  }
  return /** @type {SVGSVGElement} */ (proto.cloneNode(true));
}

const ICON_CHEVRON = "M4 6l4 4 4-4";
const ICON_CLOSE = "M4 4l8 8M12 4l-8 8";
const ICON_PENCIL = "M3 13l1-3 6.5-6.5 2 2L6 12z";
const ICON_CHECK = "M3.5 8.5l3 3 6-7";

/** @param {string} label */
function parseLabel(label) {
  const match = RECOMMENDED.exec(label);
  return match ? { text: label.slice(0, match.index), recommended: true } : { text: label, recommended: false };
}

/** @param {Draft} draft */
function isAnswered(draft) {
  return draft.selected.length > 0 || draft.custom.trim() !== "";
}

/**
 * Encode a draft as the reference does (semantics §6.4).
 * @param {Question} question
 * @param {Draft} draft
 * @returns {AnswerItem}
 */
function encode(question, draft) {
  if (draft.skipped) return { id: question.id, selected: [] };
  const custom = draft.custom.trim();
  const selected = custom === "" || question.multiSelect ? [...draft.selected] : [];
  return custom ? { id: question.id, selected, custom } : { id: question.id, selected };
}

/** @param {AnswerItem} item */
function answerValues(item) {
  const custom = (item.custom ?? "").trim();
  return custom ? [...item.selected, custom] : [...item.selected];
}

/**
 * Pick a localized text: exact tag, then the primary subtag, then `en`.
 * @param {Record<string, string> | undefined} map
 * @param {string} tag
 */
function localized(map, tag) {
  if (!map) return undefined;
  const lower = tag.toLowerCase().replace(/_/g, "-");
  const entries = Object.entries(map);
  const exact = entries.find(([locale]) => locale.toLowerCase().replace(/_/g, "-") === lower);
  if (exact) return exact[1];
  const primary = lower.split("-")[0];
  const partial = entries.find(([locale]) => locale.toLowerCase().split(/[-_]/)[0] === primary);
  return partial ? partial[1] : map.en;
}

/** @param {number} bytes */
function randomId(bytes) {
  const data = new Uint8Array(bytes);
  crypto.getRandomValues(data);
  return Array.from(data, (b) => b.toString(16).padStart(2, "0")).join("");
}

// ---------------------------------------------------------------------------------------------
// Sanitizer for kernel-rendered Markdown (defence in depth; the kernel already sanitized it)
// ---------------------------------------------------------------------------------------------

const KEEP = new Set(
  "P H1 H2 H3 H4 H5 H6 STRONG EM B I CODE PRE UL OL LI A BLOCKQUOTE HR BR TABLE THEAD TBODY TR TH TD DEL S IMG SPAN".split(" "),
);
const ATTRS = /** @type {Record<string, string[]>} */ ({
  A: ["href", "title"],
  IMG: ["src", "alt", "title"],
  OL: ["start"],
  TH: ["style"],
  TD: ["style"],
  CODE: ["class"],
});

/**
 * @param {string} url
 * @param {boolean} image
 */
function safeUrl(url, image) {
  const value = url.replace(/[\u0000-\u0020]/g, "");
  const scheme = /^([a-z][a-z0-9+.\-]*):/i.exec(value);
  if (!scheme) return true;
  if (/^(?:https?|mailto)$/i.test(scheme[1])) return true;
  return image && /^data:image\/(?:png|gif|jpeg|webp)[;,]/i.test(value);
}

const DROP = /^(?:SCRIPT|STYLE|IFRAME|FRAME|OBJECT|EMBED|TEMPLATE|SVG|MATH|NOSCRIPT)$/i;

/** @param {Element} node */
function scrubAttributes(node) {
  const allowed = ATTRS[node.tagName] ?? [];
  for (const attr of Array.from(node.attributes)) {
    const name = attr.name.toLowerCase();
    let ok = allowed.includes(name);
    if (ok && (name === "href" || name === "src")) ok = safeUrl(attr.value, name === "src");
    if (ok && name === "style") ok = /^text-align:\s*(?:left|right|center)$/i.test(attr.value);
    if (ok && name === "class") ok = /^language-[\w-]+$/.test(attr.value);
    if (!ok) node.removeAttribute(attr.name);
  }
}

/**
 * Keep allow-listed elements and attributes only: active elements are dropped with their
 * content, other unknown elements are unwrapped (their text stays). One flat pass.
 * @param {DocumentFragment} root
 */
function scrub(root) {
  for (const node of Array.from(root.querySelectorAll("*"))) {
    if (!KEEP.has(node.tagName)) {
      if (DROP.test(node.tagName)) node.remove();
      else node.replaceWith(...Array.from(node.childNodes));
      continue;
    }
    if (node.attributes.length > 0) scrubAttributes(node);
    if (node.tagName === "A") {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer nofollow");
    } else if (node.tagName === "IMG") {
      if (!node.hasAttribute("src")) node.remove();
      else {
        node.setAttribute("referrerpolicy", "no-referrer");
        if (!node.hasAttribute("alt")) node.setAttribute("alt", "");
      }
    }
  }
}

/**
 * Parse HTML inertly (a template never runs scripts or loads resources), then scrub it.
 * @param {string} html
 */
function markdownBlock(html) {
  const template = document.createElement("template");
  template.innerHTML = html;
  scrub(template.content);
  const block = h("div", { class: "ipyask-markdown" });
  block.append(template.content);
  return block;
}

// ---------------------------------------------------------------------------------------------
// Per-model hub: the message listener lives here (registered in `initialize`)
// ---------------------------------------------------------------------------------------------

class Hub {
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
      for (const view of this.views) {
        if (typeof viewId === "string" && viewId !== view.id) continue;
        view.onError(typeof key === "string" ? key : null, message.message);
      }
    }
  }
}

/** @type {WeakMap<Model, Hub>} */
const hubs = new WeakMap();

/** @param {Model} model */
function hubOf(model) {
  let hub = hubs.get(model);
  if (!hub) {
    hub = new Hub(model);
    hubs.set(model, hub);
  }
  return hub;
}

// ---------------------------------------------------------------------------------------------
// One card
// ---------------------------------------------------------------------------------------------

/** @param {EventTarget | null} target */
function isEditable(target) {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || /^(?:INPUT|TEXTAREA|SELECT)$/.test(target.tagName))
  );
}

class CardController {
  /**
   * @param {View} view
   * @param {Card} card
   */
  constructor(view, card) {
    this.view = view;
    this.card = card;
    this.el = h("article", { class: "ipyask-card", tabindex: "-1" });
    this.index = 0;
    /** @type {Draft[]} */
    this.drafts = [];
    this.collapsed = false;
    this.expanded = false;
    this.hidden = false;
    /** @type {null | "waiting" | "editing"} */
    this.held = null;
    this.focused = false;
    this.busy = false;
    this.timedOut = false;
    this.rendering = false;
    /** @type {{text: string, error: boolean} | null} */
    this.feedback = null;
    /** @type {{seq: number, deadline: number, paused: number | null}} */
    this.timing = { seq: -1, deadline: 0, paused: null };
    this.shape = "";
    this.questionsJson = "";
    this.statusSignature = "";
    this.el.addEventListener("click", (event) => this.onClick(event));
    this.el.addEventListener("keydown", (event) => this.onKeyDown(event));
    this.el.addEventListener("input", (event) => this.onInput(event));
    this.el.addEventListener("focusin", () => this.setFocused(true));
    this.el.addEventListener("focusout", (event) => {
      if (!this.rendering) this.setFocused(this.el.contains(/** @type {Node | null} */ (event.relatedTarget)));
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
      this.resetDrafts();
    }
    if (previous && previous.status !== card.status) {
      this.timedOut = false;
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
      this.refreshStatus();
    }
    this.view.updateClaim(this);
  }

  resetDrafts() {
    this.index = 0;
    this.held = null;
    this.drafts = this.card.questions.map((question) => {
      const first = question.options?.[0];
      const preselect = first !== undefined && parseLabel(first.label).recommended;
      return { selected: preselect ? [first.label] : [], custom: "", skipped: false };
    });
  }

  wantsClaim() {
    return this.card.wait === "timed" && this.card.status === "pending" && !this.hidden;
  }

  // -- countdown ------------------------------------------------------------------------------

  isPaused() {
    return this.focused && this.view.windowActive && this.held === null;
  }

  /** @param {number} now */
  remaining(now) {
    if (this.card.wait !== "timed" || this.card.status !== "pending") return null;
    const anchor = this.view.hub.frames.get(this.card.key);
    if (!anchor) return null;
    if (anchor.seq !== this.timing.seq) {
      const paused = this.isPaused() ? Math.max(0, anchor.deadline - now) : null;
      this.timing = { seq: anchor.seq, deadline: anchor.deadline, paused };
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
    this.refreshStatus();
  }

  /** @param {number} now */
  tick(now) {
    if (this.card.wait !== "timed" || this.card.status !== "pending" || this.hidden) return;
    const remaining = this.remaining(now);
    if (remaining === null) return;
    const claimed = this.view.claimed.has(this.card.key);
    if (remaining <= 0 && claimed && !this.timedOut && !this.busy && !this.isPaused() && !this.held) {
      this.timedOut = true;
      this.view.send("timed_out", { key: this.card.key });
      this.render(); // no channel until the card is continued: disable Submit
      return;
    }
    this.refreshStatus();
  }

  statusText() {
    const t = this.t;
    const status = this.card.status;
    if (status !== "pending") return t[status];
    const remaining = this.remaining(Date.now());
    if (remaining === null) return "";
    if (this.held) return t.waiting;
    const seconds = Math.ceil(remaining / 1000);
    return fill(this.timing.paused !== null ? t.paused : t.countdown, { seconds });
  }

  showTakeTime() {
    return !this.busy && this.held === null && this.remaining(Date.now()) !== null;
  }

  takeTimeButton() {
    return h(
      "button",
      { type: "button", class: "ipyask-btn ipyask-btn--ghost", "data-action": "take-time", "data-focus": "take-time" },
      this.t.takeTime,
    );
  }

  statusNodes() {
    const nodes = [h("span", { class: "ipyask-wait", "data-role": "wait" }, this.statusText())];
    if (this.showTakeTime()) nodes.push(this.takeTimeButton());
    return nodes;
  }

  /** Update the wait text and the Take-time button in place (never replace a pressed button). */
  refreshStatus() {
    const host = this.el.querySelector("[data-role=status]");
    if (!host) return;
    const text = this.statusText();
    const show = this.showTakeTime();
    const signature = `${text}|${show}`;
    if (signature === this.statusSignature) return;
    this.statusSignature = signature;
    const wait = host.querySelector("[data-role=wait]");
    if (wait && wait.textContent !== text) wait.textContent = text;
    const button = host.querySelector("[data-action=take-time]");
    if (show && !button) host.append(this.takeTimeButton());
    if (!show && button) button.remove();
  }

  // -- rendering ------------------------------------------------------------------------------

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
    this.statusSignature = "";
    this.el.replaceChildren(...this.build(kind));
    this.statusSignature = `${this.statusText()}|${this.showTakeTime()}`;
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
    this.setFocused(this.el.contains(document.activeElement));
  }

  /** @param {string} kind */
  build(kind) {
    if (kind === "settled") return this.buildSettled();
    if (kind === "plan-review") return this.buildPlan();
    if (kind === "approval") return this.buildApproval();
    return this.buildGeneric();
  }

  /**
   * @param {{eyebrow?: (string | Node)[], title: string, bodyId?: string, expanded?: boolean,
   *   subject?: Node | null}} parts
   */
  header(parts) {
    const t = this.t;
    const titleId = this.view.nextId();
    this.el.setAttribute("aria-labelledby", titleId);
    const actions = h("div", { class: "ipyask-actions" }, h("div", { class: "ipyask-status", "data-role": "status" }, ...this.statusNodes()));
    if (parts.bodyId) {
      const expanded = parts.expanded ?? !this.collapsed;
      actions.append(
        h(
          "button",
          {
            type: "button",
            class: "ipyask-icon",
            "aria-expanded": String(expanded),
            "aria-controls": expanded ? parts.bodyId : null,
            "aria-label": expanded ? t.collapse : t.expand,
            title: expanded ? t.collapse : t.expand,
            "data-action": "collapse",
            "data-focus": "collapse",
            disabled: this.busy,
          },
          icon(ICON_CHEVRON),
        ),
      );
    }
    const closeLabel = !this.keyed && this.answerable ? t.dismissAll : t.closeKeyed;
    actions.append(
      h(
        "button",
        { type: "button", class: "ipyask-icon", "aria-label": closeLabel, title: closeLabel, "data-action": "close", "data-focus": "close", disabled: this.busy },
        icon(ICON_CLOSE),
      ),
    );
    const eyebrow = parts.eyebrow?.length ? h("p", { class: "ipyask-eyebrow" }, ...parts.eyebrow) : null;
    return h(
      "header",
      { class: "ipyask-head" },
      h("div", { class: "ipyask-head__main" }, eyebrow, parts.subject ?? null, h("h2", { class: "ipyask-title", id: titleId }, parts.title)),
      actions,
    );
  }

  notice() {
    return this.card.notice ? h("p", { class: "ipyask-notice" }, this.card.notice) : null;
  }

  feedbackLine() {
    const feedback = this.feedback;
    return h(
      "p",
      { class: `ipyask-feedback${feedback?.error ? " ipyask-feedback--error" : ""}`, role: "status", "data-role": "feedback" },
      feedback?.text ?? "",
    );
  }

  /**
   * @param {string} action
   * @param {string} text
   * @param {{primary?: boolean, title?: string, disabled?: boolean, icon?: string}} [options]
   */
  button(action, text, options = {}) {
    return h(
      "button",
      {
        type: "button",
        class: `ipyask-btn ${options.primary ? "ipyask-btn--primary" : "ipyask-btn--outline"}`,
        "data-action": action,
        "data-focus": action,
        title: options.title ?? null,
        disabled: this.busy || options.disabled,
      },
      options.icon ? icon(options.icon) : null,
      text,
    );
  }

  buildGeneric() {
    const t = this.t;
    const questions = this.card.questions;
    const question = questions[this.index];
    const draft = this.drafts[this.index];
    const total = questions.length;
    const last = this.index === total - 1;
    const bodyId = this.view.nextId();
    const head = this.header({ eyebrow: question.header ? [question.header] : [], title: question.question, bodyId });
    const titleId = head.querySelector("h2")?.id ?? "";
    if (this.collapsed) return [head, this.notice()].filter(isNode);

    const body = h("div", { class: "ipyask-body", id: bodyId });
    const html = this.card.view.detailHtml[this.index];
    if (typeof html === "string") body.append(markdownBlock(html));
    const options = question.options ?? [];
    const multi = Boolean(question.multiSelect);
    if (options.length > 0) {
      const group = h("div", { class: "ipyask-options", role: multi ? "group" : "radiogroup", "aria-labelledby": titleId });
      options.forEach((option, i) => group.append(this.optionButton(option, i, multi, draft)));
      body.append(group);
      const mark = multi
        ? h("span", { class: `ipyask-check${draft.custom.trim() ? " ipyask-is-checked" : ""}`, "data-role": "custom-mark" }, icon(ICON_CHECK))
        : h("span", { class: "ipyask-pencil" }, icon(ICON_PENCIL));
      mark.setAttribute("aria-hidden", "true");
      body.append(h("div", { class: "ipyask-custom" }, mark, this.customField({ "aria-label": t.other })));
    } else {
      body.append(h("div", { class: "ipyask-custom ipyask-custom--block" }, this.customField({ "aria-labelledby": titleId, "data-first": true })));
    }

    const foot = h("div", { class: "ipyask-foot" });
    if (total > 1) {
      foot.append(
        h(
          "div",
          { class: "ipyask-pager" },
          h("button", { type: "button", class: "ipyask-icon", "aria-label": t.previous, title: t.previous, "data-action": "prev", "data-focus": "prev", disabled: this.busy || this.index === 0 }, "‹"),
          h(
            "span",
            { class: "ipyask-pager__pos" },
            h("span", { "aria-hidden": "true" }, `${this.index + 1} / ${total}`),
            h("span", { class: "ipyask-sr" }, fill(t.questionOf, { index: this.index + 1, total })),
          ),
          h("button", { type: "button", class: "ipyask-icon", "aria-label": t.following, title: t.following, "data-action": "next", "data-focus": "next", disabled: this.busy || last }, "›"),
        ),
      );
    }
    foot.append(
      this.feedbackLine(),
      h(
        "div",
        { class: "ipyask-buttons" },
        this.button("skip", t.skip),
        this.button("primary", this.busy ? t.submitting : last ? t.submit : t.next, {
          primary: true,
          disabled: !isAnswered(draft) || (last && !this.canSubmit()),
        }),
      ),
    );
    return [head, this.notice(), body, foot].filter(isNode);
  }

  /**
   * @param {Option} option
   * @param {number} i
   * @param {boolean} multi
   * @param {Draft} draft
   */
  optionButton(option, i, multi, draft) {
    const { text, recommended } = parseLabel(option.label);
    const name = text.trim() ? text : option.label;
    const badgeId = recommended ? this.view.nextId() : null;
    const descId = option.description ? this.view.nextId() : null;
    const checked = draft.selected.includes(option.label);
    const marker = multi
      ? h("span", { class: "ipyask-check" }, icon(ICON_CHECK))
      : h("span", { class: "ipyask-num" }, String(i + 1));
    marker.setAttribute("aria-hidden", "true");
    return h(
      "button",
      {
        type: "button",
        class: "ipyask-option",
        role: multi ? "checkbox" : "radio",
        "aria-checked": String(checked),
        "aria-label": name,
        "aria-describedby": [badgeId, descId].filter(Boolean).join(" ") || null,
        "data-action": "option",
        "data-index": i,
        "data-focus": `opt-${i}`,
        "data-first": i === 0,
        disabled: this.busy,
      },
      marker,
      h(
        "span",
        { class: "ipyask-option__text" },
        h("span", { class: "ipyask-option__label" }, name),
        badgeId ? h("span", { class: "ipyask-badge", id: badgeId }, this.t.recommended) : null,
        descId ? h("span", { class: "ipyask-option__desc", id: descId }, option.description ?? "") : null,
      ),
    );
  }

  /** @param {Record<string, string | boolean>} attrs */
  customField(attrs) {
    const draft = this.drafts[this.index];
    const field = /** @type {HTMLTextAreaElement} */ (
      h("textarea", {
        class: "ipyask-input",
        rows: Math.min(8, draft.custom.split("\n").length),
        placeholder: this.t.placeholder,
        "data-action": "custom",
        "data-focus": "custom",
        disabled: this.busy,
        ...attrs,
      })
    );
    field.value = draft.custom;
    return field;
  }

  buildPlan() {
    const t = this.t;
    const plan = /** @type {Extract<Presentation, {kind: "plan-review"}>} */ (this.presentation);
    const question = this.card.questions[0];
    const bodyId = this.view.nextId();
    const eyebrow = [h("span", { class: "ipyask-dot", "aria-hidden": "true" }), t.planReview];
    const head = this.header({ eyebrow, title: question.question, bodyId });
    const titleId = head.querySelector("h2")?.id ?? "";
    const parts = [head, this.notice()];
    if (!this.collapsed) {
      const body = h("div", { class: "ipyask-body ipyask-plan", id: bodyId, role: "group", tabindex: "0", "aria-labelledby": titleId, "data-focus": "plan" });
      body.append(markdownBlock(this.card.view.detailHtml[0] ?? ""));
      parts.push(body);
    }
    const decline = plan.decline
      ? this.button("decline", parseLabel(plan.decline.label).text || plan.decline.label, { title: plan.decline.description })
      : this.button("dismiss", t.requestChanges, { icon: ICON_PENCIL });
    const approve = this.button("approve", this.busy ? t.submitting : t.approvePlan, {
      primary: true,
      title: plan.approve.description,
      disabled: !this.canSubmit(),
    });
    parts.push(h("div", { class: "ipyask-foot" }, this.feedbackLine(), h("div", { class: "ipyask-buttons" }, decline, approve)));
    return parts.filter(isNode);
  }

  buildApproval() {
    const t = this.t;
    const approval = /** @type {Extract<Presentation, {kind: "approval"}>} */ (this.presentation);
    const locale = this.view.locale;
    const question = localized(approval.question, locale) ?? this.card.questions[0].question;
    const detail = approval.detailHtml ? localized(approval.detailHtml, locale) : this.card.view.detailHtml[0];
    const iconUrl = approval.subjectIcon && ICON_URL.test(approval.subjectIcon.trim()) ? approval.subjectIcon.trim() : null;
    const subject =
      approval.subjectName || iconUrl
        ? h(
            "p",
            { class: "ipyask-subject" },
            iconUrl ? h("img", { class: "ipyask-subject__icon", src: iconUrl, alt: "", width: 20, height: 20, referrerpolicy: "no-referrer" }) : null,
            h("span", {}, approval.subjectName ?? ""),
          )
        : null;
    const eyebrow = [h("span", { class: "ipyask-dot", "aria-hidden": "true" }), t.waitingApproval];
    const head = this.header({ eyebrow, title: question, subject });
    const details = h("div", { class: "ipyask-approval-detail", role: "group", tabindex: "0", "aria-label": t.approvalDetails, "data-focus": "details" });
    if (typeof detail === "string") details.append(markdownBlock(detail));
    const buttons = h("div", { class: "ipyask-buttons" }, this.button("reject", t.reject));
    if (approval.always) buttons.append(this.button("always", t.alwaysAllow));
    buttons.append(
      this.button("approve", this.busy ? t.submitting : localized(approval.approveLabel, locale) ?? t.allowOnce, {
        primary: true,
        disabled: !this.canSubmit(),
      }),
    );
    return [head, this.notice(), h("div", { class: "ipyask-body" }, details), h("div", { class: "ipyask-foot" }, this.feedbackLine(), buttons)].filter(isNode);
  }

  buildSettled() {
    const t = this.t;
    const first = this.card.questions[0];
    const answer = this.card.status === "answered" ? this.card.answer : undefined;
    const items = answer?.answers ?? [];
    const bodyId = items.length > 0 ? this.view.nextId() : undefined;
    const head = this.header({ eyebrow: first.header ? [first.header] : [], title: first.question, bodyId, expanded: this.expanded });
    const parts = [head];
    if (answer) {
      const values = items.flatMap(answerValues);
      const body = h("div", { class: "ipyask-body ipyask-summary", id: bodyId ?? null });
      body.append(h("p", { class: "ipyask-summary__line" }, values.length ? values.join(", ") : t.skipped));
      if (this.expanded) {
        const list = h("dl", { class: "ipyask-summary__list" });
        for (const question of this.card.questions) {
          const item = items.find((candidate) => candidate.id === question.id);
          const given = item ? answerValues(item) : [];
          const label = question.header && question.header !== question.question ? `${question.header} — ${question.question}` : question.question;
          list.append(h("dt", {}, label), h("dd", {}, given.length ? t.answerPrefix + given.join(", ") : t.skippedItem));
        }
        body.append(list);
      }
      parts.push(body);
    }
    parts.push(/** @type {HTMLElement} */ (this.notice()));
    return parts.filter(isNode);
  }

  canSubmit() {
    return this.answerable && !this.timedOut;
  }

  // -- interaction ----------------------------------------------------------------------------

  /** @param {MouseEvent} event */
  onClick(event) {
    const target = event.target instanceof Element ? event.target.closest("[data-action]") : null;
    if (!(target instanceof HTMLElement) || !this.el.contains(target)) return;
    const action = target.dataset.action;
    const question = this.card.questions[this.index];
    if (action === "option") this.selectOption(Number(target.dataset.index));
    else if (action === "prev" || action === "next") this.go(this.index + (action === "prev" ? -1 : 1));
    else if (action === "skip") this.skip();
    else if (action === "primary") this.primary();
    else if (action === "take-time") this.takeTime();
    else if (action === "collapse") this.toggleCollapse();
    else if (action === "close" || action === "dismiss") this.close();
    else if (action === "approve" || action === "reject" || action === "always" || action === "decline") {
      const label = this.actionLabel(action);
      if (label !== null) this.sendAnswer([{ id: question.id, selected: [label] }]);
    }
  }

  /** @param {string} action */
  actionLabel(action) {
    const p = this.presentation;
    if (p.kind === "plan-review") return action === "approve" ? p.approve.label : action === "decline" ? p.decline?.label ?? null : null;
    if (p.kind === "approval") return action === "approve" ? p.approve : action === "reject" ? p.reject : action === "always" ? p.always ?? null : null;
    return null;
  }

  /** @param {KeyboardEvent} event */
  onKeyDown(event) {
    if (event.defaultPrevented || !this.answerable || this.busy) return;
    const target = /** @type {HTMLElement} */ (event.target);
    const composing = event.isComposing || event.keyCode === 229;
    const modified = event.altKey || event.ctrlKey || event.metaKey;
    const kind = this.presentation.kind;
    if (kind === "approval") {
      if (isEditable(target) || modified || event.shiftKey || event.repeat || composing) return;
      if (event.key === "Enter" && !target.closest("button, a")) {
        event.preventDefault();
        this.onClickAction("approve");
      } else if (event.key === "Escape") {
        event.preventDefault();
        this.onClickAction("reject");
      }
      return;
    }
    if (kind !== "generic") return;
    const action = target.dataset.action;
    if (action === "custom") {
      if (event.key === "Enter" && !event.shiftKey && !composing && !modified) {
        event.preventDefault();
        this.primary();
      }
      return;
    }
    if (isEditable(target) || modified || composing) return;
    if (action === "option" && event.key === "Enter") {
      event.preventDefault();
      this.submit();
    } else if (action === "option" && /^Arrow(?:Up|Down|Left|Right)$/.test(event.key)) {
      event.preventDefault();
      const buttons = Array.from(this.el.querySelectorAll("[data-action=option]"));
      const step = event.key === "ArrowUp" || event.key === "ArrowLeft" ? -1 : 1;
      const next = buttons[(buttons.indexOf(target) + step + buttons.length) % buttons.length];
      if (next instanceof HTMLElement) next.focus();
    } else if (/^[1-9]$/.test(event.key) && !event.shiftKey) {
      const index = Number(event.key) - 1;
      if (index < (this.card.questions[this.index].options?.length ?? 0)) {
        event.preventDefault();
        this.selectOption(index);
      }
    }
  }

  /** @param {"approve" | "reject"} action */
  onClickAction(action) {
    const label = this.actionLabel(action);
    if (label !== null && this.canSubmit()) this.sendAnswer([{ id: this.card.questions[0].id, selected: [label] }]);
  }

  /** @param {Event} event */
  onInput(event) {
    const field = event.target;
    if (!(field instanceof HTMLTextAreaElement) || field.dataset.action !== "custom") return;
    const question = this.card.questions[this.index];
    const draft = this.drafts[this.index];
    draft.custom = field.value;
    draft.skipped = false;
    if (!question.multiSelect && field.value !== "") draft.selected = [];
    field.rows = Math.min(8, field.value.split("\n").length);
    this.engage();
    this.feedback = null;
    this.syncControls();
  }

  /** Update the dynamic bits in place (no rebuild: keeps the caret and any IME composition). */
  syncControls() {
    const question = this.card.questions[this.index];
    const draft = this.drafts[this.index];
    for (const button of this.el.querySelectorAll("[data-action=option]")) {
      const option = question.options?.[Number(/** @type {HTMLElement} */ (button).dataset.index)];
      button.setAttribute("aria-checked", String(option !== undefined && draft.selected.includes(option.label)));
    }
    this.el.querySelector("[data-role=custom-mark]")?.classList.toggle("ipyask-is-checked", draft.custom.trim() !== "");
    const primary = /** @type {HTMLButtonElement | null} */ (this.el.querySelector("[data-action=primary]"));
    const last = this.index === this.card.questions.length - 1;
    if (primary) primary.disabled = this.busy || !isAnswered(draft) || (last && !this.canSubmit());
    const line = this.el.querySelector("[data-role=feedback]");
    if (line) {
      line.textContent = this.feedback?.text ?? "";
      line.classList.toggle("ipyask-feedback--error", Boolean(this.feedback?.error));
    }
    this.refreshStatus();
  }

  engage() {
    if (this.held === null) this.held = "editing";
  }

  /** @param {number} index */
  selectOption(index) {
    if (this.busy || !this.answerable) return;
    const question = this.card.questions[this.index];
    const option = question.options?.[index];
    if (!option) return;
    const draft = this.drafts[this.index];
    if (question.multiSelect) {
      const at = draft.selected.indexOf(option.label);
      if (at >= 0) draft.selected.splice(at, 1);
      else draft.selected.push(option.label);
      draft.skipped = false;
    } else {
      this.drafts[this.index] = { selected: [option.label], custom: "", skipped: false };
    }
    this.engage();
    this.feedback = null;
    if (!question.multiSelect && this.index < this.card.questions.length - 1) this.go(this.index + 1);
    else this.render();
  }

  /** @param {number} index */
  go(index) {
    if (index < 0 || index >= this.card.questions.length || this.busy) return;
    this.index = index;
    this.feedback = null;
    this.render("first");
  }

  primary() {
    if (this.busy) return;
    if (!isAnswered(this.drafts[this.index])) {
      this.feedback = { text: this.t.incomplete, error: true };
      this.syncControls();
      return;
    }
    if (this.index < this.card.questions.length - 1) this.go(this.index + 1);
    else this.submit();
  }

  skip() {
    if (this.busy) return;
    this.drafts[this.index] = { selected: [], custom: "", skipped: true };
    this.engage();
    if (this.index < this.card.questions.length - 1) this.go(this.index + 1);
    else this.submit();
  }

  submit() {
    if (this.busy) return;
    const missing = this.drafts.findIndex((draft) => !draft.skipped && !isAnswered(draft));
    if (missing >= 0) {
      this.index = missing;
      this.feedback = { text: this.t.completeFirst, error: true };
      this.render("first");
      return;
    }
    if (!this.canSubmit()) {
      this.feedback = { text: this.t.noChannel, error: true };
      this.render();
      return;
    }
    this.sendAnswer(this.card.questions.map((question, i) => encode(question, this.drafts[i])));
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
    this.held = "waiting";
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

/**
 * @template {Node} T
 * @param {T | null | undefined | false} node
 * @returns {node is T}
 */
function isNode(node) {
  return node instanceof Node;
}

/**
 * The kernel syncs `cards` as the JSON text of `{rev, cards}`; a plain list (text or not) is
 * taken as revision 0.
 * @param {unknown} raw
 * @returns {CardState}
 */
function parseState(raw) {
  let value = raw;
  if (typeof raw === "string") {
    try {
      value = JSON.parse(raw);
    } catch {
      value = [];
    }
  }
  if (Array.isArray(value)) return { rev: 0, cards: value };
  if (value && typeof value === "object") {
    const { rev, cards } = /** @type {Record<string, unknown>} */ (value);
    if (Array.isArray(cards)) return { rev: Number.isInteger(rev) ? /** @type {number} */ (rev) : 0, cards };
  }
  return { rev: 0, cards: [] };
}

/**
 * @param {unknown} value
 * @returns {value is Card}
 */
function isCard(value) {
  if (!value || typeof value !== "object") return false;
  const card = /** @type {Record<string, any>} */ (value);
  return (
    typeof card.key === "string" &&
    Array.isArray(card.questions) &&
    card.questions.length > 0 &&
    card.view !== null &&
    typeof card.view === "object" &&
    Array.isArray(card.view.detailHtml) &&
    typeof card.view.presentation?.kind === "string"
  );
}

// ---------------------------------------------------------------------------------------------
// One view
// ---------------------------------------------------------------------------------------------

class View {
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
    this.restore = h("button", { type: "button", class: "ipyask-btn ipyask-btn--outline ipyask-restore", hidden: true });
    this.restore.addEventListener("click", () => this.restoreHidden());
    this.root.append(this.banner, this.list, this.restore);
    el.append(this.root);

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

  sync() {
    const cards = this.hub.cards().filter(isCard);
    const seen = new Set();
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

  /** @param {boolean} active */
  setWindowActive(active) {
    if (this.windowActive === active) return;
    this.windowActive = active;
    for (const card of this.cards.values()) card.setFocused(card.focused);
  }

  /** @param {string} key */
  onFrame(key) {
    this.cards.get(key)?.refreshStatus();
  }

  /**
   * @param {string | null} key
   * @param {string} text
   */
  onError(key, text) {
    const card = key === null ? undefined : this.cards.get(key);
    if (card) card.showError(text);
    else this.showBanner(text);
  }

  tick() {
    const now = Date.now();
    for (const card of this.cards.values()) card.tick(now);
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

// ---------------------------------------------------------------------------------------------
// anywidget entry points
// ---------------------------------------------------------------------------------------------

/** @param {{model: Model}} context */
function initialize({ model }) {
  const hub = hubOf(model);
  hub.listen();
  return () => hub.unlisten();
}

/** @param {{model: Model, el: HTMLElement}} context */
function render({ model, el }) {
  const view = new View(model, el, hubOf(model));
  return () => view.destroy();
}

export default { initialize, render };
