// The home page: the new-game form (rules preset, players, teams, first dealer, rounds)
// and the list of games (open, export, delete after asking).
import { api, askFirst, count, el, localTime, toast } from "./api.js";
import { t, tr } from "./i18n.js";
import { optionSentence, shownValue } from "./house-words.js";

const $ = (id) => document.getElementById(id);
let presets = [];
let hwatu = null;         // the hwatu words (/api/cards), for a Korean-deck preset

// The names as typed ("" where none), and as played: an empty one is its placeholder.
function typedNames() {
  return [...document.querySelectorAll("#player-names input")].map((i) => i.value.trim());
}

function players() {
  return [...document.querySelectorAll("#player-names input")].map((i) => i.value.trim() || i.placeholder);
}

// Teams of 2 sit opposite; teams of 3 alternate (RULES.md 1.1).
function teamChoices(n) {
  const idx = (groups) => groups;
  const out = [{ value: "", label: t("everyone for themselves"), groups: null }];
  if (presets.length && currentPreset().teams === false) return out;     // a game without teams (Hachi-Hachi)
  if (n === 4) out.push({ value: "2x2", label: t("2 teams of 2 (1+3 vs 2+4)"), groups: idx([[0, 2], [1, 3]]) });
  if (n === 6) {
    out.push({ value: "3x2", label: t("3 teams of 2 (1+4, 2+5, 3+6)"), groups: [[0, 3], [1, 4], [2, 5]] });
    out.push({ value: "2x3", label: t("2 teams of 3 (1+3+5 vs 2+4+6)"), groups: [[0, 2, 4], [1, 3, 5]] });
  }
  return out;
}

function currentPreset() { return presets.find((p) => p.name === $("preset").value) || presets[0]; }

function renderPlayers() {
  const p = currentPreset();
  const count = $("player-count");
  const keep = Number(count.value) || Math.max(2, p.min_players);
  count.replaceChildren();
  for (let n = p.min_players; n <= p.max_players; n++) count.append(el("option", { value: n, text: n }));
  count.value = String(Math.min(Math.max(keep, p.min_players), p.max_players));
  $("rounds").value = p.default_rounds;
  // what the game calls a round: Hachi-Hachi's twelve months
  $("rounds-label").textContent = p.round_word === "month" ? t("Months") : t("Rounds");
  // and what a deck learns from: Hachi-Hachi's confirmed months
  const learn = $("learn").parentElement;
  learn.lastChild.textContent = " " + (p.round_word === "month" ? t("Learn this deck from confirmed months")
    : t("Learn this deck from confirmed rounds"));
  learn.title = p.round_word === "month" ? t("each confirmed month adds the crops of its cards, as you confirmed them, to the deck")
    : t("each confirmed round adds the crops of its cards, as you confirmed them, to the deck");
  renderOptions().catch((err) => toast(`${t("house rules")}: ${err.message}`, true));
  $("preset-description").textContent = tr(p.description);
  // a hwatu table calls the first dealer 선 (the one table of words: /api/cards)
  const seon = hwatu && hwatu.games.includes(p.game) ? hwatu.form.first_dealer : null;
  $("first-dealer-label").textContent = seon ? `${t("First dealer")} (${seon.text}) ` : `${t("First dealer")} `;
  renderNames();
}

// The chosen preset's options, grouped and folded: each with what it means, the
// preset's value, the game's default and its source. A changed one is marked and sent.
const optionRows = new Map();     // preset -> its option rows (/api/presets/<name>/options)

async function renderOptions() {
  const p = currentPreset();
  if (!optionRows.has(p.name)) {
    optionRows.set(p.name, (await api("GET", `/api/presets/${encodeURIComponent(p.name)}/options`)).options);
  }
  if (currentPreset() !== p) return;          // another preset was chosen meanwhile
  const rows = optionRows.get(p.name).filter((o) => o.key !== "rounds");   // Rounds is above
  const groups = new Map();
  for (const o of rows) {
    if (!groups.has(o.group)) groups.set(o.group, []);
    groups.get(o.group).push(o);
  }
  $("house-rules-body").replaceChildren(...[...groups].map(([name, opts]) =>
    el("details", { class: "option-group", dataset: { group: name } },
      el("summary", { text: `${tr(name)} (${opts.length})` }), ...opts.map(optionRow))));
  showChanged();
}

// The note under an option, following its input: the game's usual rule (or the preset's
// where it differs from it); once changed, that it is a house rule and what the preset has.
function optionNote(o, value) {
  const preset = shownValue(o, o.value);
  const usual = o.default === null ? null : shownValue(o, o.default);
  if (value !== String(o.value)) {
    return t("a house rule: this preset has {preset}", { preset }) +
      (usual !== null && usual !== preset ? t("; the game's usual rule is {usual}", { usual }) : "");
  }
  return usual === null || usual === preset ? t("the game's usual rule")
    : t("the game's usual rule is {usual}; this preset has {preset}", { usual, preset });
}

