// The link in the URL hash: read at load, kept as the app publishes it, followed when the reader changes it.

// Longest link handed to the app: link_limits::max_link_bytes (src/core/spec/link_codec.hpp).
// A longer hash is cut to one character more, so the app still says it is too long.
export const MAX_LINK_CHARS = 65536;
function capLink(link) {
  if (link.length <= MAX_LINK_CHARS) return link;
  let cut = MAX_LINK_CHARS + 1;
  const c = link.charCodeAt(cut - 1);
  if (c >= 0xd800 && c <= 0xdbff) cut--;  // never split a surrogate pair
  return link.slice(0, cut);
}
// The raw hash, never percent-decoded here (a malformed %-escape is the app's to report).
export function currentLink() { return capLink(window.location.hash.replace(/^#/, '')); }
// The link the page was loaded with.
export const linkAtLoad = currentLink();

let lastLink = null;  // the last link the app published
// The hash this page last wrote or read. A different one in the address bar
// is a navigation (pasted link, back, forward) whose hashchange has not run
// yet: publishing must not overwrite it, or a late publish of the old
// experiment would land in the entry the reader just went to.
let knownHash = window.location.hash;

// The last link the app published, or null.
export const publishedLink = () => lastLink;

// The app's link after an accepted change, kept in the URL; whether it differs from the last one.
export function publishLink(link) {
  const changed = link !== lastLink;
  lastLink = link;
  try {
    const h = '#' + link;
    if (window.location.hash === knownHash && knownHash !== h) {
      history.replaceState(null, '', h);
      knownHash = window.location.hash;  // as the browser spells it (percent-encoded)
    }
  } catch (e) { /* a sandboxed frame may refuse history changes */ }
  return changed;
}

// [Links] A link pasted into the address bar of an open tab, or back/forward
// between such links, opens that experiment as the app opens any link (an
// undo step; a bad one is named on the app's banner). The app's own updates
// use history.replaceState, which fires no hashchange.
// A link that arrives before the app runs (while it downloads, or while a
// poster waits for Run) is not dropped: the app starts with the address bar's
// link as it is when main() runs (app.js, onRuntimeInitialized), and a waiting
// poster shows the new link instead (or starts the app, when the new link is no
// poster), so the link the page was loaded with never overwrites it.
// `beforeApp(link)`: a link that came before the app runs; `opened()`: after the app opened one.
export function followLinks(beforeApp, opened) {
  window.addEventListener('hashchange', () => {
    knownHash = window.location.hash;
    const link = currentLink();
    if (!window.attn) {
      beforeApp(link);
      return;
    }
    // Nothing to open when the app shows that link already. Compared with what it
    // shows now, not with the last link it published: publishing waits up to
    // 250 ms, and a back within that time would otherwise be taken for the app's
    // own link and then overwritten by the late publish of the one being left.
    let shown = lastLink;
    try { shown = window.attn.ui().link; } catch (e) { /* keep the last published */ }
    if (link === shown) return;
    window.attn.openLink(link === '' ? 'v=1' : link);  // no hash: the default experiment
    opened();
  });
}
