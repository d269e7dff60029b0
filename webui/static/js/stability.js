// One card, one code: each box is followed across frames as a track (matched by overlap,
// after taking out how the whole view moved; a reading of the track's own code first);
// a track joins the pile once seen in NEED of its last WINDOW frames, and its code is the
// one with the most accumulated probability (a rival must overtake, not tie), so a card
// whose reading flickers lands once, and a track that changes its mind changes the pile.
// A weak reading (`sure: false`: below the still thresholds, asked for with weak=1) never
// counts towards NEED; a track seen in WEAK_NEED of its last WEAK_WINDOW frames, weak
// readings included, and read as its code in WEAK_SHARE of its readings, joins unsure
// (the page marks it for one tap to accept).
// A live frame need not run the localiser (issue 51): a Follower says before each frame
// whether it does (every FOLLOW_EVERY-th frame, and after a change of scene) or which
// tracks' outlines the server follows onto it instead (/api/detect?follow=); a followed
// frame that kept fewer than FOLLOW_KEPT of its tracks is a change of scene.
// Mirrors scorer/tracking.py (the reference, tested in Python and against this module).
export const WINDOW = 6;
export const NEED = 4;
export const IOU_MATCH = 0.2;   // least overlap between a track's box and a detection of its code
export const IOU_SAME = 0.25;   // least overlap for a detection of another code (measured: bench/capture_fixes.py)
export const MAX_MISS = 4;
export const UNSURE = 0.9;      // less confidence: marked check (scorer/tracking.py says why)
export const RIVAL = 0.5;       // a runner-up with this share of the winner's votes is close: offered
export const WEAK_WINDOW = 16;  // frames a track with weak readings is judged over
export const WEAK_NEED = 8;     // frames of those it must be seen in (sure or weak) to join unsure:
                                // half (a hand-held camera loses a faint card in a frame of three)
export const WEAK_SHARE = 0.8;  // the least share of its readings its code must hold
export const FOLLOW_EVERY = 3;  // the localiser on every this-many-th live frame; tracks followed between
                                // (chosen on bench/capture_fixes.py --every: see scorer/tracking.py)
export const FOLLOW_KEPT = 0.5; // a followed frame keeping fewer of its tracks: the localiser next
export const FOLLOW_MAX = 60;   // the most outlines one frame follows (the detect API's cap)

export function iou(a, b) {
  const w = Math.min(a[2], b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[3], b[3]) - Math.max(a[1], b[1]);
  if (w <= 0 || h <= 0) return 0;
  const inter = w * h;
  const union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter;
  return union > 0 ? inter / union : 0;
}

export function moved(box, dx, dy) { return [box[0] + dx, box[1] + dy, box[2] + dx, box[3] + dy]; }

function movedQuad(quad, dx, dy) { return quad ? quad.map(([x, y]) => [x + dx, y + dy]) : null; }

// A track's outline as the server follows it: its last quad, else its box's corners.
export function outline(t) {
  if (t.quad) return t.quad.map(([x, y]) => [x, y]);
  const [x0, y0, x1, y1] = t.box;
  return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
}

function centre(box) { return [(box[0] + box[2]) / 2, (box[1] + box[3]) / 2]; }

// How far the view moved since the last frame: the median move from each track to the
// nearest reading of its code, within a card's width plus height (upper median; 0 if none).
export function cameraShift(tracks, readings) {
  const dxs = [], dys = [];
  for (const t of tracks) {
    const [tx, ty] = centre(t.box);
    const reach = (t.box[2] - t.box[0]) + (t.box[3] - t.box[1]);
    let best = null;
    for (const r of readings) {
      if (r.code !== t.code) continue;
      const [rx, ry] = centre(r.box);
      const d = Math.abs(rx - tx) + Math.abs(ry - ty);
      if (d <= reach && (best === null || d < best[0])) best = [d, rx - tx, ry - ty];
    }
    if (best !== null) { dxs.push(best[1]); dys.push(best[2]); }
  }
  if (!dxs.length) return [0, 0];
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return [median(dxs), median(dys)];
}

