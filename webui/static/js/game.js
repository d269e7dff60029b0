// One game's page: the open round's piles (capture, photo, hand fixes), confirming the
// round, its result, the standings with a chart, and the rounds played.
import { api, count, el, signed, toast } from "./api.js";
import { LiveCapture, detectPhoto, drawBoxes } from "./camera.js";
import { runningChart } from "./chart.js";
import { cardLabel, colourChip, loadCards, pickCard } from "./cards.js";
import { countKey, draftKey, loadCounts, loadDrafts, storeCounts, storeDrafts } from "./drafts.js";
import { checkFirst, countNote, followCamera } from "./piles.js";

const root = document.getElementById("game");
const gameId = Number(root.dataset.gameId);
const base = `/api/games/${gameId}`;
const $ = (id) => document.getElementById(id);

const state = {
  deck: null,             // the 48 cards (cards.js), not the game's enrolled deck (game.deck)
  game: null,
  drafts: new Map(),      // owner -> {codes, detected, source, conf, rivals}: not saved yet
  crops: new Map(),       // owner -> Map(code -> data URL), this session only
  conf: new Map(),        // owner -> Map(code -> confidence), this session only
  rivals: new Map(),      // owner -> Map(code -> the camera's runner-up reading of that card)
  expected: new Map(),    // owner -> how many cards the player says the pile holds
  capturing: null,        // owner being captured from the camera
  removedByHand: new Set(), // codes removed by hand during this capture: they stay out
  lastResult: null,
  deckFallback: null,     // why the game's deck profile is not used this session (the server's message)
};

// The deck profile frames are read with: the game's deck while it is enrolled and usable.
function readWith() {
  const g = state.game;
  const deck = g.deck && g.deck_enrolled && !state.deckFallback ? g.deck : null;
  return { deck, onDeckFallback: (message) => { state.deckFallback = message; renderDeck(); } };
}

function perOwner(table, owner) {
  if (!table.has(owner)) table.set(owner, new Map());
  return table.get(owner);
}
const cropsOf = (owner) => perOwner(state.crops, owner);
const confOf = (owner) => perOwner(state.conf, owner);
const rivalsOf = (owner) => perOwner(state.rivals, owner);

// Every crop this session has of each code (pictures for the card picker).
function pictures() {
  const out = new Map();
  const rnd = openRound();
  for (const owner of state.game.owners) {
    for (const [code, url] of Object.entries((rnd && rnd.piles[owner] && rnd.piles[owner].crops) || {})) out.set(code, url);
    for (const [code, url] of cropsOf(owner)) out.set(code, url);
  }
  return out;
}

function openRound() {
  const g = state.game;
  if (!g.open_round) return null;
  return g.rounds.find((r) => r.number === g.open_round) || { number: g.open_round, piles: {}, dealer: g.dealer };
}

// The version of the saved pile a write replaces (0: not saved yet): the server refuses
// a write made on an older one (409), so a change from another screen is never lost.
function savedVersion(owner) {
  const rnd = openRound();
  return (rnd && rnd.piles[owner] && rnd.piles[owner].version) || 0;
}

// A 409 for a stale write: show the pile as it is now and what the refused change was.
async function showStale(owner, err, change) {
  if (err.status !== 409 || !err.data || !err.data.stale) return false;
  state.game = await api("GET", base);
  render();
  const now = err.data.pile ? err.data.pile.codes.join(", ") || "empty" : "not saved";
  showRoundError(new Error(`${owner}'s pile was changed on another screen; it is now: ${now}. ` +
    `Not saved: ${change}. Check the pile, then apply it again.`));
  return true;
}

function shownCodes(owner) {
  const draft = state.drafts.get(owner);
  if (draft) return draft.codes;
  const rnd = openRound();
  return rnd && rnd.piles[owner] ? rnd.piles[owner].codes : [];
}

function otherOwnerOf(owner, code) {
  return state.game.owners.find((o) => o !== owner && shownCodes(o).includes(code)) || null;
}

function usedFlags(owner) {
  const flags = new Map();
  for (const o of state.game.owners) {
    for (const code of shownCodes(o)) flags.set(code, o === owner ? "in this pile" : `in ${o}'s pile`);
  }
  return flags;
}

