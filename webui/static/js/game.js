// One game's page: the open round's piles (capture, photo, hand fixes), confirming the
// round, its result, the standings with a chart, and the rounds played.
import { api, el, toast } from "./api.js";
import { LiveCapture, detectPhoto } from "./camera.js";
import { runningChart } from "./chart.js";
import { cardLabel, colourChip, loadDeck, pickCard } from "./deck.js";
import { draftKey, loadDrafts, storeDrafts } from "./drafts.js";

const root = document.getElementById("game");
const gameId = Number(root.dataset.gameId);
const base = `/api/games/${gameId}`;
const $ = (id) => document.getElementById(id);

const state = {
  deck: null,
  game: null,
  drafts: new Map(),      // owner -> {codes, detected, source}: captured, not saved yet
  crops: new Map(),       // owner -> Map(code -> data URL), this session only
  capturing: null,        // owner being captured from the camera
  lastResult: null,
};

function cropsOf(owner) {
  if (!state.crops.has(owner)) state.crops.set(owner, new Map());
  return state.crops.get(owner);
}

function openRound() {
  const g = state.game;
  if (!g.open_round) return null;
  return g.rounds.find((r) => r.number === g.open_round) || { number: g.open_round, piles: {}, dealer: g.dealer };
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
    if (action === "remove") codes.splice(codes.indexOf(oldCode), 1);
    else if (action === "add") { if (!codes.includes(newCode)) codes.push(newCode); }
    else if (!codes.includes(newCode)) codes[codes.indexOf(oldCode)] = newCode;
    render();
    return;
  }
  try {
    const data = await api("POST", `${base}/rounds/${state.game.open_round}/corrections`,
      { owner, action, old_code: oldCode, new_code: newCode });
    state.game = data.game;
    render();
    toast("correction saved");
  } catch (err) { showRoundError(err); }
}

async function fixCard(owner, code) {
  const pick = await pickCard(state.deck, `Replace ${code} ${cardLabel(state.deck, code)} with…`, usedFlags(owner));
  if (!pick || pick === code) return;
  const crop = cropsOf(owner).get(code);
  if (crop) cropsOf(owner).set(pick, crop);
  await correction(owner, "replace", code, pick);
}

async function addCard(owner) {
  const pick = await pickCard(state.deck, `Add a card to ${owner}'s pile`, usedFlags(owner));
  if (pick) await correction(owner, "add", null, pick);
}

async function savePile(owner) {
  const draft = state.drafts.get(owner) || { codes: shownCodes(owner), detected: [], source: "manual" };
  try {
    const data = await api("PUT", `${base}/rounds/${state.game.open_round}/piles`,
      { owner, codes: draft.codes, detected: draft.detected, source: draft.source,
        crops: Object.fromEntries([...cropsOf(owner)].filter(([code]) => draft.codes.includes(code))) });
    state.drafts.delete(owner);
    state.game = data.game;
    render();
    toast(`${owner}'s pile saved`);
  } catch (err) { showRoundError(err); }
}

function showRoundError(err) {
  $("round-error").textContent = err.message;
  toast(err.message, true);
}

// ------------------------------------------------------------------ capture
let live = null;

function liveCapture() {
  if (!live) {
    live = new LiveCapture({
      video: $("video"), overlay: $("overlay"), select: $("camera-select"), status: $("camera-status"),
      labelOf: (code) => cardLabel(state.deck, code).split(": ")[1] || code,
      onStable: (code, crop) => {
        const owner = state.capturing;
        const draft = state.drafts.get(owner);
        if (!draft || draft.codes.includes(code)) return;
        draft.codes.push(code);
        draft.detected.push(code);
        if (crop) cropsOf(owner).set(code, crop);
        renderLive();
        renderPiles();
      },
    });
  }
  return live;
}

async function startCapture(owner) {
  if (state.capturing) endCapture(true);
  state.capturing = owner;
  state.drafts.set(owner, { codes: [], detected: [], source: "camera" });
  $("capture-owner").textContent = owner;
  $("camera-panel").hidden = false;
  $("camera-status").textContent = "starting the camera…";
  renderLive();
  render();
  $("camera-panel").scrollIntoView({ block: "nearest" });
  const cam = liveCapture();
  try {
    if (!cam.stream) await cam.start($("camera-select").value || null);
    cam.begin();
  } catch (err) {
    $("camera-status").textContent = `camera unavailable: ${err.message}`;
  }
}

