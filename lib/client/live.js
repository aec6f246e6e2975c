/*
 * latch live pages (lib/client/README.md; lib/manifest/README.md, "Live
 * pages"): each `data-live` element follows its resource's stream or polls
 * (stream.js); a change fetches the page again, swapping a list's rows or
 * copying a record's values into its untouched form. An edited form is never
 * overwritten and keeps the version it was rendered from (notice `changed`).
 */
import { follow } from "./stream.js";

const DEFAULT_POLL_SECONDS = 5;

for (const element of document.querySelectorAll("[data-live]")) watch(element);

/** Follows the changes one live element shows. */
function watch(element) {
  const recordID = element.getAttribute("data-record-id");
  const form = element.querySelector("form.resource-form");
  const merge = element.querySelector("[data-live-merge]");
  if (merge !== null && form !== null) merge.addEventListener("click", () => form.requestSubmit());
  const live = follow({
    stream: element.getAttribute("data-live"),
    seconds: element.getAttribute("data-live-every"),
    fallback: DEFAULT_POLL_SECONDS,
    refresh,
    on: { change, reset: () => void live.refresh() },
    state: (name) => element.setAttribute("data-live-state", name),
  });

  function change(told) {
    if (told === null || typeof told.id !== "string" || (recordID !== null && told.id !== recordID)) return;
    if (recordID !== null && told.change === "deleted") return gone();
    void live.refresh();
  }

  function gone() {
    show(element, "deleted");
    live.stop();
  }

  async function refresh() {
    const res = await fetch(location.href, { credentials: "same-origin", cache: "no-store", headers: { Accept: "text/html" } });
    if (res.status === 404 && recordID !== null) return gone();
    if (!res.ok || live.stopped()) return;
    const page = new DOMParser().parseFromString(await res.text(), "text/html");
    if (recordID === null) swapList(element, page);
    else if (form !== null) applyRecord(element, form, recordID, page);
  }
}

/** Replaces the list's rows (and its next-page link) with the fetched ones, when they differ. */
function swapList(element, page) {
  const fresh = page.querySelector("[data-live-list]");
  if (fresh === null || fresh.innerHTML === element.innerHTML) return;
  // The rows chosen for a bulk change stay chosen (lib/manifest README, "Bulk changes").
  const chosen = new Set(Array.from(element.querySelectorAll("input[data-bulk-select]:checked"), (box) => box.value));
  element.replaceChildren(...Array.from(fresh.childNodes));
  for (const box of element.querySelectorAll("input[data-bulk-select]")) box.checked = chosen.has(box.value);
}

// A list's "select all" checks or clears every row's box, the rows swapped in later too.
document.addEventListener("change", (event) => {
  const all = event.target;
  if (!(all instanceof HTMLInputElement) || !all.hasAttribute("data-bulk-all")) return;
  const table = all.closest("table");
  for (const box of table === null ? [] : table.querySelectorAll("input[data-bulk-select]")) box.checked = all.checked;
});

/** Shows the fetched record in the form, or, when the person has edited it, tells them and keeps their input. */
function applyRecord(element, form, recordID, page) {
  const fresh = page.querySelector("section[data-record-id]");
  const freshForm = fresh === null ? null : fresh.querySelector("form.resource-form");
  if (fresh === null || freshForm === null || fresh.getAttribute("data-record-id") !== recordID) return;
  const version = form.elements.namedItem("version");
  const freshVersion = freshForm.elements.namedItem("version");
  if (version === null || freshVersion === null || version.value === freshVersion.value) return;
  if (isEdited(form)) {
    // Never overwrite what the person typed; the form keeps its base version, so saving merges (Mergeable) or is refused with both (409).
    listCurrent(element, freshForm);
    return show(element, "changed");
  }
  for (const control of freshForm.elements) {
    if (control.name === "") continue;
    const mine = form.elements.namedItem(control.name);
    if (mine !== null) copyValue(mine, control);
  }
  const heading = document.querySelector("h1");
  const freshHeading = page.querySelector("h1");
  if (heading !== null && freshHeading !== null) heading.textContent = freshHeading.textContent;
  show(element, "updated");
}

/** Whether any field differs from the value the page was rendered (or last updated) with. */
function isEdited(form) {
  for (const control of form.elements) {
    if (control.name === "" || control.name === "version" || control.type === "hidden") continue;
    if (control.type === "checkbox") {
      if (control.checked !== control.defaultChecked) return true;
    } else if (control.tagName === "SELECT") {
      const initial = Array.from(control.options).find((o) => o.defaultSelected) ?? control.options[0];
      if (initial !== undefined && control.value !== initial.value) return true;
    } else if ("defaultValue" in control && control.value !== control.defaultValue) return true;
  }
  return false;
}

/** Sets `mine` to `fresh`'s value, as its rendered value too, so it counts as untouched. */
function copyValue(mine, fresh) {
  if (mine.type === "checkbox") {
    mine.defaultChecked = fresh.defaultChecked;
    mine.checked = fresh.defaultChecked;
  } else if (mine.tagName === "SELECT") {
    for (const option of mine.options) option.defaultSelected = option.value === fresh.value;
    mine.value = fresh.value;
  } else if ("defaultValue" in mine) {
    mine.defaultValue = fresh.defaultValue;
    mine.value = fresh.defaultValue;
  }
}

/** Lists the fetched values (label, value) in `dl[data-live-current]`, as text. */
function listCurrent(element, freshForm) {
  const list = element.querySelector("dl[data-live-current]");
  if (list === null) return;
  const items = [];
  for (const field of freshForm.querySelectorAll(".field")) {
    const label = field.querySelector("label");
    const control = field.querySelector("[name]");
    if (label === null || control === null) continue;
    let value = control.value;
    if (control.type === "checkbox") value = control.defaultChecked ? list.dataset.yes : list.dataset.no;
    else if (control.tagName === "SELECT") value = control.selectedIndex >= 0 ? control.options[control.selectedIndex].text : "";
    const term = document.createElement("dt");
    term.textContent = label.textContent;
    const detail = document.createElement("dd");
    detail.setAttribute("data-live-current-for", control.name);
    detail.textContent = value;
    items.push(term, detail);
  }
  list.replaceChildren(...items);
}

/** Shows the notice `name` of a live record page and hides the others. */
function show(element, name) {
  for (const notice of element.querySelectorAll("[data-live-notice]")) notice.hidden = notice.getAttribute("data-live-notice") !== name;
}