// ------------------------------------------------------------------ pile editing
async function correction(owner, action, oldCode, newCode) {
  const rnd = openRound();
  if (!state.drafts.has(owner) && !(rnd && rnd.piles[owner])) {
    state.drafts.set(owner, { codes: [], detected: [], source: "manual" });   // a pile by hand
  }
  const draft = state.drafts.get(owner);
  if (draft) {
    const codes = draft.codes;
    if (owner === state.capturing && oldCode) state.removedByHand.add(oldCode);
    if (action === "remove") codes.splice(codes.indexOf(oldCode), 1);
    else if (action === "add") { if (!codes.includes(newCode)) codes.push(newCode); }
    else if (!codes.includes(newCode)) codes[codes.indexOf(oldCode)] = newCode;
    render();
    return;
  }
  try {
    const data = await api("POST", `${base}/rounds/${state.game.open_round}/corrections`,
      { owner, action, old_code: oldCode, new_code: newCode, version: savedVersion(owner) });
    state.game = data.game;
    render();
    toast("correction saved");
  } catch (err) {
    if (!(await showStale(owner, err, `${action} ${oldCode || ""} ${newCode || ""}`.trim()))) showRoundError(err);
  }
}

async function fixCard(owner, code) {
  const pick = await pickCard(state.deck, `Replace ${code} ${cardLabel(state.deck, code)} with…`, usedFlags(owner));
  if (!pick || pick === code) return;
  await replaceCard(owner, code, pick);
}

// One card for another: its crop goes along (it shows the physical card), the camera's
// confidence and runner-up do not (they were about the old reading).
async function replaceCard(owner, code, pick) {
  const crop = cropsOf(owner).get(code);
  if (crop) cropsOf(owner).set(pick, crop);
  confOf(owner).delete(code);
  rivalsOf(owner).delete(code);
  await correction(owner, "replace", code, pick);
}

async function addCard(owner) {
  const picks = await pickCard(state.deck, `Add cards to ${owner}'s pile`, usedFlags(owner),
    { multi: true, pictures: pictures() });
  for (const pick of picks) await correction(owner, "add", null, pick);
}

async function savePile(owner) {
  const draft = state.drafts.get(owner) || { codes: shownCodes(owner), detected: [], source: "manual" };
  try {
    const data = await api("PUT", `${base}/rounds/${state.game.open_round}/piles`,
      { owner, codes: draft.codes, detected: draft.detected, source: draft.source, version: savedVersion(owner),
        crops: Object.fromEntries([...cropsOf(owner)].filter(([code]) => draft.codes.includes(code))) });
    state.drafts.delete(owner);
    state.game = data.game;
    render();
    toast(`${owner}'s pile saved`);
  } catch (err) {
    // the draft stays: saving it again replaces the pile shown now
    if (!(await showStale(owner, err, `your pile ${draft.codes.join(", ") || "(empty)"}`))) showRoundError(err);
  }
}

function showRoundError(err) {
  $("round-error").textContent = err.message;
  toast(err.message, true);
}

// ------------------------------------------------------------------ capture
let live = null;

function labelOf(code) { return cardLabel(state.deck, code).split(": ")[1] || code; }

function liveCapture() {
  if (!live) {
    live = new LiveCapture({
      video: $("video"), overlay: $("overlay"), select: $("camera-select"), status: $("camera-status"),
      progress: $("capture-progress"), labelOf, autoFinish: () => $("auto-finish").checked, readWith,
      onPile: (tracker) => {
        const owner = state.capturing;
        const draft = state.drafts.get(owner);
        if (!draft) return;
        const now = tracker.pile;
        if (now.join() === draft.detected.join()) return;
        draft.codes = followCamera(draft.codes, draft.detected, now, state.removedByHand);
        draft.detected = [...now];
        for (const code of now) {
          const crop = tracker.crop(code);
          if (crop) cropsOf(owner).set(code, crop);
          confOf(owner).set(code, tracker.confidence(code));
          rivalsOf(owner).set(code, tracker.rival(code));
        }
        draft.conf = Object.fromEntries(confOf(owner));
        draft.rivals = Object.fromEntries(rivalsOf(owner));
        renderPiles();
      },
      onFinish: () => {
        const owner = state.capturing;
        endCapture(true);
        const codes = shownCodes(owner);
        const marked = checkFirst(codes, confOf(owner), state.deck, rivalsOf(owner)).size;
        toast(`${owner}: ${count(codes.length, "card")} captured — ` +
          (marked ? `check the ${marked === 1 ? "marked one" : `${marked} marked ones`}, then save` : "save the pile"));
      },
    });
  }
  return live;
}

