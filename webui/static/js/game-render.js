// The game page's rendering: the open round's piles, the round's context form, results,
// standings, the deck setting and the rounds played. What a button does is in `actions`,
// filled in by game.js (capture and the writes to the server render through here).
import { askBefore, count, el, signed } from "./api.js";
import { runningChart } from "./chart.js";
import { cardLabel, colourChip, monthLabel, monthOrder, roleOf, shownCode } from "./cards.js";
import { FAINT, brightTwin, countNote } from "./piles.js";
import { earlierResult, resultLine, wasFixed } from "./rescore.js";
import { gostopTable, sumWords } from "./result-gostop.js";
import { hachihachiTable, isHachihachi, kanMon } from "./result-hachihachi.js";
import { photoField } from "./context-photo.js";
import { houseRules } from "./house-words.js";
import { LANG, t, tr } from "./i18n.js";
import { cardsNamed, dropSitters, formKey, pickButton, restoreForm, sittersField, sittersIn, storeForm } from "./month-form.js";
import { $, checksOf, draftOf, elsewhereOf, labelOf, markStale, openRound, otherOwnerOf, pileOf, roundWord, roundsNamed, shownCodes,
  staleOf, state, storeExpected, storePiles, unsavedElsewhere, unsavedOwners } from "./game-state.js";

// The pile buttons: capture(owner), photo(owner), add(owner), fix(owner, code),
// replace(owner, code, pick), remove(owner, code), save(owner), discard(owner),
// apply(owner) (this screen's changes onto a pile changed elsewhere); a round's: reopen(number).
export const actions = {};

// A refused confirm (or other round-wide error), said once: under Confirm round, where
// the player just pressed (no toast repeating it).
export function showRoundError(err) {
  $("round-error").textContent = err.message;
}

// A refused write to one pile (a card already in another pile...), said once: beside
// that pile, until the pile is written or photographed again.
export function showPileError(owner, err) {
  pileOf(owner).note = err.message;
  renderPiles();
}

function zoom(src, caption) {
  $("zoom-image").src = src;
  $("zoom-caption").textContent = caption;
  $("zoom").hidden = false;
}

// What the one confidence a card shows means (the list and the camera's box say the same).
export const CONF_TITLE = "how sure the camera is of this card: how often a reading this sure is right " +
  "(over a capture, the mean over the frames it was seen in; its box on the video says the same); " +
  "under 90% it is marked check";

function cardItem(owner, code, editable, reasons) {
  const other = otherOwnerOf(owner, code);
  const rnd = openRound();
  const saved = rnd && rnd.piles[owner] && rnd.piles[owner].crops;
  const pile = pileOf(owner);
  const crop = (pile.open ? pile.crop(code) : null) || (saved && saved[code]) || pile.crop(code);
  const p = pile.conf(code);
  const why = reasons.get(code) || [];
  // the runner-up reading, else (a ribbon the camera read) its month's bright in no pile
  const rival = pile.rival(code) || (p !== undefined ? brightTwin(state.deck, code, shownCodes(owner), elsewhereOf(owner)) : null);
  const offer = rival && !shownCodes(owner).includes(rival) ? rival : null;
  const shown = shownCode(state.deck, code);
  const label = `${shown} ${cardLabel(state.deck, code)}`;
  const faint = why.includes(FAINT);          // joined on the camera's weak readings: one tap accepts it
  return el("li", { class: "card-item" + (other ? " conflict" : "") + (why.length ? " check" : "") + (faint ? " faint" : ""), dataset: { code } },
    crop ? el("button", { type: "button", class: "crop-button", title: "enlarge", onclick: () => zoom(crop, label + (p !== undefined ? ` · ${Math.round(p * 100)}%` : "")) },
      el("img", { class: "crop", src: crop, alt: t("{code} as seen", { code: shown }) })) : el("span", { class: "crop none", text: "—" }),
    colourChip(state.deck, code),
    el("span", { class: "code", text: shown }),
    // cut to its line where it does not fit: a tap (or Enter) shows it whole, and again cuts it
    el("span", { class: "name", text: cardLabel(state.deck, code), title: cardLabel(state.deck, code), tabindex: 0,
      onclick: (e) => e.currentTarget.classList.toggle("whole"),
      onkeydown: (e) => { if (e.key === "Enter") e.currentTarget.classList.toggle("whole"); } }),
    roleOf(state.deck, code) ? el("span", { class: "role", title: roleOf(state.deck, code).roman, text: roleOf(state.deck, code).korean }) : null,
    p !== undefined ? el("span", { class: "conf" + (why.some((w) => w.startsWith("unsure")) ? " low" : ""), text: `${Math.round(p * 100)}%`,
      title: CONF_TITLE }) : null,
    why.length ? el("button", { type: "button", class: "flag check-flag" + (faint ? " accept" : ""),
      title: faint ? why.join("; ") : t("{why} — click once you have checked it", { why: why.join("; ") }),
      onclick: () => { if (faint) pile.accept(code); else pile.checked.add(code); renderPiles(); } }, faint ? t("accept ✓") : t("check ✓")) : null,
    offer && editable ? el("button", { type: "button", class: "rival", title: t("the camera also read it as {card}: swap", { card: `${shownCode(state.deck, offer)} ${cardLabel(state.deck, offer)}` }),
      onclick: () => actions.replace(owner, code, offer) }, `${shownCode(state.deck, offer)}?`) : null,
    other ? el("span", { class: "flag also", title: t("also in {owner}'s pile", { owner: other }) },
      el("span", { class: "wide", text: t("also in ") }), t("{owner}'s", { owner: other }), el("span", { class: "wide", text: t(" pile") })) : null,
    editable ? el("span", { class: "actions" },
      el("button", { type: "button", class: "fix", onclick: () => actions.fix(owner, code) }, t("Fix")),
      el("button", { type: "button", class: "remove", title: t("remove this card"), onclick: () => actions.remove(owner, code) }, t("Remove"))) : null);
}

