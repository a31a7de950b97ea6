// Offline use: registers sw.js after the first frame, which keeps the site's files for offline visits.
import { shell } from './page.js';

// [Offline] sw.js keeps this site's files (same origin only) for offline use.
// attnShell.serviceWorker: the registration's promise (null when it failed).
export function registerServiceWorker() {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  if (window.location.protocol !== 'http:' && window.location.protocol !== 'https:') return;
  try {
    shell.serviceWorker = navigator.serviceWorker.register('sw.js').catch((e) => {
      console.warn('attn: offline use unavailable (' + (e && e.message) + ')');
      return null;
    });
  } catch (e) { /* e.g. a sandboxed frame */ }
}
