// Posters (view.poster=1): click-to-run embeds that load nothing of the app until Run is pressed.
import { shell, el } from './page.js';
import { linkAtLoad } from './links.js';
import { contentHeight, lastTraining } from './embed.js';
import { pageTheme } from './theme.js';
import { wake } from './sleep.js';
import { lessonNames as posterNames } from './lesson-names.js';

// [Poster] view.poster=1: a click-to-run embed. Nothing of the app (attn.js,
// attn.wasm) is fetched until the reader presses Run. Until then the page shows
// the picture this browser took on an earlier Run of the same link (kept in
// localStorage, at most POSTER_KEEP links, the oldest dropped first), or a card
// naming the lesson, the sentence and the stage. The app does not exist yet, so
// the names come from lesson-names.js, which the build writes from the app's own
// tables (src/platform/page_names.cpp). Pictures are never built ahead of time: the lesson views need a GL
// context that a build machine may lack; a host's first visit takes one.
const POSTER_KEEP = 10;
const POSTER_INDEX = 'attn.posters';  // the links with a picture, oldest first
const posterKey = (link) => 'attn.poster:' + link;
const isPosterLink = (link) => /(?:^|&)view\.poster=1(?:&|$)/.test(link);
// The poster's link: the one shown while it waits, then the one the app started
// with (when that is a poster); null for a page that is no poster.
let posterLink = isPosterLink(linkAtLoad) ? linkAtLoad : null;
// How the app words posterLink, as it showed it right after starting (null: the
// link had problems, so the app shows another experiment). The picture goes under
// posterLink only while the app still shows exactly that.
let posterShown = null;
let posterWaiting = false;
let posterResize = null;  // the waiting poster's ResizeObserver

// Whether a poster waits for Run (the app is not loaded).
export const waitingForRun = () => posterWaiting;

// What the card says, from the link's own keys (a compressed experiment keeps its
// sentence inside z=, so the card then names the lesson and stage only).
// A problem in the keys the card reads (a key given twice, a lesson or stage out
// of range) is the link's error, in the app's words (src/core/play/link.cpp,
// src/core/spec/experiment.cpp): the card shows it instead of a lesson the link does not open.
function posterFacts(link) {
  const keys = {};
  const problems = [];
  const label = (key) => /^[a-z0-9_.]{1,40}$/.test(key) && !key.startsWith('view.') ? key : "'" + key.slice(0, 40) + (key.length > 40 ? "...'" : "'");
  for (const pair of link.split('&')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const key = pair.slice(0, eq);
    if (key in keys) {
      const said = label(key) + ' is given twice';
      if (!problems.includes(said)) problems.push(said);
    } else keys[key] = pair.slice(eq + 1);
  }
  // A view key's number as the app reads it (parse_small_int: at most 6 characters,
  // -1 to `most`: the lessons' count, the last stage's index), or null after saying why not.
  const whole = (key, most) => {
    const v = keys[key];
    if (v === undefined) return null;
    if (v.length <= 6 && /^-?[0-9]+$/.test(v) && Number(v) >= -1 && Number(v) <= most) return Number(v);
    problems.push(key + ' must be a whole number from -1 to ' + most + ', not ' + "'" + v.slice(0, 40) + (v.length > 40 ? "...'" : "'"));
    return null;
  };
  const lessonNumber = whole('view.lesson', posterNames.lessons.length);
  const stageNumber = whole('view.stage', posterNames.stages.length - 1);
  if (lessonNumber === 0) problems.push('view.lesson counts from 1 (L1), not 0');
  const lesson = lessonNumber >= 1 && lessonNumber <= posterNames.lessons.length ? posterNames.lessons[lessonNumber - 1] : null;
  let text = lesson ? lesson.text : keys.z === undefined ? posterNames.defaultText : null;
  if (keys.text !== undefined) {
    try { text = decodeURIComponent(keys.text); } catch (e) { text = null; }
  }
  let stage = lesson ? lesson.stage : posterNames.defaultStage;
  if (stageNumber !== null && stageNumber >= 0) stage = stageNumber;
  return { lesson, text, stage, problems };
}