// A draft made on a pile another screen changed since: this screen's changes, listed
// ("add 09-1"), to apply onto the pile as it now is (shown above) or to discard.
function changesBox(owner, pile) {
  const { adds, removes } = pile.changesOnto(shownCodes(owner));
  const items = [...removes.map((c) => ["remove", c]), ...adds.map((c) => ["add", c])];
  return el("div", { class: "pile-changes", role: "alert" },
    el("p", { text: t("{owner}'s pile was changed on another screen: it is shown as it is now. Your changes, not saved yet " +
      "(apply them onto it, or discard them):", { owner }) }),
    el("ul", { class: "changes" }, items.length ? items.map(([action, code]) =>
      el("li", { class: `change ${action}`, dataset: { action, code } }, `${t(action)} ${shownCode(state.deck, code)} `, el("span", { class: "muted", text: labelOf(code) })))
      : [el("li", { class: "muted", text: t("none: the pile already holds them") })]),
    el("button", { type: "button", class: "apply-changes primary", onclick: () => actions.apply(owner) },
      items.length ? t("Apply my changes to this pile") : t("Done")),
    el("button", { type: "button", class: "discard", onclick: () => actions.discard(owner) }, t("Discard my changes")));
}

// The pile's count box: the number the player typed (kept in the tab across reloads)
// against the cards found, the ones marked check counted as possibly misread.
function countField(owner, found, marked) {
  const note = el("span", { class: "count-note", text: countNote(found, state.expected.get(owner), marked) });
  const input = el("input", { type: "number", class: "expected", min: 0, max: 48, inputmode: "numeric",
    value: state.expected.get(owner) ?? "", placeholder: "?",
    oninput: () => {
      const n = Number(input.value);
      if (input.value === "" || !Number.isInteger(n)) state.expected.delete(owner); else state.expected.set(owner, n);
      storeExpected();
      note.textContent = countNote(found, state.expected.get(owner), marked);
    } });
  return el("div", { class: "count" }, el("label", {}, `${t("How many cards in this pile?")} `, input), " ", note);
}

// How a saved pile came: "photo" when the photo found most of it, else by hand, with
// what the camera or photo found ("by hand; the photo found 4 of 14").
function savedHow(saved) {
  if (saved.source === "manual" || !saved.codes.length) return t("by hand");
  const found = saved.codes.filter((c) => (saved.detected || []).includes(c)).length;
  return found * 2 > saved.codes.length ? t(saved.source)
    : t("by hand; the {source} found {found} of {n}", { source: t(saved.source), found, n: saved.codes.length });
}

