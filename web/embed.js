// Embedding: whether the page is in a host page's frame, and the messages it exchanges with that host.
//
// Inside an <iframe> the page talks to its parent with window.postMessage. The
// parent's origin comes from ?host=<origin> in the page's URL, else from
// document.referrer, else from the parent's first attn:* message. Only messages
// whose source is the parent window and whose origin is that origin are read;
// replies and notifications go to that origin only. Messages are plain data;
// nothing in them is ever evaluated.
//   host -> page  {type: 'attn:set', link}   link: a string of at most 65536 characters
//                                            (link_limits::max_link_bytes); applied as
//                                            window.attn.setExperiment does, but the host's
//                                            changes in a row make one undo step (a flood
//                                            keeps the reader's own); a problem, or a
//                                            read-only embed (view.readonly=1), is
//                                            answered {type: 'attn:error', errors: [...]}
//                 {type: 'attn:get'}         answered {type: 'attn:state', link}
//   page -> host  {type: 'attn:ready'}       once the first frame is drawn
//                 {type: 'attn:changed', link}  whenever the experiment changes
//                 {type: 'attn:resize', height} the CSS pixels the embed's content needs
//                                            (whole pixels, rounded up), whenever that changes
//                 {type: 'attn:train', step, target, steps, loss, accuracy, heldOutLoss,
//                  heldOutAccuracy, done, stopped, hash, phase, marks, error}
//                                            while a recipe's model trains (at most every
//                                            100 ms) and when it reaches its step (done,
//                                            hash: its weights' FNV-1a) or stops short of it
//                                            (stopped, done false, error: where and why,
//                                            e.g. a NaN loss). A recipe is a link:
//                                            attn:set with one trains it.
// Other attn:* types are answered with attn:error; anything else is ignored.
// A poster (view.poster=1, posters.js) loads nothing of the app until its Run
// button is pressed; until then it answers attn:set and attn:get with attn:error
// and sends attn:resize for its own card or picture.
import { MAX_LINK_CHARS, linkAtLoad, publishedLink } from './links.js';

function inFrame() {
  try { return window.self !== window.top; } catch (e) { return true; }
}
// "http://host:port" of a URL string, or null.
function httpOrigin(text) {
  try {
    const u = new URL(text);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : null;
  } catch (e) { return null; }
}
export const framed = inFrame();
export const embedded = framed || /(?:^|&)view\.embed=1(?:&|$)/.test(linkAtLoad);
let hostOrigin = null;
if (framed) {
  let param = null;
  try { param = new URLSearchParams(window.location.search).get('host'); } catch (e) { /* no ?host= */ }
  hostOrigin = (param && httpOrigin(param)) || httpOrigin(document.referrer);
}
// An <iframe sandbox> without allow-same-origin gives the page an opaque origin
// ('null'): it cannot fetch its own files or keep settings. sandbox.js (a classic
// script: these modules do not load there unless the host allows any origin) says
// what the host must allow; the page then starts nothing.
export const sandboxed = framed && window.origin === 'null' && /^https?:$/.test(window.location.protocol);

let training = null;  // the last attn:train the app reported (a recipe's model), else null
// The last progress of a recipe's training the app reported, or null.
export const lastTraining = () => training;

export function notifyHost(message) {
  if (!framed || !hostOrigin) return;
  try { window.parent.postMessage(message, hostOrigin); } catch (e) { /* the parent went away */ }
}

// attnShell.contentHeight: the CSS pixels the embed's content needs, to the host.
export function contentHeight(px) {
  const height = Math.ceil(Number(px));
  if (Number.isFinite(height) && height > 0) notifyHost({ type: 'attn:resize', height });
}

// attnShell.trainProgress: called by the app while a recipe's model trains; the host hears attn:train.
export function trainProgress(json) {
  let progress;
  try { progress = JSON.parse(String(json)); } catch (e) { return; }
  training = progress;  // a poster's picture waits for done
  notifyHost(Object.assign({ type: 'attn:train' }, progress));
}

function replyTo(event, message) {
  try { event.source.postMessage(message, event.origin); } catch (e) { /* the host went away */ }
}

// `app`: posterWaiting() (a poster waits for Run), setExperiment(link) (a host's
// attn:set: '' or the problems), followModel() (after a change: a model the new link names).
function onHostMessage(event, app) {
  if (event.source !== window.parent || event.origin === 'null') return;
  if (hostOrigin && event.origin !== hostOrigin) return;
  const m = event.data;
  if (!m || typeof m !== 'object' || Array.isArray(m) || typeof m.type !== 'string' || !m.type.startsWith('attn:')) return;
  if (!hostOrigin) hostOrigin = event.origin;  // no ?host= and no referrer: the parent's first message names it
  const error = (...errors) => replyTo(event, { type: 'attn:error', errors });
  if (!window.attn && app.posterWaiting()) return error('this embed is a poster (view.poster=1): it starts when the reader presses Run');
  if (m.type === 'attn:get') {
    let link = publishedLink();
    if (link === null && window.attn) link = window.attn.experiment();
    if (link === null) return error('the playground is still loading; wait for attn:ready');
    return replyTo(event, { type: 'attn:state', link });
  }
  if (m.type === 'attn:set') {
    if (typeof m.link !== 'string') return error('attn:set needs link: a string');
    if (m.link.length > MAX_LINK_CHARS) return error('the link is ' + m.link.length + ' characters; the limit is ' + MAX_LINK_CHARS);
    if (!window.attn) return error('the playground is still loading; wait for attn:ready');
    // A read-only embed stays what its author linked: the host cannot change it either.
    if (window.attn.ui().readonly) return error('this embed is read-only (view.readonly=1): attn:set cannot change it');
    let problems;
    try { problems = app.setExperiment(m.link); } catch (e) { problems = String(e && e.message || e); }
    const errors = String(problems || '').split('\n').filter((line) => line.trim() !== '');
    if (errors.length) error(...errors);
    else app.followModel();  // a model the new link names
    return;  // success shows up as attn:changed once the app publishes the new link
  }
  error('unknown message type ' + JSON.stringify(m.type.slice(0, 40)));
}

// An embed scrolled out of its host's view draws about 4 frames a second
// instead of 60 (enough to publish changes), so a page of embeds stays light.
let onScreen = true;
let lastIdleFrame = 0;
// Whether the app draws this frame (its preMainLoop).
export function frameWanted() {
  if (onScreen) return true;
  const now = performance.now();
  if (now - lastIdleFrame < 250) return false;  // skip this frame
  lastIdleFrame = now;
  return true;
}

// Marks the page as an embed, reads the host's messages (see the top; `app` as
// onHostMessage takes it) and watches whether the embed is on screen.
export function startEmbed(app) {
  if (embedded) document.documentElement.classList.add('embedded');
  if (framed) window.addEventListener('message', (event) => onHostMessage(event, app));
  if (embedded && 'IntersectionObserver' in window) {
    new IntersectionObserver((entries) => { onScreen = entries[entries.length - 1].isIntersecting; })
      .observe(document.getElementById('canvas'));
  }
}
