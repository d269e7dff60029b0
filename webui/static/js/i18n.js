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

// The catalogue's shapes: a "shape:" entry with {places} ("shape:{p} wins the round")
// matches a server's sentence of that shape, each place any text (itself translated
// where the catalogue knows it). The most words of its own first, so the most particular
// wins (scorer/i18n.py `sentence` says the command's the same way).
const literal = (k) => k.replace(/\{\w+\}/g, "").length;
const patterns = Object.keys(catalogue).filter((k) => k.startsWith("shape:")).sort((a, b) => literal(b) - literal(a))
  .map((k) => {
    const keys = [];
    const source = k.slice("shape:".length).split(/(\{\w+\})/).map((part) => {
      const m = /^\{(\w+)\}$/.exec(part);
      if (m) { keys.push(m[1]); return "(.+?)"; }
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    }).join("");
    return { key: k, keys, re: new RegExp(`^${source}$`, "s") };
  });

// A server's text (a preset's title, a field's label, an explanation line) in the page's
// language: the catalogue's entry, else a shape's (a "; "-joined line only by a shape with
// "; " in it), else each part of such a line on its own, else its terms one by one; any
// other as it is (scorer/i18n.py `sentence` is the same in Python).
export function tr(text) {
  if (typeof text !== "string" || LANG === "en" || !text) return text;
  if (catalogue[text]) return catalogue[text];
  const joined = text.includes("; ");    // parts said one by one, unless a shape holds them all
  for (const p of patterns) {
    if (joined && !p.key.includes("; ")) continue;
    const m = p.re.exec(text);
    if (m) return t(p.key, Object.fromEntries(p.keys.map((k, i) => [k, k.startsWith("raw") ? m[i + 1] : tr(m[i + 1])])));
  }
  if (joined) {                // the longest run of parts the catalogue has, then the rest
    let parts = text.split("; ");
    const said = [];
    while (parts.length) {
      let k = parts.length;
      while (k > 1 && !catalogue[parts.slice(0, k).join("; ")]) k--;
      said.push(tr(parts.slice(0, k).join("; ")));
      parts = parts.slice(k);
    }
    return said.join("; ");
  }
  // a game's own terms inside a line no pattern knows ("samgwang 3 = 3"): the catalogue's
  // "word:" entries ("word:samgwang" -> 삼광), word by word
  return text.replace(/[A-Za-z][A-Za-z-]*[A-Za-z]/g, (w) => catalogue[`word:${w}`] ?? w);
}