export function renderPiles() {
  const rnd = openRound();
  const box = $("piles");
  if (!rnd) { box.replaceChildren(); return; }
  markStale();
  storePiles(rnd.number);
  const elsewhereCounts = unsavedElsewhere();
  box.replaceChildren(...activeOwners().map((owner) => {
    const draft = draftOf(owner);
    const stale = staleOf(owner);
    const saved = rnd.piles[owner];
    const codes = shownCodes(owner);
    const reasons = checksOf(owner, state.deck);
    const status = draft ? (state.capturing === owner ? t("capturing…") : t("not saved yet"))
      : stale ? t("changed on another screen") : saved ? t("saved ({how})", { how: savedHow(saved) }) : t("no pile yet");
    const checks = reasons.size ? ` · ${t("{n} to check", { n: reasons.size })}` : "";
    const elsewhere = elsewhereCounts.get(owner);
    return el("article", { class: "pile" + (draft ? " draft" : stale ? " stale" : saved ? " saved" : "") + (state.capturing === owner ? " capturing" : ""), dataset: { owner } },
      el("header", {}, el("h3", { text: owner }), el("span", { class: "status", text: `${count(codes.length, "card")}${checks} · ${status}` })),
      pileOf(owner).note ? el("p", { class: "pile-error error-message", role: "alert", text: pileOf(owner).note }) : null,
      elsewhere !== undefined ? el("p", { class: "elsewhere count-note", role: "status",
        text: t(elsewhere === 1 ? "{cards} of {owner}'s pile is not saved yet in another tab" : "{cards} of {owner}'s pile are not saved yet in another tab",
          { cards: count(elsewhere, "card"), owner }) }) : null,
      el("ul", { class: "cards" }, codes.map((code) => cardItem(owner, code, true, reasons))),
      stale ? changesBox(owner, stale) : null,
      countField(owner, codes.length, reasons.size),
      el("div", { class: "pile-actions" },
        el("button", { type: "button", class: "capture", onclick: () => actions.capture(owner) }, t("Capture from camera")),
        el("button", { type: "button", class: "photo", onclick: () => actions.photo(owner) }, t("Upload photo")),
        el("button", { type: "button", class: "add", onclick: () => actions.add(owner) }, t("Add cards"))),
      (draft || (!saved && !stale)) ? el("div", { class: "pile-save" },
        saveButton(owner, codes.length, elsewhere),
        draft && state.capturing !== owner ? el("button", { type: "button", class: "discard",
          onclick: () => actions.discard(owner) }, saved ? t("Discard this tab's changes")
          : t("Discard this tab's {cards}", { cards: count(codes.length, "card") })) : null) : null);
  }));
}

// The owners whose pile the round needs: not those the form says sit it out (unless a
// card of theirs is in a pile, for the player to move).
export function activeOwners() {
  const rnd = openRound();
  const sitters = sittersIn($("round-context"));
  return state.game.owners.filter((o) => !sitters.has(o) || shownCodes(o).length ||
    (rnd && rnd.piles[o] && rnd.piles[o].codes.length));
}

// Save pile (or, with no cards, save an empty one); with an unsaved pile of the owner's
// in another tab (`elsewhere` cards), it asks first rather than save over it.
function saveButton(owner, cards, elsewhere) {
  const button = cards ? el("button", { type: "button", class: "save-pile primary", disabled: state.capturing === owner }, t("Save pile"))
    : el("button", { type: "button", class: "save-pile empty", disabled: state.capturing === owner,
      title: t("this player captured no cards this {round}", { round: roundWord() }) }, t("No cards: save an empty pile"));
  if (elsewhere === undefined) button.addEventListener("click", () => actions.save(owner));
  else {
    askBefore(button, t(cards ? "Save this pile over the {cards} not saved in the other tab"
      : "Save an empty pile over the {cards} not saved in the other tab", { cards: count(elsewhere, "card") }),
    () => actions.save(owner), renderPiles, "confirm-save", t("Cancel: save nothing"));
  }
  return button;
}