// An option as a sentence at its value (it follows the input), the input, and the
// preset's value where it differs from the game's default; its key and the rule's
// sources only in the tooltip.
function optionRow(o) {
  const data = { key: o.key, preset: String(o.value) };
  let input;
  if (o.kind === "choice") {
    input = el("select", { dataset: data }, o.allowed.map((v) =>      // the sentence is above
      el("option", { value: String(v), text: shownValue(o, v) })));
    input.value = String(o.value);
  } else if (o.kind === "bool") {
    input = el("input", { type: "checkbox", dataset: data });
    input.checked = !!o.value;
  } else {
    input = el("input", { type: "number", min: o.minimum, max: o.maximum, value: o.value, dataset: data });
  }
  // A choice or a number stands in its sentence's place ("The willow ribbon 12-3 [counts
  // among the ribbons ▾]."): its words are said once (issue 66: the sentence and the list
  // both said them). The whole sentence, hidden, is the summary's; a screen reader hears
  // it as the input's label.
  const words = el("span", { class: "sentence", text: optionSentence(o, String(o.value)), hidden: inline(o) });
  const [before, after] = inline(o) ? tr(o.template).split("{}") : ["", ""];
  if (inline(o)) input.setAttribute("aria-label", words.textContent);
  const note = el("div", { class: "small muted", text: optionNote(o, String(o.value)) });
  const follow = () => {
    words.textContent = optionSentence(o, optionValue(input));
    if (inline(o)) input.setAttribute("aria-label", words.textContent);
    note.textContent = optionNote(o, optionValue(input));
    showChanged();
  };
  input.addEventListener("input", follow);
  input.addEventListener("change", follow);
  return el("div", { class: "option", dataset: { key: o.key }, title: `${o.key}: ${o.help}; source: ${o.source || "—"}` },
    inline(o) ? el("label", {}, words, el("span", { class: "stem", "aria-hidden": "true", text: before }), input,
      el("span", { class: "stem", "aria-hidden": "true", text: after }))
      : el("label", {}, words, " ", input), note);
}

// Whether the option's input stands inside its sentence (a choice or a number whose
// sentence has one place for its value).
function inline(o) {
  return o.kind !== "bool" && typeof o.template === "string" && o.template.split("{}").length === 2;
}

function optionValue(input) {
  return input.type === "checkbox" ? String(input.checked) : input.value.trim();
}

// {key: value} of the options changed from the preset's values.
function changedOptions() {
  const out = {};
  for (const input of document.querySelectorAll("#house-rules-body [data-key][data-preset]")) {
    if (optionValue(input) !== input.dataset.preset) out[input.dataset.key] = optionValue(input);
  }
  return out;
}

function showChanged() {
  const changed = changedOptions();
  for (const row of document.querySelectorAll("#house-rules-body .option")) {
    row.classList.toggle("changed", row.dataset.key in changed);
  }
  const n = Object.keys(changed).length;
  const said = [...document.querySelectorAll("#house-rules-body .option.changed .sentence")].map((e) => e.textContent);
  $("house-rules-summary").textContent = n ? t("House rules: {n} changed ({said})", { n, said: said.join(" ") })
    : t("House rules (the preset's; {n} options)", { n: document.querySelectorAll("#house-rules-body .option").length });
}

function renderNames() {
  const n = Number($("player-count").value);
  const old = typedNames();
  $("player-names").replaceChildren(...Array.from({ length: n }, (_, i) =>
    el("label", {}, `${t("Player {n}", { n: i + 1 })} `, el("input", { type: "text", maxlength: 24,
      name: `player-${i + 1}`, value: old[i] || "", placeholder: t("Player {n}", { n: i + 1 }), oninput: renderDealer }))));
  const teams = $("teams");
  teams.replaceChildren(...teamChoices(n).map((t) => el("option", { value: t.value, text: t.label })));
  teams.disabled = teamChoices(n).length === 1;
  teams.closest("label").hidden = presets.length > 0 && currentPreset().teams === false;   // none offered
  renderDealer();
}

function renderDealer() {
  const sel = $("first-dealer");
  const keep = sel.selectedIndex;
  sel.replaceChildren(...players().map((p, i) => el("option", { value: i, text: p || t("Player {n}", { n: i + 1 }) })));
  sel.selectedIndex = keep >= 0 && keep < sel.options.length ? keep : 0;
}