function showSide(which) {
  $("camera-panel").hidden = which !== "camera";
  $("photo-panel").hidden = which !== "photo";
  $("workspace").classList.toggle("with-side", !!which);
}

async function startCapture(owner) {
  if (state.capturing) endCapture(true);
  state.capturing = owner;
  state.removedByHand = new Set();
  forgetCamera(owner);
  state.drafts.set(owner, { codes: [], detected: [], source: "camera" });
  $("capture-owner").textContent = `${owner}'s pile`;
  showSide("camera");
  $("camera-status").textContent = "starting the camera…";
  $("capture-progress").textContent = "starting…";
  render();
  // side by side: the pile being captured at the top beside the (sticky) video;
  // stacked on a phone: the video
  showCapture(owner);
  const cam = liveCapture();
  try {
    if (!cam.stream) await cam.start($("camera-select").value || null);
    if (state.capturing === owner) { cam.begin(); showCapture(owner); }   // the video has its size now
  } catch (err) {
    $("camera-status").textContent = `camera unavailable: ${err.message}`;
  }
}

// Side by side: the pile being captured as high as it goes beside the (sticky) video,
// but never so high that the video's top leaves the window (near the page's end the
// sticky panel would be pushed up with it). Stacked on a phone: the video.
function showCapture(owner) {
  const panel = $("camera-panel");
  if (!window.matchMedia("(min-width: 821px)").matches) { panel.scrollIntoView({ block: "nearest" }); return; }
  document.querySelector(`article.pile[data-owner="${CSS.escape(owner)}"]`)?.scrollIntoView({ block: "start" });
  const top = panel.getBoundingClientRect().top;
  if (top < 0) window.scrollBy(0, top - 8);
}

// Drop an owner's unsaved pile and what the camera said about it.
function forgetCamera(owner) {
  state.drafts.delete(owner);
  confOf(owner).clear();
  rivalsOf(owner).clear();
}

function endCapture(keep) {
  const owner = state.capturing;
  if (live) { live.end(); live.stopStream(); }
  state.capturing = null;
  showSide(null);
  if (!keep && owner) forgetCamera(owner);
  render();
}

async function photo(owner) {
  const input = $("photo-input");
  input.value = "";
  input.onchange = async () => {
    const file = input.files && input.files[0];
    if (!file) return;
    try {
      if (state.capturing) endCapture(true);
      const { result, crops, conf, url } = await detectPhoto(file, readWith());
      const codes = [...conf.keys()];
      forgetCamera(owner);
      state.drafts.set(owner, { codes: [...codes], detected: [...codes], source: "photo", conf: Object.fromEntries(conf) });
      for (const [code, crop] of crops) cropsOf(owner).set(code, crop);
      for (const [code, p] of conf) confOf(owner).set(code, p);
      render();
      await showPhoto(owner, url, result);
      toast(`${count(codes.length, "card")} found in the photo` +
        (result.hints?.length ? `: ${result.hints[0]}` : ""));
    } catch (err) { showRoundError(err); }
  };
  input.click();
}

// The uploaded photo with the boxes the detector found, beside the pile list.
async function showPhoto(owner, url, result) {
  const img = $("photo-image");
  if (img.dataset.url) URL.revokeObjectURL(img.dataset.url);
  img.src = url;
  img.dataset.url = url;
  $("photo-owner").textContent = `${owner}'s pile`;
  $("photo-status").textContent = `${count(result.cards.length, "box", "boxes")}; a card with no box was not seen: add it by hand or take another photo`;
  showSide("photo");
  await img.decode().catch(() => {});
  drawBoxes($("photo-overlay"), result.width, result.height, result.cards,
    new Set(result.cards.map((c) => c.code)), labelOf);
}