function loadPosterPicture(link) {
  try {
    const p = JSON.parse(window.localStorage.getItem(posterKey(link)));
    if (p && typeof p.data === 'string' && p.data.startsWith('data:image/jpeg;base64,') && p.width > 0 && p.height > 0) return p;
  } catch (e) { /* none, or storage disabled */ }
  return null;
}
function savePosterPicture(link, picture) {
  try {
    let index = [];
    try { index = JSON.parse(window.localStorage.getItem(POSTER_INDEX)) || []; } catch (e) { index = []; }
    if (!Array.isArray(index)) index = [];
    index = index.filter((l) => l !== link);
    index.push(link);
    while (index.length > POSTER_KEEP) window.localStorage.removeItem(posterKey(index.shift()));
    for (;;) {
      try {
        window.localStorage.setItem(posterKey(link), JSON.stringify(picture));
        break;
      } catch (e) {  // full: drop the oldest other picture and try again
        if (index.length <= 1) return false;
        window.localStorage.removeItem(posterKey(index.shift()));
      }
    }
    window.localStorage.setItem(POSTER_INDEX, JSON.stringify(index));
    return true;
  } catch (e) { return false; }
}

// After Run: once the app has drawn a few frames (and any font it asked for
// arrived), one JPEG of the canvas, at most 960 px wide, for the next visit. A
// recipe's model is pictured trained: the frames are counted from the step its
// link asks for (attn:train's done), or from where a diverged run stopped
// (stopped: it will not go further), and the picture says which step it shows.
let posterFramesDrawn = 0;
let posterCaptured = false;
function capturePoster(canvas) {
  if (posterCaptured || !shell.firstFrameSeen) return;
  const training = lastTraining();
  const reading = window.Module && window.Module._attn_hook_reading && window.Module._attn_hook_reading();
  if ((training && !training.done && !training.stopped) || reading) {  // L11/L12: pictured once the circuit is read
    posterFramesDrawn = 0;
    return;
  }
  if (++posterFramesDrawn < 10 || Object.values(shell.fonts).includes('loading')) return;
  // The canvas holds a picture only in the animation frame that drew it: the app draws a
  // frame only when it changed, so ask for one and take the picture after it.
  if (window.Module._attn_hook_frame_drawn && !window.Module._attn_hook_frame_drawn()) {
    window.Module._attn_hook_redraw();
    wake();
    return;
  }
  posterCaptured = true;
  try {
    const width = canvas.clientWidth, height = canvas.clientHeight;
    if (!width || !height) return;
    const k = Math.min(1, 960 / width);
    const small = document.createElement('canvas');
    small.width = Math.round(width * k);
    small.height = Math.round(height * k);
    small.getContext('2d').drawImage(canvas, 0, 0, small.width, small.height);
    const theme = pageTheme();
    const picture = { width, height, theme, data: small.toDataURL('image/jpeg', 0.8) };
    if (training) Object.assign(picture, { step: training.step, steps: training.steps, hash: training.hash });
    // Only under the link the picture shows: the app's own words for what it shows
    // now (the address bar a reload reads) and, while that is still what the app
    // showed for the poster's link when it started, the poster's link (an iframe's
    // src). A host's attn:set, a pasted link or the reader's own change before the
    // picture was taken makes it a picture of another link.
    const shown = window.attn.ui().link;
    shell.posterSavedUnder = [];
    if (savePosterPicture(shown, picture)) shell.posterSavedUnder.push(shown);
    if (posterShown !== null && shown === posterShown && posterLink !== shown && savePosterPicture(posterLink, picture))
      shell.posterSavedUnder.push(posterLink);
    shell.posterSaved = shell.posterSavedUnder.length > 0;
  } catch (e) { /* a tainted or lost canvas: no picture this time */ }
}

// attnShell.posterPictures: the store's rules, for tests.
export const posterPictures = { save: savePosterPicture, load: loadPosterPicture };