function endCapture(keep) {
  const owner = state.capturing;
  if (live) { live.end(); live.stopStream(); }
  state.capturing = null;
  $("camera-panel").hidden = true;
  if (!keep && owner) state.drafts.delete(owner);
  render();
}

function renderLive() {
  const draft = state.drafts.get(state.capturing);
  $("live-cards").replaceChildren(...(draft ? draft.codes : []).map((code) =>
    el("span", { class: "chip", dataset: { code } }, colourChip(state.deck, code), ` ${code} ${cardLabel(state.deck, code)}`)));
}

async function photo(owner) {
  const input = $("photo-input");
  input.value = "";
  input.onchange = async () => {
    const file = input.files && input.files[0];
    if (!file) return;
    try {
      const { result, crops } = await detectPhoto(file);
      const codes = [...new Set(result.cards.map((c) => c.code))];
      state.drafts.set(owner, { codes: [...codes], detected: [...codes], source: "photo" });
      for (const [code, url] of crops) cropsOf(owner).set(code, url);
      render();
      toast(`${codes.length} cards found in the photo` +
        (result.hints?.length ? `: ${result.hints[0]}` : ""));
    } catch (err) { showRoundError(err); }
  };
  input.click();
}

// ------------------------------------------------------------------ rendering
function cardItem(owner, code, editable) {
  const other = otherOwnerOf(owner, code);
  const rnd = openRound();
  const saved = rnd && rnd.piles[owner] && rnd.piles[owner].crops;
  const crop = (state.drafts.has(owner) ? cropsOf(owner).get(code) : null) ||
    (saved && saved[code]) || cropsOf(owner).get(code);
  return el("li", { class: "card-item" + (other ? " conflict" : ""), dataset: { code } },
    crop ? el("img", { class: "crop", src: crop, alt: `${code} as seen` }) : el("span", { class: "crop none", text: "—" }),
    colourChip(state.deck, code),
    el("span", { class: "code", text: code }),
    el("span", { class: "name", text: cardLabel(state.deck, code) }),
    other ? el("span", { class: "flag", text: `also in ${other}'s pile` }) : null,
    editable ? el("span", { class: "actions" },
      el("button", { type: "button", class: "fix", onclick: () => fixCard(owner, code) }, "Fix"),
      el("button", { type: "button", class: "remove", onclick: () => correction(owner, "remove", code, null) }, "Remove")) : null);
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
    const status = draft ? (state.capturing === owner ? "capturing…" : "not saved yet")
      : saved ? `saved (${saved.source})` : "no pile yet";
    return el("article", { class: "pile" + (draft ? " draft" : saved ? " saved" : ""), dataset: { owner } },
      el("header", {}, el("h3", { text: owner }), el("span", { class: "status", text: `${codes.length} cards · ${status}` })),
      el("ul", { class: "cards" }, codes.map((code) => cardItem(owner, code, true))),
      el("div", { class: "pile-actions" },
        el("button", { type: "button", class: "capture", onclick: () => startCapture(owner) }, "Capture from camera"),
        el("button", { type: "button", class: "photo", onclick: () => photo(owner) }, "Upload photo"),
        el("button", { type: "button", class: "add", onclick: () => addCard(owner) }, "Add card"),
        (draft || !saved) ? el("button", { type: "button", class: "save-pile primary", disabled: state.capturing === owner,
          onclick: () => savePile(owner) }, codes.length ? "Save pile" : "Save empty pile") : null,
        draft && state.capturing !== owner ? el("button", { type: "button", class: "discard",
          onclick: () => { state.drafts.delete(owner); render(); } }, saved ? "Discard changes" : "Discard") : null));
  }));
}

function renderContext() {
  const g = state.game;
  const box = $("round-context");
  box.replaceChildren();
  if (g.ruleset.game === "sakura") {
    // RULES 1.6: the lightning (gaji) user takes the leftovers of the month it captured.
    const months = [...state.deck.months.values()];
    box.append(el("details", { class: "sakura-extra" },
      el("summary", { text: "Lightning (gaji) and leftover field cards (optional)" }),
      el("label", {}, "The lightning took a card of ", el("select", { id: "gaji-month" },
        el("option", { value: "", text: "— (not played from hand)" }),
        months.map((m) => el("option", { value: m.number, text: `${m.number} ${m.english}` })))),
      el("label", {}, " Cards left on the field ", el("input", { id: "leftovers", type: "text",
        maxlength: 200, placeholder: "e.g. 03-3 07-4" }))));
    return;
  }
  if (g.ruleset.game !== "koikoi") return;
  const stopped = el("select", { id: "stopped-by" }, el("option", { value: "", text: "nobody (exhaustive draw)" }),
    g.owners.map((o) => el("option", { value: o, text: o })));
  box.append(el("label", {}, "Who stopped? ", stopped));
  for (const p of g.players) {
    box.append(el("label", {}, ` Koi-koi calls by ${p} `,
      el("input", { type: "number", min: 0, max: 20, value: 0, class: "koikoi-calls", dataset: { player: p } })));
  }
}