function zoom(src, caption) {
  $("zoom-image").src = src;
  $("zoom-caption").textContent = caption;
  $("zoom").hidden = false;
}

// ------------------------------------------------------------------ rendering
function cardItem(owner, code, editable, reasons) {
  const other = otherOwnerOf(owner, code);
  const rnd = openRound();
  const saved = rnd && rnd.piles[owner] && rnd.piles[owner].crops;
  const crop = (state.drafts.has(owner) ? cropsOf(owner).get(code) : null) ||
    (saved && saved[code]) || cropsOf(owner).get(code);
  const p = confOf(owner).get(code);
  const why = reasons.get(code) || [];
  const rival = rivalsOf(owner).get(code);
  const offer = rival && !shownCodes(owner).includes(rival) ? rival : null;
  const label = `${code} ${cardLabel(state.deck, code)}`;
  return el("li", { class: "card-item" + (other ? " conflict" : "") + (why.length ? " check" : ""), dataset: { code } },
    crop ? el("button", { type: "button", class: "crop-button", title: "enlarge", onclick: () => zoom(crop, label + (p !== undefined ? ` · ${Math.round(p * 100)}%` : "")) },
      el("img", { class: "crop", src: crop, alt: `${code} as seen` })) : el("span", { class: "crop none", text: "—" }),
    colourChip(state.deck, code),
    el("span", { class: "code", text: code }),
    el("span", { class: "name", text: cardLabel(state.deck, code) }),
    p !== undefined ? el("span", { class: "conf" + (why.some((w) => w.startsWith("unsure")) ? " low" : ""), text: `${Math.round(p * 100)}%` }) : null,
    why.length ? el("span", { class: "flag check-flag", title: why.join("; "), text: "check" }) : null,
    offer && editable ? el("button", { type: "button", class: "rival", title: `the camera also read it as ${offer} ${cardLabel(state.deck, offer)}: swap`,
      onclick: () => replaceCard(owner, code, offer) }, `${offer}?`) : null,
    other ? el("span", { class: "flag", text: `also in ${other}'s pile` }) : null,
    editable ? el("span", { class: "actions" },
      el("button", { type: "button", class: "fix", onclick: () => fixCard(owner, code) }, "Fix"),
      el("button", { type: "button", class: "remove", onclick: () => correction(owner, "remove", code, null) }, "Remove")) : null);
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
      storeCounts(countKey(gameId, state.game.open_round), state.expected);
      note.textContent = countNote(found, state.expected.get(owner), marked);
    } });
  return el("div", { class: "count" }, el("label", {}, "How many cards in this pile? ", input), " ", note);
}

function renderPiles() {
  const rnd = openRound();
  const box = $("piles");
  if (!rnd) { box.replaceChildren(); return; }
  storeDrafts(draftKey(gameId, rnd.number), state.drafts, cropsOf);
  box.replaceChildren(...state.game.owners.map((owner) => {
    const draft = state.drafts.get(owner);
    const saved = rnd.piles[owner];
    const codes = shownCodes(owner);
    const reasons = checkFirst(codes, confOf(owner), state.deck, rivalsOf(owner));
    const status = draft ? (state.capturing === owner ? "capturing…" : "not saved yet")
      : saved ? `saved (${saved.source})` : "no pile yet";
    const checks = reasons.size ? ` · ${reasons.size} to check` : "";
    return el("article", { class: "pile" + (draft ? " draft" : saved ? " saved" : "") + (state.capturing === owner ? " capturing" : ""), dataset: { owner } },
      el("header", {}, el("h3", { text: owner }), el("span", { class: "status", text: `${count(codes.length, "card")}${checks} · ${status}` })),
      el("ul", { class: "cards" }, codes.map((code) => cardItem(owner, code, true, reasons))),
      countField(owner, codes.length, reasons.size),
      el("div", { class: "pile-actions" },
        el("button", { type: "button", class: "capture", onclick: () => startCapture(owner) }, "Capture from camera"),
        el("button", { type: "button", class: "photo", onclick: () => photo(owner) }, "Upload photo"),
        el("button", { type: "button", class: "add", onclick: () => addCard(owner) }, "Add cards")),
      (draft || !saved) ? el("div", { class: "pile-save" },
        codes.length ? el("button", { type: "button", class: "save-pile primary", disabled: state.capturing === owner,
          onclick: () => savePile(owner) }, "Save pile")
          : el("button", { type: "button", class: "save-pile empty", disabled: state.capturing === owner,
            title: "this player captured no cards this round", onclick: () => savePile(owner) }, "No cards: save an empty pile"),
        draft && state.capturing !== owner ? el("button", { type: "button", class: "discard",
          onclick: () => { forgetCamera(owner); render(); } }, saved ? "Discard changes" : "Discard") : null) : null);
  }));
}

