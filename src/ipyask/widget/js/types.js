// @ts-check
/**
 * The shapes the modules share: the anywidget model, the wire cards (docs/protocol.md) and the
 * view's own records. Types only: nothing here reaches the bundle.
 *
 * @typedef {{
 *   get(name: string): any,
 *   set(name: string, value: unknown): void,
 *   on(event: string, callback: (...args: any[]) => void): void,
 *   off(event: string, callback?: (...args: any[]) => void): void,
 *   send(content: object, callbacks?: unknown, buffers?: ArrayBuffer[]): void,
 *   save_changes(): void,
 *   widget_manager?: any,
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
 *      detailHtml?: Record<string, string>, approveLabel?: Record<string, string>}
 *   | {kind: "tool-approval", toolName: string, arguments: Record<string, unknown>,
 *      decisions: {kind: DecisionKind, label: string}[], editForm?: FormSchema, hasSchema: boolean}
 *   | {kind: "form", form: FormSchema, accept: string, decline?: string, cancel?: string}} Presentation
 * @typedef {"approve" | "always" | "edit" | "reject" | "respond" | "never" | "stop"} DecisionKind
 * @typedef {{value: string, title?: string}} EnumOption
 * @typedef {{name: string, required: boolean, title?: string, description?: string} & (
 *     {kind: "string", minLength?: number, maxLength?: number, pattern?: string,
 *      format?: "email" | "uri" | "date" | "date-time", default?: string}
 *   | {kind: "number" | "integer", minimum?: number, maximum?: number, default?: number}
 *   | {kind: "boolean", default?: boolean}
 *   | {kind: "select", options: EnumOption[], default?: string}
 *   | {kind: "multi-select", options: EnumOption[], minItems?: number, maxItems?: number,
 *      default?: string[]})} FormField
 * @typedef {{title?: string, description?: string, fields: FormField[]}} FormSchema
 * @typedef {{questionId: string, fields: Record<string, string>}} Refusal
 *   a refused tool-approval or form answer: what is wrong per field (`""`: the whole answer)
 * @typedef {{key: string, callId?: string, wait: "none" | "indefinite" | "timed",
 *   questions: Question[], status: "pending" | "continued" | "answered" | "cancelled" | "expired",
 *   answer?: Answer, frame?: {remainingMs: number, seq: number}, timeoutMs?: number, notice?: string,
 *   noticeCode?: string, noticeParams?: Record<string, string>, held?: boolean, late?: boolean,
 *   alwaysRule?: {suggested: string, file?: string | null},
 *   view: {presentation: Presentation, detailHtml: (string | null)[]}}} Card
 * @typedef {{selected: string[], custom: string, skipped: boolean}} Draft
 * @typedef {{seq: number, deadline: number}} Anchor
 * @typedef {{rev: number, cards: unknown[], live: number, pages: number}} CardState
 * @typedef {{rev: number, upsert: unknown[], remove: unknown[]}} CardChange
 */

export {};
