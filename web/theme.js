// The page's theme (light or dark): guessed at load as the app will choose it, then the one the app shows.

const lightQuery = window.matchMedia ? window.matchMedia('(prefers-color-scheme: light)') : null;
let prefersLight = !!(lightQuery && lightQuery.matches);

// Whether the system's prefers-color-scheme is light (kept up to date).
export const systemPrefersLight = () => prefersLight;

export function setPageTheme(name) { document.documentElement.classList.toggle('light', name === 'light'); }

// The theme the page shows now.
export const pageTheme = () => (document.documentElement.classList.contains('light') ? 'light' : 'dark');

// [Theme] Until the app says which theme it shows, the page guesses as the app
// will (view.theme in the link, the remembered choice, the system's), so the
// loading screen does not flash the other one.
export function startTheme(link) {
  if (lightQuery && lightQuery.addEventListener) lightQuery.addEventListener('change', (e) => { prefersLight = e.matches; });
  const linked = /(?:^|&)view\.theme=(light|dark)(?:&|$)/.exec(link);
  let remembered = null;
  try { remembered = window.localStorage.getItem('attn.theme'); } catch (e) { /* storage disabled */ }
  setPageTheme(linked ? linked[1] : remembered === 'light' || remembered === 'dark' ? remembered : prefersLight ? 'light' : 'dark');
}