// The round's context form, drawn from the game's context_fields (the engine's schema):
// who-stopped and per-player counts in view, the other (optional) facts folded away.
function contextInput(f, player) {
  const g = state.game;
  const id = player ? null : `ctx-${f.key}`;
  const data = { key: f.key, kind: f.kind, ...(player ? { player } : {}) };
  const choices = (values, none) => [el("option", { value: "", text: none }),
    ...values.map(([v, t]) => el("option", { value: v, text: t }))];
  const given = (g.context_defaults || {})[f.key];
  if (f.kind === "player") return el("select", { id, dataset: data }, choices(g.players.map((p) => [p, p]), "nobody"));
  if (f.kind === "count_per_player") return el("input", { type: "number", min: f.minimum, max: f.maximum, value: 0, dataset: data });
  if (f.kind === "count") return el("input", { id, type: "number", min: f.minimum, max: f.maximum, value: given ?? 0, dataset: data });
  if (f.kind === "choice") return el("select", { id, dataset: data }, choices(f.choices.map((c) => [c, c]), "—"));
  if (f.kind === "players") return el("input", { id, type: "text", maxlength: 200, placeholder: `e.g. ${g.players.slice(0, 2).join(", ")}`, dataset: data });
  if (f.kind === "choice_per_player") return el("select", { dataset: data }, choices(f.choices.map((c) => [c, c]), "—"));
  if (f.kind === "month") return el("select", { id, dataset: data },
    choices([...state.deck.months.values()].map((m) => [m.number, `${m.number} ${m.english}`]), "—"));
  return el("input", { id, type: "text", maxlength: 200, placeholder: "e.g. 03-3 07-4", dataset: data });
}

function renderContext() {
  const box = $("round-context");
  box.replaceChildren();
  const more = el("details", { class: "context-extra" }, el("summary", { text: "More about this round (optional)" }));
  for (const f of state.game.context_fields || []) {
    const perPlayer = f.kind.endsWith("_per_player");
    const row = el("label", { title: f.help || "" }, `${f.label} `);
    if (perPlayer) for (const p of state.game.players) row.append(` ${p} `, contextInput(f, p));
    else row.append(contextInput(f));
    (["player", "choice", "count", "count_per_player"].includes(f.kind) ? box : more).append(row);
  }
  if (more.children.length > 1) box.append(more);
}

function context() {
  const out = {};
  for (const input of $("round-context").querySelectorAll("[data-key]")) {
    const { key, kind, player } = input.dataset;
    const value = input.value.trim();
    if (player) {
      if (kind === "count_per_player") out[key] = { ...(out[key] || {}), [player]: Number(value || 0) };
      else if (value) out[key] = { ...(out[key] || {}), [player]: value };
    } else if (kind === "month") { if (value) out[key] = Number(value); }
    else if (kind === "count") out[key] = Number(value || 0);
    else if (kind === "players") { const names = value.split(",").map((n) => n.trim()).filter(Boolean); if (names.length) out[key] = names; }
    else if (kind === "codes") { const codes = value.split(/[\s,]+/).filter(Boolean); if (codes.length) out[key] = codes; }
    else out[key] = value || null;
  }
  return out;
}