// Greedy [trackIndex, readingIndex] pairs: a reading of the track's code matches at an
// overlap of `least`, another code at `samePlace`; same-code pairs first, then by
// overlap; ties: earlier track, then earlier reading. Track boxes already moved.
export function match(tracks, readings, least = IOU_MATCH, samePlace = IOU_SAME) {
  const pairs = [];
  tracks.forEach((t, ti) => readings.forEach((r, ri) => {
    const o = iou(t.box, r.box);
    const same = t.code === r.code;
    if (o >= (same ? least : samePlace)) pairs.push([o + (same ? 1 : 0), ti, ri]);
  }));
  pairs.sort((p, q) => (q[0] - p[0]) || (p[1] - q[1]) || (p[2] - q[2]));
  const usedT = new Set(), usedR = new Set(), out = [];
  for (const [, ti, ri] of pairs) {
    if (usedT.has(ti) || usedR.has(ri)) continue;
    usedT.add(ti); usedR.add(ri);
    out.push([ti, ri]);
  }
  return out;
}

// The code with the most votes; the current one keeps ties; else the lowest code.
export function decide(votes, current) {
  let best = current;
  for (const code of [...votes.keys()].sort()) {
    if (!best || votes.get(code) > (votes.get(best) || 0)) best = code;
  }
  return best;
}

class Track {
  constructor(id, reading) {
    this.id = id;
    this.box = reading.box;
    this.votes = new Map([[reading.code, reading.confidence]]);
    this.seen = [true];
    this.misses = 0;
    this.code = reading.code;
    this.count = 1;
    this.joined = -1;
    this.sure = [isSure(reading)];                   // per frame: seen by a sure reading
    this.readings = new Map([[reading.code, 1]]);    // readings of each code
    this.unsure = false;                             // joined on weak readings only
    this.quad = reading.quad || null;                // its last outline (moved with the view)
    this.best = new Map();        // code -> {confidence, crop}: the page's picture of the card
    this.keepCrop(reading);
  }
  get sureHits() { return this.sure.filter(Boolean).length; }
  // Read the same way in half its frames: seen in WEAK_NEED of the last WEAK_WINDOW and
  // its code WEAK_SHARE of its readings or more.
  steady() {
    const recent = this.seen.slice(-WEAK_WINDOW).filter(Boolean).length;
    let total = 0;
    for (const n of this.readings.values()) total += n;
    return recent >= WEAK_NEED && total > 0 && (this.readings.get(this.code) || 0) >= WEAK_SHARE * total;
  }
  get confidence() { return (this.votes.get(this.code) || 0) / Math.max(1, this.count); }
  get crop() { return this.best.get(this.code)?.crop || null; }
  // The runner-up reading when it holds at least RIVAL of the winner's votes (a close
  // second), else "".
  get rival() {
    let best = "";
    for (const code of [...this.votes.keys()].sort()) {
      if (code !== this.code && (!best || this.votes.get(code) > this.votes.get(best))) best = code;
    }
    return best && this.votes.get(best) >= RIVAL * (this.votes.get(this.code) || 0) ? best : "";
  }
  keepCrop(r) {
    const old = this.best.get(r.code);
    if (r.crop && (!old || r.confidence > old.confidence)) this.best.set(r.code, { confidence: r.confidence, crop: r.crop });
  }
}

function isSure(reading) { return reading.sure !== false; }

export class StabilityTracker {
  constructor(window = WINDOW, need = NEED) {
    if (!(need >= 1 && need <= window)) throw new Error("need must be between 1 and window");
    this.window = window; this.need = need;
    this.tracks = [];
    this.frame = 0;
    this.changedAt = 0;
    this.nextId = 0;
    this.joinedCount = 0;
    this.pile = [];
  }

  live() { return this.tracks.filter((t) => t.misses <= MAX_MISS); }

