/*
 * The starter's copy buttons, served as a static file (no inline script:
 * CSP `script-src 'self'` holds). A `<button data-copy="ID" hidden>` copies
 * the text of the element with id ID (the new agent token) with
 * `navigator.clipboard.writeText`, then reads its `data-copied` text
 * ("Copied", in the page's language) and carries `data-copy-state="copied"`.
 * The button ships `hidden` and is shown only here, where the clipboard
 * exists (a secure context): without script, or without a clipboard, there
 * is no button, and the token stays text a person selects and copies.
 * If writing fails, the token is selected for the person to copy.
 */
for (const button of document.querySelectorAll("button[data-copy]")) {
  const source = document.getElementById(button.getAttribute("data-copy") ?? "");
  if (source === null || navigator.clipboard === undefined) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(source.textContent ?? "");
      button.textContent = button.getAttribute("data-copied") ?? button.textContent;
      button.setAttribute("data-copy-state", "copied");
    } catch {
      getSelection()?.selectAllChildren(source);
    }
  });
}
