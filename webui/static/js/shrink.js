// A photo made small enough to send before it is uploaded: a phone's 6000x4000 JPEG of
// 12 MB is drawn at most PHOTO_SIDE on its long side and sent as a JPEG of about 1 MB.
// The detector reads no more than its useful side anyway (1792 px for the shipped
// model, Detector.useful_side; it decodes a larger image smaller), so nothing it uses
// is lost. The
// browser turns the picture upright by its EXIF orientation as it decodes it, so the
// boxes the server returns are those of the picture as the player sees it.
import { t } from "./i18n.js";

export const PHOTO_SIDE = 1920;        // at least the detector's useful side (1792)
const QUALITY = 0.9;

// "12.0 MB", as a phone shows a photo's size (with `places` decimals).
export function megabytes(bytes, places = 1) {
  return `${(bytes / 1e6).toFixed(places)} MB`;
}

// Two sizes with as many decimals as it takes to read them apart ("8.40 MB" against
// "8.39 MB", not "8.4 MB" twice), as the server's 413 writes them (webui/app/errors.py);
// bytes where even 6 decimals do not.
export function apart(a, b) {
  for (let places = 1; places <= 6; places++) {
    if (megabytes(a, places) !== megabytes(b, places)) return [megabytes(a, places), megabytes(b, places)];
  }
  return [`${a.toLocaleString("en")} bytes`, `${b.toLocaleString("en")} bytes`];
}

// The photo's format as a player knows it ("HEIC", "TIFF"), from its type or its name.
export function formatOf(file) {
  const type = (file.type || "").replace(/^image\//, "");
  const ext = /\.([a-z0-9]+)$/i.exec(file.name || "")?.[1] || "";
  const name = (type && type !== "octet-stream" ? type : ext).toUpperCase();
  return name === "HEIF" ? "HEIC" : name || "unknown";
}

// -> {blob, width, height, note, unread}: the photo to send and a line saying what was
// done. A picture the browser cannot decode (a HEIC on some browsers) goes as it is, its
// format in `unread` (for a refusal to say why it was not shrunk): the server says what
// it thinks of it.
export async function shrinkPhoto(file, maxSide = PHOTO_SIDE) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
  } catch {      // a format browsers open (a JPEG too large to decode) says nothing more
    const unread = formatOf(file);
    return { blob: file, width: null, height: null, note: "",
      unread: /^(JPEG|JPG|PNG|WEBP|BMP|GIF)$/.test(unread) ? "" : unread };
  }
  const { width, height } = bitmap;
  const scale = Math.min(1, maxSide / Math.max(width, height));
  if (scale === 1 && file.type === "image/jpeg") {
    bitmap.close();
    return { blob: file, width, height, note: "" };
  }
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", QUALITY));
  if (!blob) return { blob: file, width, height, note: "" };
  return { blob, width: canvas.width, height: canvas.height,
    note: t("photo {w}×{h} ({size}) sent as {sw}×{sh} ({sent})", { w: width, h: height, size: megabytes(file.size),
      sw: canvas.width, sh: canvas.height, sent: megabytes(blob.size) }) };
}

// The message for a photo the server refused as too large (its JSON 413): the size of
// what was sent (`sent`, the file or its shrunk copy) against the limit, read apart; for
// a photo this browser could not open (`unread`: its format), that this is why it was
// not made smaller (issue 66).
export function tooLargeText(sent, err, unread = "") {
  const limit = err.data && err.data.limit_bytes;
  const why = unread ? ` — ${t("this browser cannot open a {format} photo, so it was sent as it is, not made smaller: " +
    "save it as a JPEG (an iPhone: Settings › Camera › Formats › Most Compatible) and upload that", { format: unread })}` : "";
  if (!limit) return err.message + why;
  const [size, cap] = apart(err.data.size_bytes || sent.size, limit);
  return t("this photo is {size}; the limit is {cap}", { size, cap }) + why;
}
