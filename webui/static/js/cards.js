// The 48 cards (the deck) from /api/cards, and the card picker (filterable by month, several
// cards at once when adding, with a crop of the card where this session has one).
import { api, count, el } from "./api.js";

export async function loadCards() {
  const data = await api("GET", "/api/cards");
  const byCode = new Map(data.cards.map((c) => [c.code, c]));
  const months = new Map(data.months.map((m) => [m.number, m]));
  return { cards: data.cards, months, byCode, hwatu: data.hwatu || null };
}

export function cardLabel(deck, code) {
  const c = deck.byCode.get(code);
  return c ? c.name : code;
}

export function colourChip(deck, code) {
  const c = deck.byCode.get(code);
  const chip = el("span", { class: "month-chip", title: c ? deck.months.get(c.month).english : "" });
  if (c) chip.style.setProperty("--month", deck.months.get(c.month).colour);
  return chip;
}

// Opens the picker dialog. Single: resolves with a code or null. With `multi`, clicks
// toggle cards and the Add button resolves with the chosen codes ([] if cancelled).
// `flags` maps code -> note; `pictures` maps code -> an image URL (a crop seen this session).
export function pickCard(deck, title, flags = new Map(), { multi = false, pictures = new Map() } = {}) {
  const dialog = document.getElementById("picker");
  const grid = document.getElementById("picker-grid");
  const monthSel = document.getElementById("picker-month");
  const addBtn = document.getElementById("picker-add");
  const chosenText = document.getElementById("picker-chosen");
  document.getElementById("picker-title").textContent = title;
  if (monthSel.options.length <= 1) {
    for (const [number, month] of deck.months) {
      monthSel.append(el("option", { value: number, text: `${String(number).padStart(2, "0")} ${month.english}` }));
    }
  }
  monthSel.value = "";
  addBtn.hidden = !multi;
  grid.replaceChildren();
  const chosen = [];
  const showChosen = () => {
    addBtn.textContent = chosen.length ? `Add ${count(chosen.length, "card")}` : "Add";
    addBtn.disabled = !chosen.length;
    chosenText.textContent = chosen.join(" ");
  };
  showChosen();
  const rows = [];
  for (const [number, month] of deck.months) {
    const row = el("div", { class: "picker-row", dataset: { month: number } },
      el("span", { class: "picker-month", text: `${String(number).padStart(2, "0")} ${month.english} ${month.japanese}` }));
    row.style.setProperty("--month", month.colour);
    for (const c of deck.cards.filter((x) => x.month === number)) {
      const note = flags.get(c.code);
      const pic = pictures.get(c.code);
      const btn = el("button", {
        type: "button", class: "pick" + (note ? " flagged" : ""), title: note || c.name,
        dataset: { code: c.code }, "aria-pressed": multi ? "false" : null,
        onclick: () => {
          if (!multi) { chosen.push(c.code); dialog.close("picked"); return; }
          const at = chosen.indexOf(c.code);
          if (at >= 0) chosen.splice(at, 1); else chosen.push(c.code);
          btn.setAttribute("aria-pressed", String(at < 0));
          showChosen();
        },
      }, pic ? el("img", { class: "pick-pic", src: pic, alt: "" }) : null,
      el("b", { text: c.code }), " ", c.name.split(": ")[1], note ? el("small", { text: ` (${note})` }) : null);
      row.append(btn);
    }
    rows.push(row);
    grid.append(row);
  }
  monthSel.onchange = () => {
    for (const row of rows) row.hidden = !!monthSel.value && row.dataset.month !== monthSel.value;
  };
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => {
      if (multi) resolve(dialog.returnValue === "add" ? [...chosen] : []);
      else resolve(dialog.returnValue === "picked" ? chosen[0] : null);
    }, { once: true });
    dialog.returnValue = "";
    dialog.showModal();
  });
}