async function submit(event) {
  event.preventDefault();
  $("new-game-error").textContent = "";
  const names = players();
  const choice = teamChoices(names.length).find((t) => t.value === $("teams").value);
  const body = {
    preset: $("preset").value, players: names, rounds: Number($("rounds").value),
    first_dealer: names[Number($("first-dealer").value)] || names[0],
    teams: choice && choice.groups ? choice.groups.map((g) => g.map((i) => names[i])) : null,
    deck: $("deck").value || null, learn: $("learn").checked, options: changedOptions(),
  };
  try {
    const game = await api("POST", "/api/games", body);
    location.href = `/games/${game.id}`;
  } catch (err) { $("new-game-error").textContent = err.message; }
}

// How well the camera read the cards in the confirmed rounds (detected against confirmed piles).
async function loadAccuracy() {
  const acc = await api("GET", "/api/accuracy");
  const line = $("camera-accuracy");
  line.hidden = !acc.piles;
  if (!acc.piles) return;
  const e = acc.equivalent;
  const pct = (v) => (v === null ? "-" : `${(100 * v).toFixed(1)}%`);
  // fp: a code the camera gave that the confirmed pile lacks, mostly a real card misread
  line.textContent = t("Camera accuracy in your scored rounds: {right} of {cards} read right ({recall}); " +
    "{readings} named a card the pile did not hold, a misread or no card at all (precision {precision}); " +
    "over {piles} from the camera or a photo.", { right: e.tp, cards: count(e.tp + e.fn, "card"), recall: pct(e.recall),
    readings: count(e.fp, "reading"), precision: pct(e.precision), piles: count(acc.piles, "pile") });
}

// The enrolled decks a game can read its cards with (learning needs one).
async function loadDecks() {
  const { decks } = await api("GET", "/api/decks");
  $("deck").append(...decks.map((d) => el("option", { value: d.name, text: `${d.name} (${t("{n} of 48 cards", { n: d.cards })})` })));
  // Learning needs a deck: without one the switch is off and disabled; choosing a deck
  // gives it back as the player last left it (on at first).
  let wanted = $("learn").checked;
  $("learn").addEventListener("change", () => { wanted = $("learn").checked; });
  const sync = () => {
    const deck = !!$("deck").value;
    $("learn").disabled = !deck;
    $("learn").checked = deck && wanted;
  };
  $("deck").addEventListener("change", sync);
  sync();
}

// What a game counts: "months" for Hachi-Hachi's, "rounds" for the others'.
function playedWord(g) {
  return presets.find((p) => p.name === g.preset)?.round_word === "month" ? t("months") : t("rounds");
}

async function loadGames() {
  loadAccuracy().catch(() => { $("camera-accuracy").hidden = true; });
  const { games } = await api("GET", "/api/games");
  $("no-games").hidden = games.length > 0;
  $("games-body").replaceChildren(...games.map((g) => {
    const del = el("button", { type: "button", class: "delete" }, t("Delete"));
    const actions = el("td", { class: "actions" },
      el("a", { href: `/games/${g.id}`, class: "open" }, t("Open")), " ",
      el("a", { href: `/api/games/${g.id}/export.csv` }, "CSV"), " ",
      el("a", { href: `/api/games/${g.id}/export.json` }, "JSON"), " ", del);
    askFirst(del, t("Delete game {id} for good", { id: g.id }), `/api/games/${g.id}`, t("game {id} deleted", { id: g.id }), loadGames);
    return el("tr", { dataset: { game: g.id } },
      el("td", { text: g.id }), el("td", { class: "started", title: g.created_at, text: localTime(g.created_at) }),
      el("td", { text: tr(presets.find((p) => p.name === g.preset)?.title || g.preset) }), el("td", { text: g.players.join(", ") }),
      el("td", { class: "played", text: `${g.rounds_confirmed}/${g.rounds_planned} ${playedWord(g)}${g.finished ? ` (${t("finished")})` : ""}` }), actions);
  }));
}

async function main() {
  const data = await api("GET", "/api/presets");
  presets = data.presets;
  hwatu = (await api("GET", "/api/cards").catch(() => ({}))).hwatu || null;
  $("preset").replaceChildren(...presets.map((p) => el("option", { value: p.name, text: tr(p.title || p.name) })));
  $("preset").value = data.default;
  $("preset").addEventListener("change", renderPlayers);
  $("player-count").addEventListener("change", renderNames);
  $("new-game-form").addEventListener("submit", submit);
  renderPlayers();
  await renderOptions().catch(() => {});
  await loadDecks().catch((err) => toast(`${t("decks")}: ${err.message}`, true));
  await loadGames();
  document.body.dataset.ready = "1";
}

main().catch((err) => { toast(err.message, true); document.body.dataset.ready = "error"; });
