// The page shell's entry module (index.html loads it): wires the modules below, then starts the app or a poster.
//
// The page shell checks the browser can run the playground, downloads and
// compiles the WebAssembly with a progress bar, passes the URL hash to the app
// as its link (experiment + view.* keys), and exposes window.attn, the JS hook
// tests and embedders use. It requests nothing from any other host; the Chinese
// font (assets/) only when the app asks for it. After the first frame it
// registers sw.js, which keeps the site's files for offline use.
//
// Its modules, bottom to top: each imports only modules above it in this list,
// so none imports another in a cycle (tests/web_modules_test.py checks it).
//   lesson-names.js  the app's names a poster card shows before the app exists (the build writes it)
//   page.js          window.attnShell (its calls are listed there), the loading screen, the fatal box, el()
//   links.js         the link in the URL hash: read at load, kept as the app publishes, followed when changed
//   idb.js           one IndexedDB object store of this site
//   theme.js         the page's theme, guessed at load, then the app's
//   embed.js         in a host page's frame or not, and the embed protocol with that host
//   sleep.js         the sleeping app, and what wakes it
//   touch.js         touches on the canvas, to the app
//   textview.js      the text view (the app's text mirror as HTML) and the page's own keys
//   services.js      the clipboard, downloads, localStorage, new tabs, fonts fetched when needed
//   offline.js       registers sw.js (the service worker: offline use)
//   models.js        the model store (IndexedDB) and the models a link names
//   folders.js       a model's files picked, dropped or at a link's folder address, read and opened
//   runs.js          the run store (IndexedDB): trained runs, one page training a recipe at a time
//   posters.js       posters (view.poster=1): click-to-run embeds
//   app.js           the browser checks, the wasm build downloaded and started, window.attn
//   shell.js         this entry
// Besides them sandbox.js, a classic script index.html runs first, says what a
// host must allow when its frame's sandbox keeps these modules from loading.
import { shell, canvas, loaded } from './page.js';
import { linkAtLoad, publishLink, followLinks } from './links.js';
import { startTheme, systemPrefersLight, setPageTheme } from './theme.js';
import { framed, embedded, sandboxed, notifyHost, contentHeight, trainProgress, startEmbed } from './embed.js';
import { listenForWaking, sleep } from './sleep.js';
import { forwardTouches } from './touch.js';
import { textView, showPendingTextView, toggleTextView, focusLabel, listenForTextView } from './textview.js';
import { copyText, download, storageGet, storageSet, openUrl, fetchFont } from './services.js';
import { registerServiceWorker } from './offline.js';
import { models, openModelFiles, readModelFiles, keptModel } from './models.js';
import { openModelFolder, fetchFolder, listenForModelFiles } from './folders.js';
import { runHooks } from './runs.js';
import { lessonNames } from './lesson-names.js';
import { posterPictures, waitingForRun, linkWhileWaiting, showPosterOrRun } from './posters.js';
import { startApp, hostSetExperiment } from './app.js';

// Once the first frame is drawn.
function firstFrame() {
  shell.firstFrameSeen = true;
  loaded();
  showPendingTextView();
  if (!framed) canvas().focus();  // an embed must not scroll its host
  notifyHost({ type: 'attn:ready' });
  registerServiceWorker();
  models.start();
}

// Called by the app after each accepted change: keeps the link in the URL and tells the host.
function publishExperiment(link) {
  link = String(link);
  if (publishLink(link)) notifyHost({ type: 'attn:changed', link });
}

// window.attnShell's calls (getters kept as getters).
const calls = {
  firstFrame,
  publishExperiment,
  sleep,
  textView,
  toggleTextView,
  focusLabel,
  get prefersLight() { return systemPrefersLight(); },
  pageTheme(name) { setPageTheme(String(name)); },
  contentHeight,
  embedded,
  trainProgress,
  copyText,
  download,
  storageGet,
  storageSet,
  openUrl,
  fetchFont,
  openModelFiles,
  openModelFolder,
  readModelFiles,
  keptModel,
  models,
  posterNames: lessonNames,  // what a poster's card says: tests compare it with the app's names
  posterPictures,
};
for (const part of [calls, runHooks]) Object.defineProperties(shell, Object.getOwnPropertyDescriptors(part));
window.attnShell = shell;  // whole: an init script may wrap its calls as it is set

startTheme(linkAtLoad);
listenForWaking();  // first: before any listener can stop an event
listenForTextView();
forwardTouches();
models.fetchFolder = fetchFolder;
listenForModelFiles(readModelFiles);
startEmbed({ posterWaiting: waitingForRun, setExperiment: hostSetExperiment, followModel: () => models.follow() });
if (!sandboxed) {  // else sandbox.js said what the host must allow
  followLinks((link) => linkWhileWaiting(link, startApp), () => models.follow());
  showPosterOrRun(startApp);
}
