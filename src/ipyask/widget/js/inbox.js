// @ts-check
/**
 * The shared inbox's part of a view: cards with a `source` (a store's open questions, of any
 * process) come after the others, grouped by agent and process, the group with the newest
 * question first and the newest question first in each; a text filter above the cards hides
 * the inbox cards that do not match. The filter belongs to the view, not to the synced state.
 */

import { h } from "./dom.js";
import { fill } from "./strings.js";

/**
 * @import { Card } from "./types.js"
 * @import { CardController } from "./card/controller.js"
 * @typedef {{agent?: string, session: string, process?: string, askedAt?: number,
 *   earlier?: boolean, assignee?: string}} Source
 */

const TEXTS = {
  en: { filter: "Filter questions by agent, process, assignee or text", ended: "ended", assigned: "for {name} to answer", mine: "Only mine ({name})" },
  zh: { filter: "按代理、进程、被指派人或文字筛选问题", ended: "已结束", assigned: "指派给 {name} 回答", mine: "只看指派给我的（{name}）" },
};

/** @param {Card} card */
function sourceOf(card) {
  const source = /** @type {{source?: Source}} */ (card).source;
  return source && typeof source === "object" && typeof source.session === "string" ? source : null;
}

/** @param {Source} source */
function groupKey(source) {
  return `${source.agent ?? source.session} · ${source.process ?? "?"}`;
}

/**
 * The cards in display order: the others in the kernel's order, then the inbox cards grouped.
 * @param {Card[]} cards
 * @returns {Card[]}
 */
export function arrange(cards) {
  /** @type {Card[]} */
  const others = [];
  /** @type {Map<string, Card[]>} */
  const groups = new Map();
  for (const card of cards) {
    const source = sourceOf(card);
    if (!source) others.push(card);
    else {
      const key = groupKey(source);
      const group = groups.get(key) ?? [];
      group.push(card);
      groups.set(key, group);
    }
  }
  /** @param {Card} card */
  const askedAt = (card) => sourceOf(card)?.askedAt ?? 0;
  const sorted = Array.from(groups.values(), (group) => group.sort((a, b) => askedAt(b) - askedAt(a)));
  sorted.sort((a, b) => askedAt(b[0]) - askedAt(a[0]));
  return [...others, ...sorted.flat()];
}

/** @param {Card} card */
function text(card) {
  const source = sourceOf(card);
  const parts = [source?.agent, source?.session, source?.process, source?.assignee, card.callId];
  for (const question of card.questions) parts.push(question.header, question.question);
  return parts.filter(Boolean).join(" ").toLowerCase();
}

export class InboxBar {
  /** @param {{lang: "en" | "zh", sync(): void, model: {get(name: string): unknown}}} view */
  constructor(view) {
    this.view = view;
    this.query = "";
    this.onlyMine = false;
    this.input = h("input", { type: "search", class: "ipyask-inbox-filter__input" });
    this.input.addEventListener("input", () => {
      this.query = /** @type {HTMLInputElement} */ (this.input).value.trim().toLowerCase();
      this.view.sync();
    });
    // "Only mine": the questions assigned to whoever answers through this widget.
    this.mineBox = /** @type {HTMLInputElement} */ (h("input", { type: "checkbox", class: "ipyask-inbox-mine__box" }));
    this.mineBox.addEventListener("change", () => {
      this.onlyMine = this.mineBox.checked;
      this.view.sync();
    });
    this.mineText = h("span", {});
    this.mine = h("label", { class: "ipyask-inbox-mine", hidden: true }, this.mineBox, this.mineText);
    this.el = h("div", { class: "ipyask-inbox-filter", hidden: true }, this.input, this.mine);
  }

  /** Who answers through this widget ("" when not known). */
  get answerer() {
    const name = this.view.model.get("answerer");
    return typeof name === "string" ? name : "";
  }

  /** Show every inbox card again (the person asked for one the filter leaves out). */
  clear() {
    if (this.query === "" && !this.onlyMine) return;
    this.query = "";
    /** @type {HTMLInputElement} */ (this.input).value = "";
    this.onlyMine = false;
    this.mineBox.checked = false;
    this.view.sync();
  }

  /**
   * Label the groups, hide the cards the filter leaves out, show the filter when there is an
   * inbox card.
   * @param {Iterable<[Card, CardController]>} shown in display order
   */
  apply(shown) {
    const texts = TEXTS[this.view.lang];
    this.input.setAttribute("aria-label", texts.filter);
    this.input.setAttribute("placeholder", texts.filter);
    const me = this.answerer;
    const rows = Array.from(shown);
    // Offered when some question is assigned and this widget knows who answers here.
    const mineOffered = me !== "" && rows.some(([card]) => typeof sourceOf(card)?.assignee === "string");
    let any = false;
    let previous = "";
    for (const [card, controller] of rows) {
      const source = sourceOf(card);
      const el = controller.el;
      if (!source) {
        el.removeAttribute("data-ipyask-group");
        continue;
      }
      any = true;
      const group = groupKey(source);
      const label = source.earlier ? `${group} · ${texts.ended}` : group;
      // A card only one person may answer says whose it is, in its group or on its own.
      const assigned = typeof source.assignee === "string" ? fill(texts.assigned, { name: source.assignee }) : "";
      if (group !== previous) el.setAttribute("data-ipyask-group", assigned ? `${label} · ${assigned}` : label);
      else if (assigned) el.setAttribute("data-ipyask-group", assigned);
      else el.removeAttribute("data-ipyask-group");
      previous = group;
      const notMine = mineOffered && this.onlyMine && source.assignee !== me;
      el.classList.toggle("ipyask-card--filtered", notMine || (this.query !== "" && !text(card).includes(this.query)));
    }
    this.el.hidden = !any;
    this.mine.hidden = !mineOffered;
    this.mineText.textContent = fill(texts.mine, { name: me });
  }
}
