// A round-form field of card codes that can be read from a photo (Hachi-Hachi's table
// cards at the deal, a player's dealt hand): the photo goes through the same detector as
// a pile's, and the codes it finds fill the field for the player to check.
import { t } from "./i18n.js";
import { count, detect, el, toast } from "./api.js";
import { shrinkPhoto, tooLargeText } from "./shrink.js";

export function photoField(input, what) {
  const note = el("span", { class: "photo-note muted small", role: "status" });
  const file = el("input", { type: "file", accept: "image/*", hidden: true, class: "context-photo-input" });
  file.addEventListener("change", async () => {
    const chosen = file.files && file.files[0];
    if (!chosen) return;
    note.textContent = t("reading…");
    let shrunk = { blob: chosen };
    try {
      shrunk = await shrinkPhoto(chosen);
      const result = await detect(shrunk.blob);
      const codes = [...new Set(result.cards.map((c) => c.code))].sort();
      input.value = codes.join(" ");
      input.dispatchEvent(new Event("input", { bubbles: true }));
      note.textContent = t("{cards} read from the photo: check them", { cards: count(codes.length, "card") });
      toast(`${what}: ${t("{cards} read from the photo", { cards: count(codes.length, "card") })}`);
    } catch (err) {
      note.textContent = `${t("photo not read:")} ${err.status === 413 ? tooLargeText(shrunk.blob, err, shrunk.unread) : err.message}`;
    }
    file.value = "";
  });
  const button = el("button", { type: "button", class: "context-photo", title: t("read {what} from a photo of the cards", { what }) },
    t("Read from photo"));
  button.addEventListener("click", () => file.click());
  return el("span", { class: "photo-field" }, input, button, file, note);
}
