// A classic script run before the modules: in a frame sandboxed too tightly, says what the host must allow.
//
// Such a frame has an opaque origin ('null'): it cannot fetch its own files or
// keep settings, and its module scripts (shell.js and the rest), fetched with
// CORS from an origin that is not theirs, do not load unless the host allows any
// origin; a classic script still runs. embed.js (`sandboxed`, the same test)
// then starts nothing. The box is page.js's fatal box (theme.js guesses the theme so).
'use strict';
(function () {
  let framed = true;
  try { framed = window.self !== window.top; } catch (e) { /* a cross-origin parent: framed */ }
  if (!framed || window.origin !== 'null' || !/^https?:$/.test(window.location.protocol)) return;
  // As the modules would show it: an embed, in the link's theme or else the system's
  // (an opaque origin keeps no remembered choice).
  const linked = /(?:^|&)view\.theme=(light|dark)(?:&|$)/.exec(window.location.hash.replace(/^#/, ''));
  const light = linked ? linked[1] === 'light' : !!(window.matchMedia && window.matchMedia('(prefers-color-scheme: light)').matches);
  document.documentElement.classList.add('embedded');
  document.documentElement.classList.toggle('light', light);
  const box = document.createElement('div');
  box.className = 'box';
  const lines = [
    'The page embedding the playground put it in an <iframe sandbox> without "allow-same-origin", so it cannot load its own files.',
    'The host page must allow both: <iframe sandbox="allow-scripts allow-same-origin" src="…">.',
  ];
  const h = document.createElement('h1');
  h.textContent = 'This embed is sandboxed too tightly';
  box.appendChild(h);
  for (const line of lines) {
    const p = document.createElement('p');
    p.textContent = line;
    box.appendChild(p);
  }
  const fatal = document.getElementById('fatal');
  fatal.replaceChildren(box);
  fatal.hidden = false;
  document.getElementById('loading').classList.add('done');
})();