  // Add one frame's detections ({code, confidence, box, crop?, sure?}); returns the pile's codes.
  push(readings) {
    this.frame += 1;
    const live = this.live();
    const [dx, dy] = cameraShift(live, readings);
    for (const t of live) { t.box = moved(t.box, dx, dy); t.quad = movedQuad(t.quad, dx, dy); }
    const matched = match(live, readings);
    const got = new Map(matched.map(([ti, ri]) => [live[ti], readings[ri]]));
    for (const t of live) {
      const r = got.get(t);
      t.seen.push(r !== undefined);
      t.seen = t.seen.slice(-Math.max(this.window, WEAK_WINDOW));
      t.sure.push(r !== undefined && isSure(r));
      t.sure = t.sure.slice(-this.window);
      if (r === undefined) { t.misses += 1; continue; }
      t.misses = 0;
      t.count += 1;
      t.box = r.box;
      t.quad = r.quad || null;
      t.votes.set(r.code, (t.votes.get(r.code) || 0) + r.confidence);
      t.readings.set(r.code, (t.readings.get(r.code) || 0) + 1);
      t.code = decide(t.votes, t.code);
      t.keepCrop(r);
    }
    const taken = new Set(matched.map(([, ri]) => ri));
    readings.forEach((r, ri) => {
      if (!taken.has(ri)) this.tracks.push(new Track(this.nextId++, r));
    });
    for (const t of this.tracks) {
      if (t.unsure && t.sureHits >= this.need) t.unsure = false;   // the still thresholds caught up
      if (t.joined < 0 && t.sureHits >= this.need) t.joined = this.joinedCount++;
      else if (t.joined < 0 && t.steady()) { t.joined = this.joinedCount++; t.unsure = true; }
    }
    this.tracks = this.tracks.filter((t) => t.joined >= 0 || t.misses <= MAX_MISS);
    const pile = this.codes();
    if (pile.join() !== this.pile.join()) { this.pile = pile; this.changedAt = this.frame; }
    return this.pile;
  }

  joined() { return this.tracks.filter((t) => t.joined >= 0).sort((a, b) => a.joined - b.joined); }

  codes() {
    const out = [];
    for (const t of this.joined()) if (!out.includes(t.code)) out.push(t.code);
    return out;
  }

  // The best confidence among the pile's tracks that read `code` (0 if none).
  confidence(code) {
    return Math.max(0, ...this.joined().filter((t) => t.code === code).map((t) => t.confidence));
  }

  // Whether `code` is in the pile on weak readings only (no sure track reads it).
  unsure(code) {
    const ts = this.joined().filter((t) => t.code === code);
    return ts.length > 0 && ts.every((t) => t.unsure);
  }

  // The crop of the surest track that reads `code`, if any.
  crop(code) {
    const ts = this.joined().filter((t) => t.code === code && t.crop).sort((a, b) => b.confidence - a.confidence);
    return ts.length ? ts[0].crop : null;
  }

  // The runner-up reading of the surest track that reads `code` ("" if none).
  rival(code) {
    const ts = this.joined().filter((t) => t.code === code).sort((a, b) => b.confidence - a.confidence);
    return ts.length ? ts[0].rival : "";
  }

  get quietFrames() { return this.frame - this.changedAt; }
}

// Whether a track's last reading was sure (not a weak one).
function lastSure(t) { return !t.sure.length || t.sure[t.sure.length - 1]; }

// Which live frames run the localiser, and what the others follow: plan(tracker) before a
// frame (null: the localiser runs; else the tracks to follow), answered(plan) after its
// readings were pushed.
export class Follower {
  constructor(every = FOLLOW_EVERY, kept = FOLLOW_KEPT) {
    if (!(every >= 1)) throw new Error("every must be at least 1");
    this.every = every; this.kept = kept;
    this.since = 0;          // frames followed since the localiser last ran
    this.changed = true;     // the scene changed (or nothing ran yet): run the localiser
  }

  // The live tracks (a card the localiser missed on its last frame is looked for where it
  // was), or null: every `every`-th frame, after a change of scene, while no track was seen
  // in the last frame (or more than FOLLOW_MAX are live), and while a track read surely in
  // the last frame has not joined the pile (a card still being judged: on the localiser's
  // frames). A track last read weakly is followed (weak at best) until the localiser reads
  // it surely.
  plan(tracker) {
    const tracks = tracker.live();
    const seen = tracks.filter((t) => t.misses === 0);
    if (this.changed || !seen.length || seen.some((t) => t.joined < 0 && lastSure(t))
        || tracks.length > FOLLOW_MAX || this.since + 1 >= this.every) return null;
    return tracks;
  }

  // The planned tracks as the detect API's `follow` lists them.
  static boxes(tracks) {
    return tracks.map((t) => (lastSure(t) ? { quad: outline(t) } : { quad: outline(t), sure: false }));
  }

  answered(plan) {
    if (plan === null) { this.since = 0; this.changed = false; return; }
    this.since += 1;
    const back = plan.filter((t) => t.misses === 0).length;
    this.changed = back < this.kept * plan.filter((t) => t.misses <= 1).length;
  }
}
