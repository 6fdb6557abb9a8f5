// @ts-check
/**
 * The panel's "Rules" section (ipyask extension): a native disclosure listing the approval rules
 * in force, as the kernel syncs them in `approval_rules`, each with a Remove button that asks the
 * kernel to take it out of force (`remove_rule`), and what the last removal did (`rules_notice`:
 * a notice code the view says in its own language). Hidden when the model has no rules (a cell
 * view, a plain widget, a service without rules).
 */

import { h } from "./dom.js";
import { fill, noticeText } from "./strings.js";

/**
 * @import { View } from "./view.js"
 * @typedef {{id: string, kind: string, text: string, where: string, session: boolean}} RuleRow
 */

/** @param {unknown} value @returns {RuleRow[]} */
function rows(value) {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (row) => row && typeof row.id === "string" && typeof row.kind === "string" && typeof row.text === "string" && typeof row.where === "string",
  );
}

/**
 * What the last removal did, in `lang` (`undefined`: nothing removed yet).
 * @param {unknown} notice
 * @param {"en" | "zh"} lang
 */
function statusText(notice, lang) {
  if (!notice || typeof notice !== "object") return undefined;
  const { code, params, text } = /** @type {{code?: unknown, params?: unknown, text?: unknown}} */ (notice);
  if (typeof code !== "string") return undefined;
  const named = params && typeof params === "object" ? /** @type {Record<string, string>} */ (params) : {};
  return noticeText({ noticeCode: code, noticeParams: named, notice: typeof text === "string" ? text : undefined }, lang);
}

export class RulesSection {
  /** @param {View} view */
  constructor(view) {
    this.view = view;
    this.summary = h("summary", { class: "ipyask-rules__summary" });
    this.note = h("p", { class: "ipyask-muted ipyask-rules__note" });
    this.list = h("ul", { class: "ipyask-rules__list" });
    this.status = h("p", { class: "ipyask-rules__status", role: "status" });
    this.el = /** @type {HTMLDetailsElement} */ (h("details", { class: "ipyask-rules", hidden: true }, this.summary, this.note, this.status, this.list));
    this.onChange = () => this.render();
    view.model.on("change:approval_rules", this.onChange);
    view.model.on("change:rules_notice", this.onChange);
    this.render();
  }

  render() {
    const t = this.view.t;
    const all = rows(this.view.model.get("approval_rules"));
    this.el.hidden = all.length === 0;
    this.summary.textContent = fill(t.rulesInForce, { count: String(all.length) });
    this.note.textContent = t.rulesNote;
    this.status.textContent = statusText(this.view.model.get("rules_notice"), this.view.lang) ?? "";
    const focused = this.list.contains(document.activeElement);
    this.list.replaceChildren(
      ...all.map((rule) => {
        const words = `${rule.kind} ${rule.text}`;
        const where = rule.session ? t.ruleThisSession : rule.where;
        const remove = h("button", { type: "button", class: "ipyask-btn ipyask-btn--outline ipyask-rules__remove", "aria-label": fill(t.removeRuleNamed, { rule: words }), disabled: this.view.disconnected }, t.removeRule);
        remove.addEventListener("click", () => {
          remove.setAttribute("disabled", "");
          this.view.send("remove_rule", { ruleId: rule.id });
        });
        return h("li", { class: "ipyask-rules__item", "data-rule": rule.id }, h("code", { class: `ipyask-rules__text ipyask-rules__text--${rule.kind}` }, words), h("span", { class: "ipyask-muted ipyask-rules__where" }, where), remove);
      }),
    );
    // A removed rule takes its button with it: keep the keyboard in the list.
    if (focused) (this.list.querySelector("button") ?? this.summary).focus();
  }

  destroy() {
    this.view.model.off("change:approval_rules", this.onChange);
    this.view.model.off("change:rules_notice", this.onChange);
  }
}
