// @ts-check
/**
 * ipyask's JupyterLab extension: one command, "Open the ipyask inbox", that opens the inbox page
 * served by ipyask's Jupyter Server extension (/ipyask/inbox; docs/inbox-page.md) in a new
 * browser tab, under the server's base URL (so behind JupyterHub's /user/<name>/ as well). The
 * command is in the command palette, the launcher (Other) and the View menu, each where the page
 * has that part of JupyterLab (the extension loads in every JupyterLab-based page: Notebook 7's,
 * Voila's). Its words follow JupyterLab's language (English or Chinese).
 *
 * Built by scripts/build-widget with @jupyterlab/builder into src/ipyask/labextension/, which the
 * wheel installs as share/jupyter/labextensions/ipyask: a prebuilt extension, no `jupyter lab
 * build`.
 */

import { PageConfig, URLExt } from "@jupyterlab/coreutils";

/** The command's id (`app.commands.execute("ipyask:open-inbox")`). */
export const COMMAND = "ipyask:open-inbox";
/** The page's path under the server's base URL (ipyask.inbox_page's INBOX_PATH). */
export const INBOX_PATH = "ipyask/inbox";

export const TEXTS = {
  en: {
    label: "Open the ipyask Inbox",
    launcher: "ipyask Inbox",
    caption: "Every open question of the agents, answerable in a new browser tab",
    category: "ipyask",
  },
  zh: {
    label: "打开 ipyask 收件箱",
    launcher: "ipyask 收件箱",
    caption: "在新的浏览器标签页中查看并回答代理所有待回答的问题",
    category: "ipyask",
  },
};

/** An inbox tray with a waiting dot; `jp-icon3` takes the theme's icon colour. */
const INBOX_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="16">
<g class="jp-icon3" fill="#616161"><path d="M4 4h11v2H6v7h3l1 2h4l1-2h3v-2h2v9H4zm2 11v3h12v-3h-2l-1 2H9l-1-2z"/>
<circle cx="19" cy="6" r="3"/></g></svg>`;

/**
 * English or Chinese, as JupyterLab speaks (its language pack), else as the browser does.
 * @param {import("@jupyterlab/translation").ITranslator | null} translator
 * @returns {"en" | "zh"}
 */
export function language(translator) {
  const code = translator?.languageCode || document.documentElement.lang || navigator.language || "en";
  return /^zh(?:$|[-_])/i.test(code) ? "zh" : "en";
}

/** The inbox page's address on the server this JupyterLab came from. */
export function inboxUrl() {
  return URLExt.join(PageConfig.getBaseUrl(), INBOX_PATH);
}

/**
 * A package of JupyterLab's, if the page shares it (`null` where it does not: Voila's page has
 * no launcher, for one). Imported when the plugin starts, not with it: a package missing from
 * the page then costs only its part, not the whole extension.
 * @template T
 * @param {() => Promise<T>} load
 * @returns {Promise<T | null>}
 */
async function shared(load) {
  try {
    return await load();
  } catch {
    return null;
  }
}

/**
 * The service of `token` where the page has it (else `null`).
 * @param {import("@jupyterlab/application").JupyterFrontEnd} app
 * @param {import("@lumino/coreutils").Token<any> | undefined} token
 */
async function service(app, token) {
  if (!token) return null;
  try {
    return await app.resolveOptionalService(token);
  } catch {
    return null;
  }
}

/** @type {import("@jupyterlab/application").JupyterFrontEndPlugin<void>} */
const plugin = {
  id: "ipyask:inbox-page",
  description: "Opens ipyask's inbox page in a new browser tab.",
  autoStart: true,
  /** @param {import("@jupyterlab/application").JupyterFrontEnd} app */
  async activate(app) {
    const [apputils, launching, menus, translation, ui] = await Promise.all([
      shared(() => import("@jupyterlab/apputils")),
      shared(() => import("@jupyterlab/launcher")),
      shared(() => import("@jupyterlab/mainmenu")),
      shared(() => import("@jupyterlab/translation")),
      shared(() => import("@jupyterlab/ui-components")),
    ]);
    /** @type {[import("@jupyterlab/apputils").ICommandPalette | null, import("@jupyterlab/launcher").ILauncher | null, import("@jupyterlab/mainmenu").IMainMenu | null, import("@jupyterlab/translation").ITranslator | null]} */
    const [palette, launcher, mainMenu, translator] = await Promise.all([
      service(app, apputils?.ICommandPalette),
      service(app, launching?.ILauncher),
      service(app, menus?.IMainMenu),
      service(app, translation?.ITranslator),
    ]);
    const texts = TEXTS[language(translator)];
    const icon = ui ? new ui.LabIcon({ name: "ipyask:inbox", svgstr: INBOX_SVG }) : undefined;
    app.commands.addCommand(COMMAND, {
      label: (args) => (args.isLauncher ? texts.launcher : texts.label),
      caption: texts.caption,
      icon: (args) => (args.isPalette ? undefined : icon),
      execute: () => {
        // A tab of its own: the page is a whole app (live, phone-sized), not a Lab panel.
        window.open(inboxUrl(), "_blank", "noopener");
      },
    });
    palette?.addItem({ command: COMMAND, category: texts.category });
    launcher?.add({ command: COMMAND, category: "Other", rank: 50, args: { isLauncher: true } });
    mainMenu?.viewMenu.addGroup([{ command: COMMAND }], 1000);
  },
};

export default plugin;