function hidePoster() {
  posterWaiting = false;
  if (posterResize) posterResize.disconnect();
  posterResize = null;
  const main = document.getElementById('poster');
  if (main) main.remove();
  document.documentElement.classList.remove('poster');
}
function showPoster(link, run) {
  hidePoster();  // a link that arrived while a poster waited replaces it
  posterLink = link;
  posterWaiting = true;
  document.documentElement.classList.add('poster');
  const facts = posterFacts(link);
  const theme = pageTheme();
  const picture = facts.problems.length ? null : loadPosterPicture(link);
  const usePicture = picture && picture.theme === theme;  // never a dark picture on a light page
  const main = el('main', undefined, usePicture ? 'poster with-picture' : 'poster');
  main.id = 'poster';
  const title = facts.lesson ? facts.lesson.id + ' ' + facts.lesson.title : 'Attention playground';
  const stageLine = 'Stage ' + (facts.stage + 1) + ' of ' + posterNames.stages.length + ': ' + posterNames.stages[facts.stage];
  const card = el('div', undefined, 'card');
  if (usePicture) {
    const img = el('img');
    img.src = picture.data;
    img.alt = 'The playground as it looked at its last run here: ' + title + ', ' + stageLine;
    main.appendChild(img);
  }
  if (facts.problems.length) {  // the link's error, as the app would show it, not a card it does not open
    card.appendChild(el('p', 'Attention playground', 'kicker'));
    card.appendChild(el('h1', 'This link cannot be opened'));
    for (const problem of facts.problems) card.appendChild(el('p', problem, 'error'));
  } else {
    if (facts.lesson) card.appendChild(el('p', 'Attention playground', 'kicker'));
    card.appendChild(el('h1', title));
    if (facts.text) card.appendChild(el('p', '“' + facts.text + '”', 'sentence'));
    card.appendChild(el('p', stageLine, 'stage'));
  }
  const button = el('button', 'Run');
  button.type = 'button';
  button.id = 'poster-run';
  const row = el('div', undefined, 'run');
  row.appendChild(button);
  row.appendChild(el('p', 'Nothing is downloaded until you press Run', 'note'));
  card.appendChild(row);
  main.appendChild(card);
  document.body.insertBefore(main, document.body.firstChild);
  // Like a running embed, the poster tells its host how tall it wants to be:
  // the picture at the frame's width, or the card.
  const report = () => {
    if (!posterWaiting) return;
    const height = usePicture ? main.clientWidth * picture.height / picture.width : card.offsetHeight + 32;
    contentHeight(Math.max(height, 1));
  };
  if ('ResizeObserver' in window) (posterResize = new ResizeObserver(report)).observe(main);
  report();
  button.addEventListener('click', () => {
    hidePoster();
    shell.posterRun = true;
    document.getElementById('canvas').focus({ preventScroll: true });
    run();
  });
}

// At load: the poster, waiting for Run, or else the app at once (`run` starts it).
export function showPosterOrRun(run) {
  if (posterLink !== null) showPoster(posterLink, run);
  else run();
}

// A link that arrived while a poster waits for Run: shown instead, or the app
// started at once when it is no poster (links.js).
export function linkWhileWaiting(link, run) {
  if (!posterWaiting || link === posterLink) return;
  if (isPosterLink(link)) showPoster(link, run);
  else { hidePoster(); run(); }
}

// When main() is about to run with `link` (app.js): the poster's link is now that
// one, when it is a poster.
export function appStartsWith(link) {
  if (posterLink !== null && link !== posterLink) posterLink = isPosterLink(link) ? link : null;
}

// Right after main() (before any frame or message): how the app words the
// poster's link, unless the link had problems (the app then shows another).
export function noteHowAppShowsPoster() {
  if (posterLink === null || !window.attn) return;
  posterShown = window.attn.errors() === '' ? window.attn.ui().link : null;
}

// Right after a frame is drawn, while its pixels are still readable: the poster's picture.
export function afterFrame(canvas) {
  if (posterLink === null) return;
  capturePoster(canvas);
  if (!posterCaptured) wake();  // its frames are counted: the app stays awake until the picture is taken
}
