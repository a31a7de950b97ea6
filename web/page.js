// The page's shared parts: window.attnShell (what the app calls), the loading screen, the fatal box, el().
//
// window.attnShell: what the app (C++, src/platform/bridge_web.cpp) calls; shell.js
// (the entry) gives it its calls, each from the module named here. None of them throws.
//   publishExperiment(link)   after each accepted change (the app throttles it to
//                             every 250 ms): the whole link text goes into the URL
//                             hash (links.js) and, when embedded, to the host (attn:changed).
//   firstFrame()              once the first frame is drawn (then firstFrameSeen).
//   fetchFont(name)           fetches assets/<name> and hands it to the app (services.js).
//   copyText(text)            -> Promise<boolean>: the clipboard (navigator.clipboard,
//                             else a hidden textarea + execCommand('copy')) (services.js).
//   download(filename, mimeType, bytes)  -> boolean: saves bytes (a Uint8Array,
//                             copied at once; or a string) as a file (services.js).
//   storageGet(key)           -> string or null; storageSet(key, value) -> boolean.
//                             localStorage, or nothing when it is disabled (private mode).
//   openUrl(url)              -> boolean: an http(s) URL in a new tab, noopener.
//   embedded                  true when the link has view.embed=1 or the page is in a frame (embed.js).
//   textView(json)            the app's text mirror (src/ui/frame/text_mirror.hpp), when it
//                             changed (at most every 250 ms; every second while a model
//                             trains): rendered into #textview as headings, <table>s
//                             and lines; its summary is announced
//                             in the aria-live region #announce (at most once a second) (textview.js).
//   toggleTextView()          shows or hides the text view for everyone (View menu, skip button).
//   focusLabel(text)          the label of the control keyboard navigation is on ("" when
//                             not navigating): the canvas's accessible name follows it.
//   prefersLight              the system's prefers-color-scheme is light (kept up to date) (theme.js).
//   pageTheme('light'|'dark') the theme the app shows: the page's own elements follow it.
//   contentHeight(px)         an embed's content height in CSS pixels, when it changes:
//                             told to the host as attn:resize (embed.js).
//   trainProgress(json)       while a recipe's model trains: told to the host as attn:train.
//   openModelFiles()          the file chooser (#model-files) for a llama2.c checkpoint and its
//                             tokenizer, or a Hugging Face folder's files; openModelFolder()
//                             the folder chooser (#model-folder): the files are read and
//                             handed to the app (attn_hook_open_model_files), which checks
//                             them; nothing leaves the computer (models.js, with
//                             readModelFiles, keptModel and models; folders.js).
//   runWanted, runStore, runTraining, runs  the trained runs this browser keeps (runs.js).
//   sleep(ms)                 the app sleeps: a frame every tick until woken (sleep.js).
//   posterNames, posterPictures  the app's names a poster shows (lesson-names.js), and its
//                             picture store ({save, load}) (posters.js).
// The modules keep their state here where tests read it: firstFrameSeen, asleep,
// framesRun, ticks, fonts, build, fallback, posterSaved, posterSavedUnder, posterRun.
// shell.js sets window.attnShell once the object has all its calls (a page's init
// script may wrap them as it is set, as bench/run.mjs does firstFrame).
export const shell = {
  firstFrameSeen: false,
  // Font files the app asked for: name -> 'loading' | 'loaded' | 'failed' (services.js).
  fonts: {},
};

const loading = document.getElementById('loading');
const bar = document.getElementById('loading-bar');
const text = document.getElementById('loading-text');

export const canvas = () => document.getElementById('canvas');

export function fatal(title, lines) {
  const box = el('div', undefined, 'box');
  box.appendChild(el('h1', title));
  for (const line of lines) box.appendChild(el('p', line));
  const fatalEl = document.getElementById('fatal');
  fatalEl.replaceChildren(box);
  fatalEl.hidden = false;
  loading.classList.add('done');
}

export function progress(fraction, label) {
  bar.style.width = Math.round(Math.max(0, Math.min(1, fraction)) * 100) + '%';
  if (label) text.textContent = label;
}

// The loading screen fades out (the first frame is on screen).
export function loaded() { loading.classList.add('done'); }

// An element with its text (set as textContent, never as HTML) and class.
export function el(tag, content, cls) {
  const e = document.createElement(tag);
  if (content !== undefined) e.textContent = content;
  if (cls) e.className = cls;
  return e;
}