// The round's context form, drawn from the game's context_fields (the engine's schema):
// who-stopped and per-player counts in view, the other (optional) facts folded away.
function contextInput(f, player) {
  const g = state.game;
  const id = player ? null : `ctx-${f.key}`;
  const data = { key: f.key, kind: f.kind, ...(player ? { player } : {}) };
  const choices = (values, none) => [el("option", { value: "", text: none }),
    ...values.map(([v, t]) => el("option", { value: v, text: t }))];
  // a choice by its name as the players say it (a teyaku: 短一 Tan-ichi …, its shape and kan)
  const named = () => f.choices.map((c, i) => [c, tr((f.choice_labels || [])[i] || c)]);
  const given = (g.context_defaults || {})[f.key];
  // who stopped has no default: a round scored as a draw nobody called would double the
  // next one; "nobody" is a choice the players make
  if (f.kind === "player" && f.required) return el("select", { id, dataset: data, required: true },
    choices([["nobody", tr(f.nobody || "nobody")], ...g.players.map((p) => [p, p])], t("— choose —")));
  if (f.kind === "player") return el("select", { id, dataset: data }, choices(g.players.map((p) => [p, p]), t("nobody")));
  if (f.kind === "count_per_player") return el("input", { type: "number", min: f.minimum, max: f.maximum, value: 0, dataset: data });
  if (f.kind === "count") return el("input", { id, type: "number", min: f.minimum, max: f.maximum, value: given ?? 0, dataset: data });
  if (f.kind === "choice") {         // a value the log carries (last month's field) chosen
    const select = el("select", { id, dataset: data }, choices(named(), "—"));
    if (given) select.value = given;
    return select;
  }
  if (f.kind === "players" && f.sits_out) return sittersField(f, g.players);
  if (f.kind === "players") return el("input", { id, type: "text", maxlength: 200, placeholder: `e.g. ${g.players.slice(0, 2).join(", ")}`, dataset: data });
  if (f.kind === "choice_per_player") return el("select", { dataset: data }, choices(named(), "—"));
  if (f.kind === "month") return el("select", { id, dataset: data },
    choices(monthOrder(state.deck).map((n) => [n, monthLabel(state.deck, n)]), "—"));
  const codes = el("input", { id, type: "text", maxlength: 200, dataset: data,
    placeholder: f.kind === "codes_per_player" ? "7 cards, e.g. 01-1 01-3 …" : "e.g. 03-3 07-4" });
  // a field of codes the camera can read (the table cards at the deal, a dealt hand)
  if (!f.photo) return codes;
  // read from a photo, or picked from the cards as a pile's are
  const what = player ? `${player}'s ${f.label.toLowerCase()}` : f.label.toLowerCase();
  const field = photoField(codes, what);
  codes.after(pickButton(state.deck, codes, what));
  field.append(cardsNamed(state.deck, codes));
  return field;
}

function renderContext() {
  const box = $("round-context");
  box.replaceChildren();
  const more = el("details", { class: "context-extra" }, el("summary", { text: t("More about this {round} (optional)", { round: roundWord() }) }));
  for (const f of state.game.context_fields || []) {
    if (f.min_players && state.game.players.length < f.min_players) continue;
    const perPlayer = f.kind.endsWith("_per_player");
    const word = state.deck.korean && state.deck.hwatu.form[f.key];
    // (the players sitting out are boxes to tick, each with its own label: no label round them)
    const row = el(f.sits_out ? "div" : "label", { title: tr(f.help || ""), class: f.sits_out ? "sitting-out-row" : null },
      word && LANG !== "ko" ? `${word.text} · ${tr(f.label)} ` : word ? `${word.korean} ` : `${tr(f.label)} `);
    // each player's name and input kept together on one line
    if (perPlayer) for (const p of state.game.players) row.append(" ", el("span", { class: "per-player", dataset: { player: p } },
      el("span", { class: "who", text: p }), " ", contextInput(f, p)));
    else row.append(contextInput(f));
    if (f.shown_with) {             // in view once it is needed (two players called go)
      row.dataset.shownWith = f.shown_with;
      box.append(row);
      continue;
    }
    const inView = f.place ? f.place === "view" : ["player", "choice", "count", "count_per_player"].includes(f.kind);
    (inView ? box : more).append(row);
  }
  if (more.children.length > 1) box.append(more);
  box.oninput = (e) => {
    showNeeded();
    if (e && e.target && e.target.dataset && e.target.dataset.sitsOut) { dropSitters(box, sittersIn(box)); renderPiles(); }
    const rnd = openRound();
    if (rnd) storeForm(formKey(state.game.id, rnd.number), box);     // kept across a reload
  };
  showNeeded();
}

// A field shown with a per-player count (the go order) appears once two players have
// one, with those players as its example.
function showNeeded() {
  const box = $("round-context");
  for (const row of box.querySelectorAll("[data-shown-with]")) {
    const callers = [...box.querySelectorAll(`[data-key="${row.dataset.shownWith}"]`)]
      .filter((i) => Number(i.value) > 0).map((i) => i.dataset.player);
    row.hidden = callers.length < 2;
    const input = row.querySelector("input");
    if (input && callers.length >= 2) input.placeholder = t("e.g. {players} (who called first)", { players: callers.join(", ") });
  }
}

