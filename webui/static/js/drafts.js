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
//   conf: {code: confidence}, rivals: {code: code}, crops: {code: data URL}}.
export function storeDrafts(key, drafts) {
  const plain = (withCrops) => Object.fromEntries([...drafts].map(([owner, d]) => [owner, {
    codes: d.codes, detected: d.detected, source: d.source, base: d.base || [], baseVersion: d.baseVersion || 0, conf: d.conf || {},
    rivals: d.rivals || {}, crops: withCrops ? d.crops || {} : {},
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
    // the saved pile the draft was made on (a draft kept before there was one: none)
    const base = Array.isArray(d.base) ? [...new Set(d.base.filter(knownCode))] : null;
    const baseVersion = Number.isInteger(d.baseVersion) && d.baseVersion >= 0 ? d.baseVersion : null;
    out.set(owner, { draft: { codes, detected, source, conf, rivals, base, baseVersion }, crops });
  }
  return out;
}
