// @ts-check
/**
 * ipyask question widget: renders every card of the `cards` state and reports what the person
 * does through custom messages (docs/protocol.md). Vanilla DOM; the entry point of the bundle.
 *
 * Rendering reads only the `cards`, `language` and `protocol_version` state. Custom messages are
 * the fast path: their listener is registered in `initialize` (see hub.js).
 *
 * All text is inserted as text. The only HTML inserted is the kernel-rendered Markdown of a
 * `detail`, which is sanitized once more here (sanitize.js).
 */

import { hubOf } from "./hub.js";
import { View } from "./view.js";

/** @import { Model } from "./types.js" */

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