// A reopened round's form shows the context it was confirmed with (who stopped as it was
// said: a round confirmed with nobody stopping shows "nobody", not "— choose —").
function fillContext(ctx) {
  for (const input of $("round-context").querySelectorAll("[data-key]")) {
    const { key, kind, player } = input.dataset;
    let value = player ? (ctx[key] || {})[player] : ctx[key];
    if (value === null && kind === "player" && input.required && key in ctx) value = "nobody";
    if (value === undefined || value === null) continue;
    if (input.type === "checkbox") { input.checked = Array.isArray(value) && value.includes(input.value); continue; }
    if (Array.isArray(value)) value = value.join(kind === "players" ? ", " : " ");
    input.value = String(value);
  }
  showNeeded();
}

export function context() {
  const out = {};
  for (const input of $("round-context").querySelectorAll("[data-key]")) {
    const { key, kind, player } = input.dataset;
    const value = input.value.trim();
    if (input.type === "checkbox") { if (input.checked) out[key] = [...(out[key] || []), value]; continue; }
    if (player) {
      if (kind === "count_per_player") out[key] = { ...(out[key] || {}), [player]: Number(value || 0) };
      else if (value) out[key] = { ...(out[key] || {}), [player]: value };
    } else if (kind === "month") { if (value) out[key] = Number(value); }
    else if (kind === "player") out[key] = value && value !== "nobody" ? value : null;
    else if (kind === "count") out[key] = Number(value || 0);
    else if (kind === "players") { const names = value.split(",").map((n) => n.trim()).filter(Boolean); if (names.length) out[key] = names; }
    else if (kind === "codes") { const codes = value.split(/[\s,]+/).filter(Boolean); if (codes.length) out[key] = codes; }
    else out[key] = value || null;
  }
  return out;
}

// An engine message about the round form with its keys (stopped_by, go_order, "(goes)")
// as the form's labels: the API names the keys, the page's user sees the labels.
export function formWords(message) {
  let out = message;
  for (const f of state.game.context_fields || []) {
    const label = `“${tr(f.label)}”`;
    out = f.key.includes("_") ? out.replace(new RegExp(`(?<![\\w-])${f.key}(?![\\w-])`, "g"), label)
      : out.replaceAll(`(${f.key})`, `(${label})`);
  }
  return tr(out);         // in the page's language where the catalogue has its shape
}

// The required fields left unchosen (who stopped): [{field, input}].
export function missingContext() {
  return (state.game.context_fields || []).filter((f) => f.required)
    .map((f) => ({ field: f, input: $(`ctx-${f.key}`) })).filter(({ input }) => input && !input.value);
}

// A round's result: the game's table (Go-Stop and Matgo have their own), the winner and
// the explanation lines.
function resultTable(result, owners, after = null) {
  const gostop = result.game === "gostop" && state.deck.hwatu &&
    Object.values(result.results || {}).some((r) => r.details);
  return el("div", {},
    gostop ? gostopTable(result, owners, state.deck.hwatu)
      : isHachihachi(result) ? hachihachiTable(result, owners, after) : pointsTable(result, owners),
    el("p", { class: "round-winner" }, `${t("Winner:")} `, el("b", { text: result.winner || (gostop ? t("nobody (nagari)") : t("nobody (draw)")) }),
      ` · ${t("next dealer: {dealer}", { dealer: result.next_dealer })}`),
    (result.explanation || []).length ? el("ul", { class: "explanation" }, result.explanation.map((t) =>
      el("li", { text: tr(gostop ? sumWords(t, state.deck.hwatu) : t) }))) : null);
}