function resultTable(result, owners) {
  const rows = owners.map((owner) => {
    const r = result.results[owner] || {};
    return el("tr", { dataset: { owner } },
      el("th", { text: owner + (result.winner === owner ? " ★" : "") }),
      el("td", { class: "num card-points", text: r.card_points ?? "" }),
      el("td", { class: "yaku" }, (r.yaku || []).length ? (r.yaku || []).map((y) =>
        el("div", { class: "yaku-hit" }, el("b", { text: `${y.label} ${y.points}` }), ` (${y.cards.join(" ")})`)) : "—"),
      el("td", { class: "num penalty", text: r.penalty ? signed(-r.penalty) : "0" }),
      el("td", { class: "num score", text: signed(r.score) }));
  });
  return el("div", {},
    el("table", { class: "result" },
      el("thead", {}, el("tr", {}, ["Pile", "Card points", "Yaku (cards)", "Penalty", "Round score"].map((h) => el("th", { text: h })))),
      el("tbody", {}, rows)),
    el("p", { class: "round-winner" }, "Winner: ", el("b", { text: result.winner || "nobody (draw)" }),
      ` · next dealer: ${result.next_dealer}`),
    (result.explanation || []).length ? el("ul", { class: "explanation" }, result.explanation.map((t) => el("li", { text: t }))) : null);
}

function renderStandings() {
  const g = state.game;
  const s = g.standings || {};
  const totals = s.totals || {};
  const owners = Object.keys(totals).length ? Object.keys(totals) : g.owners;
  const sorted = [...owners].sort((a, b) => (totals[b] || 0) - (totals[a] || 0));
  const victories = s.victories || null;
  $("standings").replaceChildren(
    el("thead", {}, el("tr", {}, el("th", { text: "Player" }), el("th", { text: "Total" }), victories ? el("th", { text: "Victories" }) : null)),
    el("tbody", {}, sorted.map((o) => el("tr", { dataset: { owner: o } },
      el("th", {}, o, s.winner === o && s.finished ? el("img", { class: "trophy", src: "/static/img/trophy.svg", alt: " (winner)", width: 16, height: 16 }) : null),
      el("td", { class: "num total", text: signed(totals[o] ?? 0) }),
      victories ? el("td", { class: "num", text: victories[o] ?? 0 }) : null))));
  $("chart").replaceChildren(...((s.running || []).length ? [runningChart(owners, s.running, g.rounds_planned)] : []));
  const banner = $("winner-banner");
  banner.hidden = !s.finished;
  if (s.finished) banner.textContent = s.winner ? `Game over — ${s.winner} wins` : "Game over — a tie";
}

// The game's deck profile and its learn switch (changed at once on the server).
function renderDeck() {
  const g = state.game;
  const select = $("game-deck");
  if (g.deck && ![...select.options].some((o) => o.value === g.deck)) {
    select.append(el("option", { value: g.deck, text: `${g.deck} (no longer enrolled)` }));
  }
  select.value = g.deck || "";
  $("learn-label").hidden = !g.deck;
  $("learn-deck").checked = !!g.learn;
  const note = g.deck_note || (state.deckFallback && `reading without the deck profile: ${state.deckFallback}`);
  $("deck-note").hidden = !note;
  $("deck-note").textContent = note || "";
}

// The enrolled decks, offered on the game page too (a game may change its deck).
async function loadDecks() {
  const { decks } = await api("GET", "/api/decks");
  $("game-deck").append(...decks.map((d) => el("option", { value: d.name, text: `${d.name} (${d.cards} of 48 cards)` })));
}

async function setDeck() {
  const deck = $("game-deck").value || null;
  try {
    state.game = await api("PATCH", base, { deck });
    state.deckFallback = null;
    toast(deck ? `cards are read with deck ${deck}` : "no deck profile");
  } catch (err) { toast(err.message, true); }
  renderDeck();
}

async function setLearn() {
  const learn = $("learn-deck").checked;
  try {
    state.game = await api("PATCH", base, { learn });
    toast(learn ? `confirmed rounds will teach deck ${state.game.deck}` : "learning off");
  } catch (err) { toast(err.message, true); }
  renderDeck();
}

function renderHistory() {
  const g = state.game;
  const done = g.rounds.filter((r) => r.confirmed);
  $("history").replaceChildren(...(done.length ? done.slice().reverse().map((r) =>
    el("details", { class: "round", dataset: { round: r.number } },
      el("summary", { text: `Round ${r.number} — dealer ${r.dealer} — winner ${r.result.winner || "nobody"}` +
        (r.learned ? ` — ${count(r.learned, "card crop")} learned` : "") }),
      resultTable(r.result, g.owners))) : [el("p", { class: "muted", text: "No round confirmed yet." })]));
}

