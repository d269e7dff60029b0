// A house rule as a player reads it, in the page's language: an option's value in words
// and its sentence, built from the option's template and value words (the catalogue has
// them: "A player needs {} points to stop or go."); the new-game form and a game's header
// say them alike.
import { api } from "./api.js";
import { LANG, t, tr } from "./i18n.js";

// A value as a player reads it: a choice's or switch's words ("3 points", "yes").
export function shownValue(o, v) {
  const key = String(v);
  if (o.words && key in o.words) return tr(o.words[key]);
  if (o.kind === "bool") return v ? t("yes") : t("no");
  return key;
}

// The option at `value` (as the form has it: text) as a player reads it.
export function optionSentence(o, value) {
  if (LANG !== "en" && typeof o.template === "string" && o.template.includes("{}")) {
    return tr(o.template).replace("{}", o.sentences ? shownValue(o, value) : value);   // in the page's language
  }
  return o.sentences ? o.sentences[value] ?? o.sentence : o.template.replace("{}", value);
}

const rows = new Map();       // preset -> its option rows (/api/presets/<name>/options), once

// A game's house rules (its ruleset's `changed` options) in the page's language; the
// server's English sentences until the preset's option rows are in (`ready` is called
// then, to draw again).
export function houseRules(ruleset, ready) {
  const said = ruleset.house_rules || [];
  if (LANG === "en" || !said.length) return said;
  if (!rows.has(ruleset.name)) {
    rows.set(ruleset.name, null);
    api("GET", `/api/presets/${encodeURIComponent(ruleset.name)}/options`)
      .then((data) => { rows.set(ruleset.name, data.options); ready(); }).catch(() => {});
  }
  const got = rows.get(ruleset.name);
  if (!got) return said;
  return (ruleset.changed || []).map((key, i) => {
    const o = got.find((r) => r.key === key);
    return o ? optionSentence(o, String(ruleset.options[key])) : said[i];
  });
}
