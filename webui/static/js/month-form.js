// What the round form keeps beyond the fields game-render.js draws (Hachi-Hachi's month
// form first): the players who sit the round out, ticked (a `sits_out` field), whose pile
// panel and places in the other fields go; card codes picked like a pile's; the typed
// facts kept in this tab across a reload, as the piles' drafts are; and the question
// before a month with no field is scored as a small one.
import { el } from "./api.js";
import { cardLabel, pickCard, shownCode } from "./cards.js";
import { t } from "./i18n.js";

const FORM = "hanafuda:form:";

// The players ticked in the form's sits_out field (none without one).
export function sittersIn(box) {
  return new Set([...box.querySelectorAll("input[data-sits-out]:checked")].map((i) => i.value));
}

// One box to tick for each player (the sits_out field), each name kept whole.
export function sittersField(f, players) {
  return el("span", { class: "sitters", id: `ctx-${f.key}`, role: "group", "aria-label": f.label },
    ...players.map((p) => el("label", { class: "sitter per-player", dataset: { player: p } },
      el("input", { type: "checkbox", value: p, dataset: { key: f.key, kind: f.kind, sitsOut: "1" } }),
      el("span", { class: "who", text: p }))));
}

// The form without the players sitting out: their per-player inputs hidden (and emptied)
// and their names out of the player choices (stopped, sage, hatto).
export function dropSitters(box, sitters) {
  for (const wrap of box.querySelectorAll(".per-player[data-player]:not(.sitter)")) {
    const out = sitters.has(wrap.dataset.player);
    wrap.hidden = out;
    if (out) for (const input of wrap.querySelectorAll("[data-key]")) input.value = "";
  }
  for (const select of box.querySelectorAll("select[data-kind='player']")) {
    for (const option of select.options) {
      const out = sitters.has(option.value);
      option.hidden = out;
      option.disabled = out;
    }
    if (sitters.has(select.value)) select.value = "";
  }
}

// A "Pick cards" button beside a field of codes: the card picker, as a pile's Add cards,
// its picks joined to the codes already typed.
export function pickButton(deck, input, what) {
  return el("button", { type: "button", class: "context-pick", title: t("pick {what} from the cards", { what }),
    onclick: async () => {
      const typed = input.value.split(/[\s,]+/).filter(Boolean);
      const flags = new Map(typed.map((c) => [c, t("listed")]));
      const picks = await pickCard(deck, t("Pick {what}", { what }), flags, { multi: true });
      if (!picks.length) return;
      input.value = [...new Set([...typed, ...picks])].join(" ");
      input.dispatchEvent(new Event("input", { bubbles: true }));
    } }, t("Pick cards"));
}

// The cards a field of codes holds, by name ("01-1 Pine: crane · 12-1 …"), kept in step
// with it: what was picked or read is seen as cards, not only as codes.
export function cardsNamed(deck, input) {
  const note = el("span", { class: "codes-named muted small" });
  const show = () => {
    const codes = input.value.split(/[\s,]+/).filter((c) => deck.byCode.has(c));
    note.replaceChildren(...codes.map((c, i) => el("span", { class: "named-card", dataset: { code: c } },
      i ? " · " : "", el("b", { text: shownCode(deck, c) }), ` ${cardLabel(deck, c)}`)));
  };
  input.addEventListener("input", show);
  input.addEventListener("change", show);
  show();
  return note;
}

export function formKey(gameId, round) {
  return `${FORM}${gameId}:${round}`;
}

// The form as typed: {"key|player": value, or true/false for a box to tick}.
function typedIn(box) {
  const out = {};
  for (const input of box.querySelectorAll("[data-key]")) {
    const id = `${input.dataset.key}|${input.dataset.player || input.dataset.sitsOut && input.value || ""}`;
    out[id] = input.type === "checkbox" ? input.checked : input.value;
  }
  return out;
}

export function storeForm(key, box) {
  try { sessionStorage.setItem(key, JSON.stringify(typedIn(box))); } catch { /* storage off: this page only */ }
}

export function forgetForm(key) {
  try { sessionStorage.removeItem(key); } catch { /* storage off */ }
}

// What was typed in this tab before a reload, back in the form; false: nothing kept.
export function restoreForm(key, box) {
  let kept = null;
  try { kept = JSON.parse(sessionStorage.getItem(key) || "null"); } catch { kept = null; }
  if (!kept || typeof kept !== "object") return false;
  for (const input of box.querySelectorAll("[data-key]")) {
    const id = `${input.dataset.key}|${input.dataset.player || input.dataset.sitsOut && input.value || ""}`;
    if (!(id in kept)) continue;
    if (input.type === "checkbox") input.checked = kept[id] === true;
    else if (typeof kept[id] === "string") input.value = kept[id];
  }
  return true;
}

// A Hachi-Hachi month with no field chosen, no table cards and none carried: scored as a
// small field only once the players say so.
export function fieldUnsaid(game, ctx) {
  return game.ruleset.game === "hachihachi" && !ctx.field && !(ctx.field_cards || []).length && !ctx.carried_field;
}