function context() {
  if (state.game.ruleset.game === "sakura") {
    const gaji = $("gaji-month") ? Number($("gaji-month").value) : 0;
    const leftovers = $("leftovers") ? $("leftovers").value.split(/[\s,]+/).filter(Boolean) : [];
    return { ...(gaji ? { gaji_month: gaji } : {}), ...(leftovers.length ? { leftovers } : {}) };
  }
  if (state.game.ruleset.game !== "koikoi") return {};
  const calls = {};
  for (const input of document.querySelectorAll(".koikoi-calls")) calls[input.dataset.player] = Number(input.value || 0);
  return { stopped_by: $("stopped-by").value || null, koikoi_calls: calls };
}

function resultTable(result, owners) {
  const rows = owners.map((owner) => {
    const r = result.results[owner] || {};
    return el("tr", { dataset: { owner } },
      el("th", { text: owner + (result.winner === owner ? " ★" : "") }),
      el("td", { class: "num card-points", text: r.card_points ?? "" }),
      el("td", { class: "yaku" }, (r.yaku || []).length ? (r.yaku || []).map((y) =>
        el("div", { class: "yaku-hit" }, el("b", { text: `${y.label} ${y.points}` }), ` (${y.cards.join(" ")})`)) : "—"),
      el("td", { class: "num penalty", text: r.penalty ? `−${r.penalty}` : "0" }),
      el("td", { class: "num score", text: r.score ?? "" }));
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
      el("th", { text: o + (s.winner === o && s.finished ? " 🏆" : "") }),
      el("td", { class: "num total", text: totals[o] ?? 0 }),
      victories ? el("td", { class: "num", text: victories[o] ?? 0 }) : null))));
  $("chart").replaceChildren(...((s.running || []).length ? [runningChart(owners, s.running, g.rounds_planned)] : []));
  const banner = $("winner-banner");
  banner.hidden = !s.finished;
  if (s.finished) banner.textContent = s.winner ? `Game over — ${s.winner} wins` : "Game over — a tie";
}

function renderHistory() {
  const g = state.game;
  const done = g.rounds.filter((r) => r.confirmed);
  $("history").replaceChildren(...(done.length ? done.slice().reverse().map((r) =>
    el("details", { class: "round", dataset: { round: r.number } },
      el("summary", { text: `Round ${r.number} — dealer ${r.dealer} — winner ${r.result.winner || "nobody"}` }),
      resultTable(r.result, g.owners))) : [el("p", { class: "muted", text: "No round confirmed yet." })]));
}

function render() {
  const g = state.game;
  $("game-title").textContent = `Game ${g.id}: ${g.players.join(", ")}`;
  $("game-info").textContent = `${g.ruleset.name} — ${g.ruleset.description}` +
    (g.teams ? ` · teams ${g.owners.join(" vs ")}` : "") + ` · ${g.rounds_planned} rounds`;
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
    state.lastResult = data.round;
    state.game = data.game;
    render();
    $("last-result").scrollIntoView({ block: "nearest" });
  } catch (err) { showRoundError(err); }
}

function restoreDrafts() {
  if (!state.game.open_round) return;
  const found = loadDrafts(draftKey(gameId, state.game.open_round), state.game.owners,
    (code) => state.deck.byCode.has(code));
  for (const [owner, { draft, crops }] of found) {
    state.drafts.set(owner, draft);
    for (const [code, url] of crops) cropsOf(owner).set(code, url);
  }
  if (found.size) toast(`unsaved ${[...found.keys()].join(", ")} pile kept from before: save it or discard it`);
}

async function main() {
  state.deck = await loadDeck();
  state.game = await api("GET", base);
  const done = state.game.rounds.filter((r) => r.confirmed);
  if (done.length) state.lastResult = done[done.length - 1];
  $("confirm-round").addEventListener("click", confirmRound);
  $("capture-done").addEventListener("click", () => endCapture(true));
  $("capture-cancel").addEventListener("click", () => endCapture(false));
  restoreDrafts();
  render();
  document.body.dataset.ready = "1";
}

main().catch((err) => { toast(err.message, true); document.body.dataset.ready = "error"; });
