// Piles captured but not saved yet live in this tab's sessionStorage too, so a reload or
// a stray click away does not lose them. The server stays the only record of saved piles.

const PREFIX = "hanafuda:drafts:";
const COUNTS = "hanafuda:counts:";      // how many cards the players said each pile holds

export function draftKey(gameId, round) {
  return `${PREFIX}${gameId}:${round}`;
}

export function countKey(gameId, round) {
  return `${COUNTS}${gameId}:${round}`;
}

// counts: Map owner -> the number typed in the pile's count box.
export function storeCounts(key, counts) {
  try {
    if (counts.size) sessionStorage.setItem(key, JSON.stringify(Object.fromEntries(counts)));
    else sessionStorage.removeItem(key);
  } catch { /* storage off: the counts stay in this page only */ }
}

// -> Map owner -> count, keeping known owners and whole numbers 0..48.
export function loadCounts(key, owners) {
  let raw = {};
  try { raw = JSON.parse(sessionStorage.getItem(key) || "{}") || {}; } catch { raw = {}; }
  return new Map(Object.entries(raw).filter(([owner, n]) =>
    owners.includes(owner) && Number.isInteger(n) && n >= 0 && n <= 48));
}

// drafts: Map owner -> {codes, detected, source, base: [codes of the saved pile it was made on], baseVersion,
//   conf: {code: confidence}, rivals: {code: code}, faint: [codes seen only faintly], crops: {code: data URL}}.
export function storeDrafts(key, drafts) {
  const plain = (withCrops) => Object.fromEntries([...drafts].map(([owner, d]) => [owner, {
    codes: d.codes, detected: d.detected, source: d.source, base: d.base || [], baseVersion: d.baseVersion || 0, conf: d.conf || {},
    rivals: d.rivals || {}, faint: d.faint || [], crops: withCrops ? d.crops || {} : {},
  }]));
  try {
    if (!drafts.size) { sessionStorage.removeItem(key); return; }
    try {
      sessionStorage.setItem(key, JSON.stringify(plain(true)));
    } catch {
      sessionStorage.setItem(key, JSON.stringify(plain(false)));   // over quota: codes only
    }
  } catch { /* storage off: the drafts stay in this page only */ }
}

// -> Map owner -> {draft, crops: Map}, keeping only known owners and card codes.
export function loadDrafts(key, owners, knownCode) {
  let raw = {};
  try { raw = JSON.parse(sessionStorage.getItem(key) || "{}") || {}; } catch { raw = {}; }
  const out = new Map();
  for (const [owner, d] of Object.entries(raw)) {
    if (!owners.includes(owner) || !d || !Array.isArray(d.codes)) continue;
    const codes = [...new Set(d.codes.filter(knownCode))];
    const detected = Array.isArray(d.detected) ? d.detected.filter(knownCode) : [];
    const source = ["camera", "photo", "manual"].includes(d.source) ? d.source : "manual";
    const crops = new Map(Object.entries(d.crops || {}).filter(([code, url]) =>
      codes.includes(code) && typeof url === "string" && url.startsWith("data:image/")));
    const conf = Object.fromEntries(Object.entries(d.conf || {}).filter(([code, p]) =>
      codes.includes(code) && typeof p === "number" && p >= 0 && p <= 1));
    const rivals = Object.fromEntries(Object.entries(d.rivals || {}).filter(([code, rival]) =>
      codes.includes(code) && typeof rival === "string" && knownCode(rival)));
    const faint = Array.isArray(d.faint) ? d.faint.filter((code) => codes.includes(code)) : [];
    // the saved pile the draft was made on (a draft kept before there was one: none)
    const base = Array.isArray(d.base) ? [...new Set(d.base.filter(knownCode))] : null;
    const baseVersion = Number.isInteger(d.baseVersion) && d.baseVersion >= 0 ? d.baseVersion : null;
    out.set(owner, { draft: { codes, detected, source, conf, rivals, faint, base, baseVersion }, crops });
  }
  return out;
}

// Which piles have cards not saved yet in the other tabs of this browser: each tab keeps
// its own drafts (above); this shared note (localStorage) only says how many cards each
// of its unsaved piles holds, so another tab asks before saving over them. A tab's note
// goes when the tab does (`forgetUnsaved` on pagehide; a reload writes it again).
const UNSAVED = "hanafuda:unsaved:";
const STALE_MS = 12 * 3600 * 1000;     // a note left by a tab that died is ignored after

export function unsavedKey(gameId, round) {
  return `${UNSAVED}${gameId}:${round}`;
}

function tabId() {
  try {
    let id = sessionStorage.getItem("hanafuda:tab");
    if (!id) { id = Math.random().toString(36).slice(2); sessionStorage.setItem("hanafuda:tab", id); }
    return id;
  } catch { return "this-tab"; }
}

function readUnsaved(key) {
  try { return JSON.parse(localStorage.getItem(key) || "{}") || {}; } catch { return {}; }
}

function writeUnsaved(key, notes) {
  try {
    if (Object.keys(notes).length) localStorage.setItem(key, JSON.stringify(notes));
    else localStorage.removeItem(key);
  } catch { /* storage off: the other tabs cannot know */ }
}

// counts: Map owner -> cards in this tab's unsaved pile.
export function storeUnsaved(key, counts) {
  const notes = readUnsaved(key);
  const id = tabId();
  const mine = counts.size ? Object.fromEntries(counts) : null;
  if (JSON.stringify(notes[id]?.piles ?? null) === JSON.stringify(mine)) return;   // no news for the others
  if (mine) notes[id] = { piles: mine, at: Date.now() }; else delete notes[id];
  writeUnsaved(key, notes);
}

export function forgetUnsaved(key) {
  const notes = readUnsaved(key);
  delete notes[tabId()];
  writeUnsaved(key, notes);
}

// -> Map owner -> the most cards an unsaved pile of theirs holds in another tab.
export function othersUnsaved(key) {
  const out = new Map();
  for (const [tab, note] of Object.entries(readUnsaved(key))) {
    if (tab === tabId() || !note || !(Date.now() - note.at < STALE_MS)) continue;
    for (const [owner, n] of Object.entries(note.piles || {})) {
      if (Number.isInteger(n)) out.set(owner, Math.max(n, out.get(owner) || 0));
    }
  }
  return out;
}