// Sakura, Koi-Koi, Hana-Awase: card points, yaku, penalty, round score.
function pointsTable(result, owners) {
  const rows = owners.map((owner) => {
    const r = result.results[owner] || {};
    return el("tr", { dataset: { owner } },
      el("th", { text: owner + (result.winner === owner ? " ★" : "") }),
      el("td", { class: "num card-points", text: r.card_points ?? "" }),
      el("td", { class: "yaku" }, (r.yaku || []).length ? (r.yaku || []).map((y) =>
        el("div", { class: "yaku-hit" }, el("b", { text: `${y.label}: ${y.points}` }), ` (${y.cards.map((c) => shownCode(state.deck, c)).join(" ")})`)) : "—"),
      el("td", { class: "num penalty", text: r.penalty ? signed(-r.penalty) : "0" }),
      el("td", { class: "num score", text: signed(r.score) }));
  });
  return el("div", { class: "table-wrap" }, el("table", { class: "result" },
    el("thead", {}, el("tr", {}, ["Pile", "Card points", "Yaku (cards)", "Penalty", "Round score"].map((h) => el("th", { text: t(h) })))),
    el("tbody", {}, rows)));
}

function renderStandings() {
  const g = state.game;
  const s = g.standings || {};
  const totals = s.totals || {};
  const owners = Object.keys(totals).length ? Object.keys(totals) : g.owners;
  const sorted = [...owners].sort((a, b) => (totals[b] || 0) - (totals[a] || 0));
  const victories = s.victories || null;
  // Hachi-Hachi's totals are mon, written in kan and mon
  const perKan = g.ruleset.game === "hachihachi" ? Number((g.ruleset.options || {}).mon_per_kan || 12) : 0;
  const total = (n) => perKan ? kanMon(n, perKan, true) : signed(n);
  $("standings").replaceChildren(
    el("thead", {}, el("tr", {}, el("th", { text: t("Player") }), el("th", { text: t("Total") }), victories ? el("th", { text: t("Victories") }) : null)),
    el("tbody", {}, sorted.map((o) => el("tr", { dataset: { owner: o } },
      el("th", {}, o, s.winner === o && s.finished ? el("img", { class: "trophy", src: "/static/img/trophy.svg", alt: " (winner)", width: 16, height: 16 }) : null),
      el("td", { class: "num total", text: total(totals[o] ?? 0) }),
      victories ? el("td", { class: "num", text: victories[o] ?? 0 }) : null))));
  // the confirmed rounds' numbers: a reopened round leaves its place empty on the chart
  const numbers = g.rounds.filter((r) => r.confirmed).map((r) => r.number).sort((a, b) => a - b);
  // in the standings' unit: Hachi-Hachi's in kan and mon
  $("chart").replaceChildren(...((s.running || []).length ? [runningChart(owners, s.running, g.rounds_planned, numbers, roundWord(),
    undefined, undefined, perKan ? (n) => kanMon(n, perKan, true) : null)] : []));
  const banner = $("winner-banner");
  banner.hidden = !s.finished;
  if (s.finished) banner.textContent = s.winner ? t("Game over — {winner} wins", { winner: s.winner }) : t("Game over — a tie");
}

// The game's deck profile and its learn switch (changed at once on the server).
export function renderDeck() {
  const g = state.game;
  const select = $("game-deck");
  if (g.deck && ![...select.options].some((o) => o.value === g.deck)) {
    select.append(el("option", { value: g.deck, text: `${g.deck} (no longer enrolled)` }));
  }
  select.value = g.deck || "";
  $("learn-label").hidden = !g.deck;
  $("learn-deck").checked = !!g.learn;
  const note = tr(g.deck_note) || (state.deckFallback && t("reading without the deck profile: {why}", { why: tr(state.deckFallback) }));
  $("deck-note").hidden = !note;
  $("deck-note").textContent = note || "";
}

// The rounds played, latest first: each result, the one it had before a fix changed it
// (reopened and confirmed again) beside it, and a Reopen button that asks first.
// The game's totals after round `number` (the year's running totals of Hachi-Hachi's log).
function totalsAfter(number) {
  const g = state.game;
  const done = g.rounds.filter((r) => r.confirmed).map((r) => r.number).sort((a, b) => a - b);
  return ((g.standings || {}).running || [])[done.indexOf(number)] || null;
}

