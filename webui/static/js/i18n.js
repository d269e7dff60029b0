// The page's words in the player's language: the server puts the language's catalogue
// (English text -> its translation, scorer/locales/<lang>/LC_MESSAGES/messages.po) into
// the page as JSON (#i18n, webui/app/i18n.py); `t("Save pile")` says it, `{name}` places
// filled from `values`. English, or a text the catalogue lacks, is said as written.
const node = typeof document !== "undefined" ? document.getElementById("i18n") : null;
const catalogue = node ? JSON.parse(node.textContent || "{}") : {};

export const LANG = (typeof document !== "undefined" && document.documentElement.lang) || "en";

export function t(text, values = {}) {
  const said = catalogue[text] || text;
  return said.replace(/\{(\w+)\}/g, (all, key) => (key in values ? String(values[key]) : all));
}

// A server's text that is one of the catalogue's (a preset's title, a card's name) in
// the page's language; any other as it is.
export function tr(text) {
  return typeof text === "string" && catalogue[text] ? catalogue[text] : text;
}