function render() {
  const g = state.game;
  $("round-error").textContent = "";       // an error is about the state before this change
  $("game-title").textContent = `Game ${g.id}: ${g.players.join(", ")}`;
  $("game-info").textContent = `${g.ruleset.name} — ${g.ruleset.description}` +
    (g.teams ? ` · teams ${g.owners.join(" vs ")}` : "") + ` · ${g.rounds_planned} rounds`;
  renderDeck();
  const rnd = openRound();
  $("round-panel").hidden = !rnd;
  if (rnd) {
    $("round-title").textContent = `Round ${rnd.number} of ${g.rounds_planned}`;
    $("round-info").textContent = `Dealer: ${g.dealer}. Capture each pile, fix any card, save it, then confirm the round.`;
    renderPiles();
    if (!$("round-context").dataset.round || $("round-context").dataset.round !== String(rnd.number)) {
      renderContext();
      $("round-context").dataset.round = String(rnd.number);
    }
  }
  if (state.lastResult) {
    $("last-result").hidden = false;
    $("last-result-title").textContent = `Round ${state.lastResult.number} result`;
    $("last-result-body").replaceChildren(resultTable(state.lastResult.result, g.owners));
  }
  renderStandings();
  renderHistory();
}

async function confirmRound() {
  $("round-error").textContent = "";
  const unsaved = [...state.drafts.keys()];
  if (unsaved.length) { showRoundError(new Error(`save ${unsaved.join(", ")}'s pile first`)); return; }
  try {
    const data = await api("POST", `${base}/rounds/${state.game.open_round}/confirm`, { context: context() });
    storeCounts(countKey(gameId, state.game.open_round), new Map());    // the round is closed
    state.expected = new Map();
    state.lastResult = data.round;
    state.game = data.game;
    render();
    if (data.learned) toast(`${count(data.learned, "card crop")} learned for deck ${data.game.deck}`);
    else if (data.learn_note) toast(data.learn_note);
    $("last-result").scrollIntoView({ block: "nearest" });
  } catch (err) { showRoundError(err); }
}

function restoreDrafts() {
  if (!state.game.open_round) return;
  state.expected = loadCounts(countKey(gameId, state.game.open_round), state.game.owners);
  const found = loadDrafts(draftKey(gameId, state.game.open_round), state.game.owners,
    (code) => state.deck.byCode.has(code));
  for (const [owner, { draft, crops }] of found) {
    state.drafts.set(owner, draft);
    for (const [code, url] of crops) cropsOf(owner).set(code, url);
    for (const [code, p] of Object.entries(draft.conf || {})) confOf(owner).set(code, p);
    for (const [code, rival] of Object.entries(draft.rivals || {})) rivalsOf(owner).set(code, rival);
  }
  if (found.size) toast(`unsaved ${[...found.keys()].join(", ")} pile kept from before: save it or discard it`);
}

async function main() {
  state.deck = await loadCards();
  state.game = await api("GET", base);
  const done = state.game.rounds.filter((r) => r.confirmed);
  if (done.length) state.lastResult = done[done.length - 1];
  $("confirm-round").addEventListener("click", confirmRound);
  await loadDecks().catch((err) => toast(`decks: ${err.message}`, true));
  $("game-deck").addEventListener("change", setDeck);
  $("learn-deck").addEventListener("change", setLearn);
  $("capture-done").addEventListener("click", () => endCapture(true));
  $("capture-cancel").addEventListener("click", () => endCapture(false));
  $("photo-close").addEventListener("click", () => showSide(null));
  $("zoom-close").addEventListener("click", () => { $("zoom").hidden = true; });
  $("zoom").addEventListener("click", (e) => { if (e.target === $("zoom")) $("zoom").hidden = true; });
  restoreDrafts();
  render();
  document.body.dataset.ready = "1";
}

main().catch((err) => { toast(err.message, true); document.body.dataset.ready = "error"; });