function renderHistory() {
  const g = state.game;
  const done = g.rounds.filter((r) => r.confirmed);
  $("history").replaceChildren(...(done.length ? done.slice().reverse().map((r) => {
    const earlier = earlierResult(g.corrections, r.number);
    const fixed = earlier && wasFixed(g.corrections, r.number);    // else scored again with an earlier fix
    const later = done.filter((d) => d.number > r.number).map((d) => d.number);
    const reopen = el("button", { type: "button", class: "reopen",
      title: t("fix this {round}'s piles; confirming it again scores it and those after it anew", { round: roundWord() }) },
      t("Reopen {round} {n} to fix it", { round: roundWord(), n: r.number }));
    askBefore(reopen, t(g.finished ? "Reopen {round} {n} of this finished game" : "Reopen {round} {n}", { round: roundWord(), n: r.number }) +
      (later.length ? ` (${t("{later} will be scored again", { later: roundsNamed(later) })})` : ""),
    () => actions.reopen(r.number), renderHistory, "confirm-reopen");
    return el("details", { class: "round", dataset: { round: r.number } },
      el("summary", { text: t("{Round} {n} — dealer {dealer} — winner {winner}", { Round: roundWord(true), n: r.number,
        dealer: r.dealer, winner: r.result.winner || t("nobody") }) +
        (earlier ? ` (${t(fixed ? "corrected; was {winner}" : "re-scored; was {winner}", { winner: earlier.winner || t("nobody") })})` : "") +
        (r.learned ? ` — ${t("{crops} learned", { crops: count(r.learned, "card crop") })}` : "") }),
      el("div", { class: earlier ? "results corrected" : "results" },
        el("div", { class: "result-now" }, earlier ? el("h4", { text: t("Now") }) : null, resultTable(r.result, g.owners, totalsAfter(r.number))),
        earlier ? el("div", { class: "earlier-result" }, el("h4", { text: fixed ? t("Before the fix") : t("Before it was re-scored") }),
          el("p", { text: resultLine(earlier) }), resultTable(earlier, g.owners)) : null),
      reopen);
  }) : [el("p", { class: "muted", text: t("No {round} confirmed yet.", { round: roundWord() }) })]));
}

export function render() {
  const g = state.game;
  $("round-error").textContent = "";       // an error is about the state before this change
  $("game-title").textContent = `${t("Game {id}", { id: g.id })}: ${g.players.join(", ")}`;
  // the preset's description, or (house rules changed it) the rules that differ, in words
  const house = houseRules(g.ruleset, render);        // in the page's language
  $("game-info").textContent = `${tr(g.ruleset.title || g.ruleset.name)} — ` +
    (house.length ? t("house rules: {rules} The rest as the preset.", { rules: house.join(" ") }) : tr(g.ruleset.description)) +
    (g.teams ? ` · ${t("teams {teams}", { teams: g.owners.join(" vs ") })}` : "") +
    ` · ${t(state.game.round_word === "month" ? "{n} months" : "{n} rounds", { n: g.rounds_planned })}`;
  renderDeck();
  const rnd = openRound();
  $("round-panel").hidden = !rnd;
  if (rnd) {
    $("round-title").textContent = t("{Round} {n} of {planned}", { Round: roundWord(true), n: rnd.number, planned: g.rounds_planned });
    const later = g.rounds.filter((r) => r.confirmed && r.number > rnd.number).map((r) => r.number);
    $("round-info").textContent = later.length
      ? t("{Round} {n} is reopened (dealer {dealer}): fix its piles, then confirm it again; {later} will be scored again with it.",
        { Round: roundWord(true), n: rnd.number, dealer: g.dealer, later: roundsNamed(later) })
      : t("Dealer: {dealer}. Capture each pile, fix any card, save it, then confirm the {round}.", { dealer: g.dealer, round: roundWord() });
    renderPiles();
    const ready = activeOwners().every((o) => rnd.piles[o]) && !unsavedOwners().length;
    $("confirm-round").classList.toggle("primary", ready);    // red once every pile is saved
    if (!$("round-context").dataset.round || $("round-context").dataset.round !== String(rnd.number)) {
      renderContext();
      fillContext(rnd.context || {});
      restoreForm(formKey(g.id, rnd.number), $("round-context"));   // what this tab typed before a reload
      for (const input of $("round-context").querySelectorAll("[data-kind^='codes']")) input.dispatchEvent(new Event("change"));
      showNeeded();
      $("round-context").dataset.round = String(rnd.number);
      const sitters = sittersIn($("round-context"));
      dropSitters($("round-context"), sitters);
      if (sitters.size) renderPiles();
    }
  }
  if (state.lastResult) {
    $("last-result").hidden = false;
    $("last-result-title").textContent = t("{Round} {n} result", { Round: roundWord(true), n: state.lastResult.number });
    $("last-result-body").replaceChildren(resultTable(state.lastResult.result, g.owners,
      totalsAfter(state.lastResult.number)));
  }
  renderStandings();
  renderHistory();
}

