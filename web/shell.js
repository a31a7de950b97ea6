// The page shell: checks the browser can run the playground, downloads and
// compiles the WebAssembly with a progress bar, passes the URL hash to the app
// as its link (experiment + view.* keys), and exposes window.attn, the JS hook
// tests and embedders use. It requests nothing from any other host; the Chinese
// font (assets/) only when the app asks for it. After the first frame it
// registers sw.js, which keeps the site's files for offline use.
//
// window.attnShell: what the app (C++, src/platform/bridge_web.cpp) calls. None
// of these throws.
//   publishExperiment(link)   after each accepted change (the app throttles it to
//                             every 250 ms): the whole link text goes into the URL
//                             hash and, when embedded, to the host (attn:changed).
//   firstFrame()              once the first frame is drawn (then firstFrameSeen).
//   fetchFont(name)           fetches assets/<name> and hands it to the app.
//   copyText(text)            -> Promise<boolean>: the clipboard (navigator.clipboard,
//                             else a hidden textarea + execCommand('copy')).
//   download(filename, mimeType, bytes)  -> boolean: saves bytes (a Uint8Array,
//                             copied at once; or a string) as a file.
//   storageGet(key)           -> string or null; storageSet(key, value) -> boolean.
//                             localStorage, or nothing when it is disabled (private mode).
//   openUrl(url)              -> boolean: an http(s) URL in a new tab, noopener.
//   embedded                  true when the link has view.embed=1 or the page is in a frame.
//   textView(json)            the app's text mirror (src/ui/frame/text_mirror.hpp), when it
//                             changed (at most every 250 ms; every second while a model
//                             trains): rendered into #textview as headings, <table>s
//                             and lines; its summary is announced
//                             in the aria-live region #announce (at most once a second).
//   toggleTextView()          shows or hides the text view for everyone (View menu, skip button).
//   focusLabel(text)          the label of the control keyboard navigation is on ("" when
//                             not navigating): the canvas's accessible name follows it.
//   prefersLight              the system's prefers-color-scheme is light (kept up to date).
//   pageTheme('light'|'dark') the theme the app shows: the page's own elements follow it.
//   contentHeight(px)         an embed's content height in CSS pixels, when it changes:
//                             told to the host as attn:resize.
//   openModelFiles()          the file chooser (#model-files) for a llama2.c checkpoint and its
//                             tokenizer: both files are read and handed to the app
//                             (attn_hook_open_model), which checks them; nothing leaves the computer.
//   posterNames, posterPictures  a poster's copy of the app's names, and its picture
//                             store ({save, load}); see [Poster] below.
//
// window.attn: what tests and embedders call (each goes through the app's one
// change path, src/core/play/session.hpp). experiment() -> its text form;
// setExperiment(link) -> "" or the problems (the view stays); openLink(link) ->
// "" or the problems (the experiment and its view, as a pasted link opens);
// errors(), trace(), ui(), textView() (the text mirror's JSON, built now);
// keepRun(bytes) -> "" or why not: a trained run (trainer_save's bytes, as the
// [Runs] store keeps them) given to the app as a kept run would be.
//
// Embedding (docs/embedding.md): inside an <iframe> the page talks to its
// parent with window.postMessage. The parent's origin comes from ?host=<origin>
// in the page's URL, else from document.referrer, else from the parent's first
// attn:* message. Only messages whose source is the parent window and whose
// origin is that origin are read; replies and notifications go to that origin
// only. Messages are plain data; nothing in them is ever evaluated.
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
//                 {type: 'attn:train', step, target, steps, loss, accuracy, heldOutLoss,
//                  heldOutAccuracy, done, stopped, hash, phase, marks, error}
//                                            while a recipe's model trains (at most every
//                                            100 ms) and when it reaches its step (done,
//                                            hash: its weights' FNV-1a) or stops short of it
//                                            (stopped, done false, error: where and why,
//                                            e.g. a NaN loss). A recipe is a link:
//                                            attn:set with one trains it.
//                                            (whole pixels, rounded up), whenever that changes
// Other attn:* types are answered with attn:error; anything else is ignored.
// A poster (view.poster=1) loads nothing of the app until its Run button is
// pressed; until then it answers attn:set and attn:get with attn:error and
// sends attn:resize for its own card or picture.
'use strict';

(function () {
  const loading = document.getElementById('loading');
  const bar = document.getElementById('loading-bar');
  const text = document.getElementById('loading-text');

  function fatal(title, lines) {
    const el = document.getElementById('fatal');
    el.innerHTML = '';
    const box = document.createElement('div');
    box.className = 'box';
    const h = document.createElement('h1');
    h.textContent = title;
    box.appendChild(h);
    for (const line of lines) {
      const p = document.createElement('p');
      p.textContent = line;
      box.appendChild(p);
    }
    el.appendChild(box);
    el.hidden = false;
    loading.classList.add('done');
  }

  function progress(fraction, label) {
    bar.style.width = Math.round(Math.max(0, Math.min(1, fraction)) * 100) + '%';
    if (label) text.textContent = label;
  }

  // A tiny module using a v128 instruction: validates only where wasm SIMD exists.
  const simdProbe = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0,
    65, 0, 253, 15, 253, 98, 11]);

  function missingWasm() {
    if (typeof WebAssembly !== 'object') return ['WebAssembly'];
    return WebAssembly.validate(simdProbe) ? [] : ['WebAssembly SIMD'];
  }
  // Creating a WebGL 2 context waits for the GPU process (0.1–0.4 s with a software
  // GPU): done once, while the app's files download, on the app's own canvas, so
  // the app's GLFW window gets this context back instead of making a second one.
  // The attributes are what GLFW asks for by default (src/platform/main.cpp sets
  // no framebuffer hints): RGBA, depth and stencil, no multisampling.
  // The canvas gets its size in device pixels first (as bridge_canvas_size in
  // src/platform/bridge_web.cpp computes it, which the app's window then takes):
  // resizing a drawing buffer later is another wait of the same kind.
  function missingWebGL() {
    const canvas = document.getElementById('canvas');
    const box = canvas.getBoundingClientRect();
    if (box.width > 0 && box.height > 0) {
      const ratio = Math.fround(window.devicePixelRatio);  // a float, as the app has it
      canvas.width = Math.round(box.width * ratio);
      canvas.height = Math.round(box.height * ratio);
    }
    const gl = canvas.getContext('webgl2', { alpha: true, depth: true, stencil: true, antialias: false });
    return gl ? [] : ['WebGL 2'];
  }
  function refuse(missing) {
    fatal('This browser cannot run the playground', [
      'It needs ' + missing.join(' and ') + ', which this browser does not provide (or has turned off).',
      'Current versions of Chrome, Edge, Firefox and Safari all have them. If hardware acceleration is off, turning it on may help.',
    ]);
  }

  // Longest link handed to the app: link_limits::max_link_bytes (src/core/spec/link_codec.hpp).
  // A longer hash is cut to one character more, so the app still says it is too long.
  const MAX_LINK_CHARS = 65536;
  function capLink(link) {
    if (link.length <= MAX_LINK_CHARS) return link;
    let cut = MAX_LINK_CHARS + 1;
    const c = link.charCodeAt(cut - 1);
    if (c >= 0xd800 && c <= 0xdbff) cut--;  // never split a surrogate pair
    return link.slice(0, cut);
  }
  // The raw hash, never percent-decoded here (a malformed %-escape is the app's to report).
  const hash = capLink(window.location.hash.replace(/^#/, ''));

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
  const framed = inFrame();
  const embedded = framed || /(?:^|&)view\.embed=1(?:&|$)/.test(hash);
  if (embedded) document.documentElement.classList.add('embedded');
  let hostOrigin = null;
  if (framed) {
    let param = null;
    try { param = new URLSearchParams(window.location.search).get('host'); } catch (e) { /* no ?host= */ }
    hostOrigin = (param && httpOrigin(param)) || httpOrigin(document.referrer);
  }
  let lastLink = null;  // the last link the app published
  let hostSetExperiment = null;  // window.attn.setExperiment for a host's attn:set: set when the app runs
  let training = null;  // the last attn:train the app reported (a recipe's model), else null
  // The hash this page last wrote or read. A different one in the address bar
  // is a navigation (pasted link, back, forward) whose hashchange has not run
  // yet: publishing must not overwrite it, or a late publish of the old
  // experiment would land in the entry the reader just went to.
  let knownHash = window.location.hash;

  function notifyHost(message) {
    if (!framed || !hostOrigin) return;
    try { window.parent.postMessage(message, hostOrigin); } catch (e) { /* the parent went away */ }
  }

  // [Theme] Until the app says which theme it shows, the page guesses as the app
  // will (view.theme in the link, the remembered choice, the system's), so the
  // loading screen does not flash the other one.
  const lightQuery = window.matchMedia ? window.matchMedia('(prefers-color-scheme: light)') : null;
  let prefersLight = !!(lightQuery && lightQuery.matches);
  if (lightQuery && lightQuery.addEventListener) lightQuery.addEventListener('change', (e) => { prefersLight = e.matches; });
  function setPageTheme(name) { document.documentElement.classList.toggle('light', name === 'light'); }
  {
    const linked = /(?:^|&)view\.theme=(light|dark)(?:&|$)/.exec(hash);
    let remembered = null;
    try { remembered = window.localStorage.getItem('attn.theme'); } catch (e) { /* storage disabled */ }
    setPageTheme(linked ? linked[1] : remembered === 'light' || remembered === 'dark' ? remembered : prefersLight ? 'light' : 'dark');
  }

  // [Text view] The app's text mirror as HTML, built with textContent only.
  const textViewEl = document.getElementById('textview');
  const textBody = document.getElementById('tv-body');
  const announceEl = document.getElementById('announce');
  let lastSummary = '';
  let announceTimer = null;
  let lastAnnounced = 0;
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function renderTable(t) {
    if (!t.cells) {
      const p = el('p');
      p.appendChild(el('strong', t.caption));
      p.appendChild(document.createTextNode(' — ' + t.note));
      return p;
    }
    const table = el('table');
    table.appendChild(el('caption', t.caption));
    const head = el('thead');
    const hr = el('tr');
    hr.appendChild(el('td'));
    for (const c of t.cols) { const th = el('th', c); th.scope = 'col'; hr.appendChild(th); }
    head.appendChild(hr);
    table.appendChild(head);
    const body = el('tbody');
    t.cells.forEach((row, r) => {
      const tr = el('tr');
      const th = el('th', t.rows[r]);
      th.scope = 'row';
      tr.appendChild(th);
      for (const v of row) tr.appendChild(el('td', v));
      body.appendChild(tr);
    });
    table.appendChild(body);
    return table;
  }
  function renderTextView(doc) {
    const zh = doc.lang === 'zh';
    document.getElementById('tv-title').textContent = zh ? '文本视图' : 'Text view';
    document.getElementById('tv-close').textContent = zh ? '关闭文本视图' : 'Close the text view';
    textViewEl.setAttribute('aria-label', zh ? '文本视图' : 'Text view');
    textViewEl.lang = zh ? 'zh' : 'en';
    const parts = [el('p', doc.summary)];
    if (doc.errors.length) for (const e of doc.errors) parts.push(el('p', e, 'error'));
    if (doc.lesson) {
      parts.push(el('h2', doc.lesson.id + ' ' + doc.lesson.title));
      parts.push(el('p', doc.lesson.text));
      for (const line of doc.lesson.lines || []) parts.push(el('p', line));
      for (const t of doc.lesson.tables || []) parts.push(renderTable(t));
      if (doc.lesson.numbers.length && !(doc.lesson.lines || []).length) {  // a card's sentences say them in words
        const dl = el('dl');
        for (const [name, value] of doc.lesson.numbers) { dl.appendChild(el('dt', name)); dl.appendChild(el('dd', value)); }
        parts.push(dl);
      }
    }
    const s = doc.stage;
    parts.push(el('h2', (zh ? '阶段 ' : 'Stage ') + (s.index + 1) + ' / ' + s.count + ': ' + s.name));
    parts.push(el('p', s.formula, 'formula'));
    parts.push(el('p', s.explain));
    for (const t of doc.tables) parts.push(renderTable(t));
    if (doc.inspector.length) {
      parts.push(el('h2', zh ? '检查器' : 'Inspector'));
      for (const line of doc.inspector) parts.push(el('p', line, 'formula'));
    }
    if (doc.effect) parts.push(el('p', doc.effect));
    textBody.replaceChildren(...parts);
  }
  function announce(summary) {
    if (summary === lastSummary) return;
    lastSummary = summary;
    clearTimeout(announceTimer);
    const wait = Math.max(0, 1000 - (performance.now() - lastAnnounced));
    announceTimer = setTimeout(() => {
      lastAnnounced = performance.now();
      announceEl.textContent = lastSummary;
    }, wait);
  }
  function setTextViewOpen(open) {
    textViewEl.classList.toggle('open', open);
    textViewEl.classList.toggle('sr-only', !open);
    if (open) textViewEl.focus();
    else if (!framed) document.getElementById('canvas').focus();
  }
  // [Sleep] An idle app sleeps (src/platform/main.cpp, frame_rest: its main loop
  // paused, no animation frame) and runs a frame every tick meanwhile
  // (shell.sleep). Whatever may change what it shows wakes it: an input event,
  // a resize, the system's theme, a hook's call (Module.ccall, but for the
  // hooks that only read; wrapped when the runtime starts). Registered first,
  // on the window, capturing: before any listener can stop the event.
  let sleeps = 0, wakeable = false;  // wakeable: the runtime is up (wakeOnCalls)
  function wake() {
    if (!wakeable) return;
    shell.asleep = false;
    window.Module._attn_hook_wake();
  }
  for (const type of ['pointerdown', 'pointermove', 'pointerup', 'pointercancel', 'mousedown', 'mousemove', 'mouseup',
    'wheel', 'keydown', 'keyup', 'keypress', 'touchstart', 'touchmove', 'touchend', 'touchcancel', 'focus', 'blur',
    'focusin', 'focusout', 'resize', 'visibilitychange', 'paste', 'copy', 'cut', 'compositionstart', 'compositionupdate',
    'compositionend', 'contextmenu', 'dragover', 'drop', 'hashchange', 'popstate', 'message'])
    window.addEventListener(type, wake, { capture: true, passive: true });
  for (const query of ['(prefers-color-scheme: light)', '(pointer: coarse)', '(resolution: ' + window.devicePixelRatio + 'dppx)'])
    window.matchMedia(query).addEventListener('change', wake);
  if (window.ResizeObserver) new ResizeObserver(wake).observe(document.getElementById('canvas'));
  const hooksThatRead = new Set(['attn_hook_ui_state', 'attn_hook_trace_json', 'attn_hook_experiment', 'attn_hook_errors',
    'attn_hook_text_view', 'attn_hook_model_limits', 'attn_hook_train_hash']);
  function wakeOnCalls(M) {
    wakeable = true;
    const ccall = M.ccall;
    M.ccall = function (name, ...rest) {
      const result = ccall.call(this, name, ...rest);
      if (!hooksThatRead.has(name)) wake();
      return result;
    };
  }

  // The app (GLFW) listens for keys on the whole window and keeps Tab from
  // moving the focus. Keys typed into the page's own elements (the skip button,
  // the text view) are not the app's, and Tab from anywhere but the canvas moves
  // the focus as in any page. Registered before the app's listeners, so first.
  function keepKeysFromApp(e) {
    const t = e.target;
    const ours = t instanceof Element && t.closest('#textview, #skip, #fatal');
    // Shift+Tab on the canvas leaves it (for the skip button) unless the app is
    // navigating its controls by keyboard, where Shift+Tab steps back.
    const leaving = e.key === 'Tab' && e.shiftKey && t instanceof HTMLCanvasElement && window.Module && window.Module._attn_hook_keyboard_nav &&
      !window.Module._attn_hook_keyboard_nav();
    if (ours || leaving || (e.key === 'Tab' && !(t instanceof HTMLCanvasElement))) e.stopImmediatePropagation();
    // Stopped here, the event reaches no element's own listener: Escape is handled here.
    if (ours && e.type === 'keydown' && e.key === 'Escape' && textViewEl.classList.contains('open')) setTextViewOpen(false);
  }
  for (const type of ['keydown', 'keyup', 'keypress']) window.addEventListener(type, keepKeysFromApp, true);
  document.getElementById('skip').addEventListener('click', () => setTextViewOpen(true));
  document.getElementById('tv-close').addEventListener('click', () => setTextViewOpen(false));

  // [Touch] A finger on the canvas is the app's (src/ui/frame/touch.hpp: a tap clicks, a
  // swipe scrolls the panel under it and coasts, two fingers pinch a map): each
  // touch goes to attn_hook_touch in the canvas's device pixels. Emscripten's
  // GLFW would take a touch for a mouse button without a position (its touchmove
  // carries none), so its listeners never see one, and the browser makes no
  // mouse events of it (preventDefault). Registered on the window, capturing:
  // before the canvas's own listeners.
  const touchPhase = { touchstart: 0, touchmove: 1, touchend: 2, touchcancel: 3 };
  function forwardTouch(e) {
    const canvas = document.getElementById('canvas');
    if (e.target !== canvas) return;
    e.stopPropagation();
    if (e.cancelable) e.preventDefault();
    const M = window.Module;
    if (!M || !M._attn_hook_touch || !window.attn) return;
    const box = canvas.getBoundingClientRect();
    if (!box.width || !box.height) return;
    const kx = canvas.width / box.width, ky = canvas.height / box.height;
    for (const t of e.changedTouches)
      M._attn_hook_touch(touchPhase[e.type], t.identifier, (t.clientX - box.left) * kx, (t.clientY - box.top) * ky, e.timeStamp / 1000);
    if (e.type === 'touchstart' && document.activeElement !== canvas) canvas.focus({ preventScroll: true });
  }
  for (const type of Object.keys(touchPhase)) window.addEventListener(type, forwardTouch, { capture: true, passive: false });

  const canvasName = document.getElementById('canvas').getAttribute('aria-label') || 'Attention playground';
  let pendingTextView = null;  // the text mirror that came before the first frame
  const shell = {
    firstFrameSeen: false,
    // [Sleep]: whether the app sleeps now, its frames run (postMainLoop) and the
    // frames of its ticks among them.
    asleep: false,
    framesRun: 0,
    ticks: 0,
    sleep(ms) {
      shell.asleep = true;
      const id = ++sleeps;
      setTimeout(() => {
        if (id !== sleeps || !shell.asleep) return;  // woken meanwhile: this tick is an old sleep's
        shell.asleep = false;
        shell.ticks++;
        window.Module._attn_hook_tick();
      }, ms);
    },
    textView(json) {
      let doc;
      try { doc = JSON.parse(String(json)); } catch (e) { return; }
      // Before the first frame is on screen the page's layout of the text view
      // (tens of ms) would delay it: the first one waits for firstFrame.
      if (!shell.firstFrameSeen) { pendingTextView = doc; return; }
      renderTextView(doc);
      announce(doc.summary);
    },
    toggleTextView() { setTextViewOpen(!textViewEl.classList.contains('open')); },
    focusLabel(label) {
      const canvas = document.getElementById('canvas');
      label = String(label);
      canvas.setAttribute('aria-label', label ? canvasName + ': ' + label : canvasName);
    },
    get prefersLight() { return prefersLight; },
    pageTheme(name) { setPageTheme(String(name)); },
    contentHeight(px) {
      const height = Math.ceil(Number(px));
      if (Number.isFinite(height) && height > 0) notifyHost({ type: 'attn:resize', height });
    },
    embedded,
    // Called by the app for the trained runs this browser keeps ([Runs] below).
    runWanted(key, reach) { runs.wanted(String(key), Number(reach)); },
    get runs() { return { taken: runs.taken, refused: runs.refused.slice() }; },
    runStore(key, reach, bytes) { runs.stored = runs.store(String(key), Number(reach), bytes); },
    runTraining(key, training, awaited) { runs.training(String(key), !!training, !!awaited); },
    // Called by the app while a recipe's model trains: the host hears attn:train.
    trainProgress(json) {
      let progress;
      try { progress = JSON.parse(String(json)); } catch (e) { return; }
      training = progress;  // a poster's picture waits for done
      notifyHost(Object.assign({ type: 'attn:train' }, progress));
    },
    // Called by the app after each accepted change: keeps the link in the URL and tells the host.
    publishExperiment(link) {
      link = String(link);
      const changed = link !== lastLink;
      lastLink = link;
      try {
        const h = '#' + link;
        if (window.location.hash === knownHash && knownHash !== h) {
          history.replaceState(null, '', h);
          knownHash = window.location.hash;  // as the browser spells it (percent-encoded)
        }
      } catch (e) { /* a sandboxed frame may refuse history changes */ }
      if (changed) notifyHost({ type: 'attn:changed', link });
    },
    firstFrame() {
      shell.firstFrameSeen = true;
      loading.classList.add('done');
      if (pendingTextView) {
        const doc = pendingTextView;
        pendingTextView = null;
        renderTextView(doc);
        announce(doc.summary);
      }
      if (!framed) document.getElementById('canvas').focus();  // an embed must not scroll its host
      notifyHost({ type: 'attn:ready' });
      registerServiceWorker();
      models.start();
    },
    copyText(text) {
      text = String(text);
      const fallback = () => {
        let ok = false;
        try {
          const ta = document.createElement('textarea');
          ta.value = text;
          ta.setAttribute('readonly', '');
          ta.style.cssText = 'position:fixed;left:0;top:0;width:1px;height:1px;opacity:0;';
          document.body.appendChild(ta);
          ta.select();
          ok = document.execCommand('copy');
          ta.remove();
          document.getElementById('canvas').focus({ preventScroll: true });
        } catch (e) { ok = false; }
        return ok;
      };
      try {
        if (navigator.clipboard && navigator.clipboard.writeText)
          return navigator.clipboard.writeText(text).then(() => true, () => fallback());
      } catch (e) { /* fall through */ }
      return Promise.resolve(fallback());
    },
    download(filename, mimeType, bytes) {
      try {
        const name = String(filename || 'download').replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_').slice(0, 200) || 'download';
        // Copy: bytes may be a view of the wasm heap, which the app reuses or grows.
        const data = typeof bytes === 'string' ? bytes : new Uint8Array(bytes);
        const blob = new Blob([data], { type: String(mimeType || 'application/octet-stream') });
        const url = URL.createObjectURL(blob);
        const a = document.createElement('a');
        a.href = url;
        a.download = name;
        a.style.display = 'none';
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10000);
        return true;
      } catch (e) {
        console.warn('attn: download failed: ' + (e && e.message));
        return false;
      }
    },
    storageGet(key) {
      try {
        const v = window.localStorage.getItem(String(key));
        return v === null ? null : String(v);
      } catch (e) { return null; }
    },
    storageSet(key, value) {
      try {
        window.localStorage.setItem(String(key), String(value));
        return true;
      } catch (e) { return false; }
    },
    openUrl(url) {
      try {
        const u = new URL(String(url), document.baseURI);
        if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
        window.open(u.href, '_blank', 'noopener,noreferrer');
        return true;
      } catch (e) { return false; }
    },
    // The Model window's "Choose the two files…" (bridge_open_model_files): a click
    // on the hidden input, in the frame that answers the person's click (the
    // browser's user activation still holds).
    openModelFiles() {
      const input = document.getElementById('model-files');
      if (input) { input.value = ''; input.click(); }
    },
    // The chosen files handed to the app (models.hand), then kept in this
    // browser when the app opened them. One file, or more than two, is handed as
    // "not chosen": the app asks for both.
    // A file the browser will not read (Chromium refuses one of 2 GiB or more at
    // once) is said in the Model window with its name and size, never dropped.
    readModelFiles(files) {
      const list = Array.from(files || []);
      if (list.length !== 2) return Promise.resolve(models.hand([{ name: list.length === 1 ? list[0].name : '', bytes: null }, { name: '', bytes: null }]));
      const read = (f) => Promise.resolve().then(() => f.arrayBuffer()).catch((err) => {
        throw new Error(f.name + ' (' + (Number(f.size) / 1e6).toFixed(1) + ' MB) could not be read: ' +
          String((err && err.message) || err || 'the browser refused it'));
      });
      return Promise.all(list.map(read))
        .then((buffers) => models.openAndKeep(list.map((f, i) => ({ name: f.name, bytes: new Uint8Array(buffers[i]) })), true),
          (err) => models.say(String(err.message)));
    },
    // The Model window's Open / Remove of a kept model (bridge_kept_model).
    keptModel(action, key) {
      if (action === 'open') models.openKept(String(key));
      else if (action === 'remove') models.remove(String(key)).then(() => models.tell());
    },
    // Font files the app asked for: name -> 'loading' | 'loaded' | 'failed'.
    fonts: {},
    // Called by the app (bridge_fetch_font) the first time some text needs a
    // font not in attn.data: the Chinese one, ~400 KB gzip, so never up front.
    // Fetches assets/<name> from this site only and hands the bytes to the wasm
    // in a Module._malloc'd buffer, which the app then owns; on failure it says
    // why here and tells the app, which draws those characters as '?'.
    fetchFont(name) {
      const M = window.Module;
      const hand = (bytes) => {
        const ptr = bytes && bytes.length ? M._malloc(bytes.length) : 0;
        if (ptr) M.HEAPU8.set(bytes, ptr);
        M.ccall('attn_hook_font_received', null, ['string', 'number', 'number'], [name, ptr, ptr ? bytes.length : 0]);
        return ptr !== 0;
      };
      const report = (why) => {
        shell.fonts[name] = 'failed';
        console.error('attn: font ' + name + ' could not be loaded (' + why + '); characters the UI font lacks show as "?"');
      };
      const fail = (why) => { report(why); hand(null); };
      shell.fonts[name] = 'loading';
      const url = new URL('assets/' + name, document.baseURI);
      if (!/^[A-Za-z0-9_.-]+$/.test(name) || url.origin !== window.location.origin) {
        Promise.resolve().then(() => fail('not a font of this site'));  // answer outside the app's frame
        return;
      }
      fetch(url.href, { credentials: 'same-origin' })
        .then((r) => {
          if (!r.ok) throw new Error('HTTP ' + r.status);
          return r.arrayBuffer();
        })
        .then((buffer) => {
          if (!buffer.byteLength) return fail('empty file');
          if (hand(new Uint8Array(buffer))) shell.fonts[name] = 'loaded';
          else report('out of memory');
        }, (err) => fail(String(err.message || err)));
    },
  };
  window.attnShell = shell;

  // One IndexedDB object store (keyPath 'key') of this site: open() once, run() a transaction.
  const keptStore = (dbName, storeName) => ({
    db: null,
    open() {
      if (this.db) return this.db;
      this.db = new Promise((resolve, reject) => {
        if (!window.indexedDB) return reject(new Error('this browser gives the page no IndexedDB (a private window?)'));
        const r = indexedDB.open(dbName, 1);
        r.onupgradeneeded = () => r.result.createObjectStore(storeName, { keyPath: 'key' });
        r.onsuccess = () => {
          const db = r.result;
          // Closed under the page ("clear site data", another tab deleting the store):
          // the next use opens it again instead of failing until a reload.
          const forget = () => { if (this.db === opened) this.db = null; };
          db.onclose = forget;
          db.onversionchange = () => { db.close(); forget(); };
          resolve(db);
        };
        r.onerror = () => reject(r.error);
        r.onblocked = () => reject(new Error('the store is held by another tab'));
      });
      const opened = this.db;
      opened.catch(() => { if (this.db === opened) this.db = null; });
      return opened;
    },
    // One transaction; tried again once on a fresh connection when the last one
    // was closed under the page (the browser's InvalidStateError).
    run(mode, body, again = true) {
      return this.open().then((db) => new Promise((resolve, reject) => {
        const t = db.transaction(storeName, mode);
        const result = body(t.objectStore(storeName));
        t.oncomplete = () => resolve(result && 'result' in result ? result.result : undefined);
        t.onerror = () => reject(t.error);
        t.onabort = () => reject(t.error || new Error('the browser stopped the write'));
      })).catch((e) => {
        if (!again || !e || e.name !== 'InvalidStateError') throw e;
        this.db = null;
        return this.run(mode, body, false);
      });
    }
  });

  // [Models] real models the person opened (the Model window): each kept in this
  // browser's IndexedDB under name@hash (the first 16 hex digits of the
  // checkpoint's SHA-256, which a link's model= names), with its tokenizer and
  // that file's SHA-256, so a link that reads it opens it again here; never sent
  // anywhere. Without IndexedDB or crypto.subtle (a private window, an insecure
  // origin) models open but are not kept, and the Model window says so (as it
  // does when the store is full or was cleared).
  //
  // A kept tokenizer is trusted for a link only when the link names its hash
  // (tokenizer=name@hash, which the page writes whenever it names a model). A
  // link without tokenizer= (written before it existed) takes the tokenizer from
  // its tokenizer_url= (fetched again; the kept checkpoint is used), or, without
  // one, from the store only when the person chose that pair of files themselves
  // in this browser; otherwise the window asks for the files. So a link with
  // someone else's tokenizer_url= can never make a later link read that tokenizer.
  //
  // A link's model_url= is read no further than the checkpoint's header says the
  // file is (attn_hook_model_limits, after its first 256 bytes), and its
  // tokenizer_url= no further than the longest tokenizer that vocabulary allows:
  // a host answering endless bytes, with or without Content-Length, is stopped
  // with a message. Both are fetched with cache: 'no-store', which sw.js also
  // reads as "do not keep" (the model is kept here, once).
  const models = Object.assign(keptStore('attn-models', 'models'), {
    list() { return this.run('readonly', (s) => s.getAll()).catch(() => []); },
    remove(key) { return this.run('readwrite', (s) => s.delete(key)).catch(() => undefined); },
    // The kept models' names and sizes to the app (attn_hook_kept_models).
    tell() {
      return this.list().then((all) => {
        const clean = (t) => String(t).replace(/[\t\n]/g, ' ');
        const lines = all.map((m) => [m.key, clean(m.name), clean(m.tokenizer), m.ckpt.byteLength + m.tok.byteLength].join('\t'));
        window.Module.ccall('attn_hook_kept_models', null, ['string'], [lines.join('\n')]);
      });
    },
    sha256(bytes) {
      if (!(window.crypto && crypto.subtle)) return Promise.resolve('');
      return crypto.subtle.digest('SHA-256', bytes).then(
        (d) => Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join(''), () => '');
    },
    // A problem with files or a fetch, shown in the Model window (as a failed fetch is); returned.
    say(why) {
      window.Module.ccall('attn_hook_model_fetch', null, ['string', 'number', 'number', 'string'], ['', 0, 0, why]);
      return why;
    },
    // Two files ({name, bytes: Uint8Array or null, sha}) into Module._malloc'd
    // buffers (the app frees them); the app's answer: '' or why not.
    hand(files) {
      const M = window.Module;
      const ptrs = files.map((f) => {
        const p = f.bytes && f.bytes.length ? M._malloc(f.bytes.length) : 0;
        if (p) M.HEAPU8.set(f.bytes, p);
        return p;
      });
      if (files.some((f, i) => f.bytes && f.bytes.length && !ptrs[i])) {
        ptrs.forEach((p) => p && M._free(p));
        return 'these files do not fit in the page\'s memory';
      }
      const args = [];
      files.forEach((f, i) => args.push(f.name, ptrs[i], ptrs[i] ? f.bytes.length : 0, f.sha || ''));
      return M.ccall('attn_hook_open_model', 'string',
        ['string', 'number', 'number', 'string', 'string', 'number', 'number', 'string'], args);
    },
    // Hashes both (unless hashed already), hands them over, and keeps them when the
    // app opened them; `chosen`: the person picked these files here. The Model
    // window hears when they could not be kept.
    openAndKeep(files, chosen = false) {
      return Promise.all(files.map((f) => (f.sha !== undefined ? f.sha : this.sha256(f.bytes)))).then((shas) => {
        files.forEach((f, i) => { f.sha = shas[i]; });
        const why = this.hand(files);
        if (why) return why;
        const u = JSON.parse(window.Module.ccall('attn_hook_ui_state', 'string', [], [])).realModel;
        const ckpt = files.find((f) => f.name === u.name) || files[0];
        const tok = files.find((f) => f !== ckpt);
        const key = u.key || '';
        const notKept = (why) => window.Module.ccall('attn_hook_model_not_kept', null, ['string'], [why]);
        if (!key) return notKept('this page cannot compute SHA-256 here: https or localhost only'), '';
        return this.run('readwrite', (s) => s.put({ key, name: ckpt.name, tokenizer: tok.name, sha: ckpt.sha, tokSha: tok.sha,
          chosen, ckpt: ckpt.bytes.buffer, tok: tok.bytes.buffer, added: Date.now() }))
          .then(() => notKept(''), (e) => notKept(e && e.name === 'QuotaExceededError'
            ? 'the browser\'s storage for this site is full' : String((e && e.message) || e)))
          .then(() => this.tell()).catch(() => undefined).then(() => '');
      });
    },
    openKept(key) {
      return this.run('readonly', (s) => s.get(key)).then((m) => {
        if (!m) return this.say('this browser no longer keeps ' + key);
        return this.tokenizerSha(m).then((tokSha) => this.hand([{ name: m.name, bytes: new Uint8Array(m.ckpt), sha: m.sha },
          { name: m.tokenizer, bytes: new Uint8Array(m.tok), sha: tokSha }]));
      }).catch((e) => this.say(String((e && e.message) || e)));
    },
    // A kept model's tokenizer's SHA-256 (computed for one kept before it was stored).
    tokenizerSha(m) { return m.tokSha ? Promise.resolve(m.tokSha) : this.sha256(m.tok); },
    // Whether the kept model `m` is what the link (wanted() `w`) reads: see the top.
    trusts(m, w) {
      if (w.tokenizer) return this.tokenizerSha(m).then((sha) => sha !== '' && sha.slice(0, 16) === w.tokenizer.slice(w.tokenizer.lastIndexOf('@') + 1));
      return Promise.resolve(!w.tokenizerUrl && m.chosen === true);
    },
    // One address of the link's (model_url=, tokenizer_url=: percent-encoded, relative to the
    // page or http(s)) read whole, each step told to the app as `label`'s progress.
    // `limit(first)`: the most bytes the file may have, from its first bytes (at
    // least 256 when it has them), or throws why not; `limitSays`: what sets it.
    fetchBytes(value, label, tell, limit, limitSays) {
      let url;
      try {
        url = new URL(decodeURIComponent(value), document.baseURI);
      } catch (e) {
        return Promise.reject(new Error(label + ': \'' + value.slice(0, 80) + '\' is not an address this page can read'));
      }
      if (!/^https?:$/.test(url.protocol)) return Promise.reject(new Error(url.href + ' is not an http(s) address'));
      const signal = this.abort ? this.abort.signal : undefined;
      return fetch(url.href, { credentials: 'same-origin', signal, cache: 'no-store' }).catch(() => {
        if (signal && signal.aborted) throw new Error('stopped');
        throw new Error('could not fetch ' + url.href + ' (offline, or its host does not let this page read it: CORS)');
      }).then((r) => {
        if (!r.ok) throw new Error(url.href + ': HTTP ' + r.status + ' ' + r.statusText);
        const said = Number(r.headers.get('Content-Length')) || 0;
        const reader = r.body ? r.body.getReader() : null;
        let out = new Uint8Array(Math.min(said || (1 << 20), 1 << 20)), got = 0, told = 0, most = null;
        const tooLong = (n) => new Error(url.href + ' is ' + (n === said ? '' : 'more than ') + n + ' bytes, longer than ' + label +
          ' can be (' + most + ' bytes, ' + limitSays + '): stopped');
        const give = (part, room = 0) => {
          if (got + part.length > out.length || room > out.length) {  // grown by doubling, never past the limit
            const grown = new Uint8Array(Math.max(room, Math.min(Math.max(out.length * 2, got + part.length), most === null ? Infinity : most)));
            grown.set(out.subarray(0, got));
            out = grown;
          }
          out.set(part, got);
          got += part.length;
        };
        const pump = () => (reader ? reader.read() : r.arrayBuffer().then((b) => ({ done: false, value: new Uint8Array(b), last: true })))
          .catch((e) => { throw signal && signal.aborted ? new Error('stopped') : e; })
          .then(({ done, value: part, last }) => {
            if (!done) {
              if (most === null && got + part.length >= 256) {
                most = limit(concat(out.subarray(0, got), part));
                if (said > most) throw tooLong(said);  // the host says so itself: not one byte more
                if (said > out.length) give(new Uint8Array(0), said);  // the whole file's room at once
              }
              if (most !== null && got + part.length > most) throw tooLong(got + part.length);
              give(part);
              if (got - told >= (1 << 18)) { told = got; tell(label, got, said); }
              if (!last) return pump();
            }
            if (most === null) limit(out.subarray(0, got));  // a file shorter than 256 bytes: its header, or why not
            tell(label, got, said);
            return got === out.length ? out : out.slice(0, got);  // its own buffer, exactly the file (it is kept whole)
          });
        // Refused (no checkpoint, too long) or stopped: the rest is never downloaded.
        return pump().catch((e) => {
          if (reader) reader.cancel().catch(() => {});
          throw e;
        });
      });
    },
    // The most bytes of `name`: the checkpoint's by its header, or its tokenizer's by
    // the vocabulary; throws the core's reason when the bytes are no checkpoint.
    checkpointLimits(first, name) {
      const M = window.Module;
      const head = first.subarray(0, 256);
      const p = M._malloc(Math.max(1, head.length));
      if (!p) throw new Error('the page is out of memory');
      M.HEAPU8.set(head, p);
      const answer = JSON.parse(M.ccall('attn_hook_model_limits', 'string', ['number', 'number', 'string'], [p, head.length, name]));
      M._free(p);
      if (answer.error) throw new Error(answer.error);
      return answer;
    },
    // The link's model_url= and tokenizer_url= (a host's copies of the model it names):
    // fetched with their progress shown (the checkpoint only when `kept` lacks it),
    // the checkpoint's SHA-256 checked against model= and the tokenizer's against
    // tokenizer=, then opened and kept. '' or why not (also shown).
    fetchNamed(w, kept) {
      const M = window.Module;
      const tell = (file, got, total, error) => M.ccall('attn_hook_model_fetch', null,
        ['string', 'number', 'number', 'string'], [file, got, total, error || '']);
      const at = w.key.lastIndexOf('@');
      const name = w.key.slice(0, at), want = w.key.slice(at + 1);
      let tokName = 'tokenizer.bin';
      try { tokName = decodeURIComponent(w.tokenizerUrl).split(/[/?#]/).filter(Boolean).pop() || tokName; } catch (e) { /* said by fetchBytes */ }
      const wantTok = w.tokenizer ? w.tokenizer.slice(w.tokenizer.lastIndexOf('@') + 1) : '';
      let limits = null;
      const ckptLimit = (first) => (limits = this.checkpointLimits(first, name)).checkpoint;
      tell(kept ? tokName : name, 0, 0);
      this.abort = typeof AbortController === 'function' ? new AbortController() : null;
      const checkpoint = kept
        ? Promise.resolve().then(() => {
          const bytes = new Uint8Array(kept.ckpt);
          limits = this.checkpointLimits(bytes, name);
          return { bytes, sha: kept.sha };
        })
        : this.fetchBytes(w.url, name, tell, ckptLimit, 'as its header describes').then((bytes) => this.sha256(bytes).then((sha) => {
          if (!sha) throw new Error('this page cannot check the file\'s SHA-256 here (the browser gives crypto.subtle to https and localhost only)');
          if (sha.slice(0, 16) !== want) throw new Error('the file at ' + decodeURIComponent(w.url) + ' is not the model the link names: its SHA-256 starts ' + sha.slice(0, 16) + ', the link says ' + want);
          return { bytes, sha };
        }));
      return checkpoint.then((ckpt) => {
        tell(tokName, 0, 0);
        return this.fetchBytes(w.tokenizerUrl, tokName, tell, () => limits.tokenizer, 'the longest tokenizer for the checkpoint\'s vocabulary').then((tok) => this.sha256(tok).then((tokSha) => {
          if (wantTok && tokSha.slice(0, 16) !== wantTok)
            throw new Error('the file at ' + decodeURIComponent(w.tokenizerUrl) + ' is not the tokenizer the link names: its SHA-256 starts ' + tokSha.slice(0, 16) + ', the link says ' + wantTok);
          if (this.asks(this.wanted()) !== this.asks(w)) throw new Error('stopped');  // the link moved on meanwhile
          tell('', 0, 0);
          return this.openAndKeep([{ name, bytes: ckpt.bytes, sha: ckpt.sha }, { name: tokName, bytes: tok, sha: tokSha }]);
        }));
      }).catch((e) => {
        let why = String((e && e.message) || e);
        if (why === 'stopped') why = this.again ? '' : 'stopped fetching ' + name + ': open the files yourself, or reload the link to fetch them again';
        tell('', 0, 0, why);
        return why;
      }).finally(() => { this.abort = null; });
    },
    // The Model window's Stop while the link's files arrive.
    stop() {
      if (this.abort) this.abort.abort();
    },
    // After the first frame: the kept list to the app, then the model the link names
    // opened from this browser's store, or else fetched from the link's addresses.
    start() {
      if (!window.Module || !window.Module.ccall) return;
      this.tell().then(() => this.follow()).catch(() => undefined);
    },
    // The model the app's link names and has not opened: from this browser's store
    // (when it keeps what the link reads: see the top), or fetched from the link's
    // addresses — at start and after a link changes (a pasted link, back, a host's
    // attn:set). One at a time.
    // A link that asks for something else (another model, none, or the same model
    // with another tokenizer or address) while one is fetched or still being kept
    // stops that fetch, and the new one follows when it has ended.
    follow() {
      if (!window.Module || !window.Module.ccall) return Promise.resolve();
      const w = this.wanted();
      const asks = this.asks(w);
      if (this.following) {
        if (asks !== this.following) { this.again = true; this.stop(); }
        return Promise.resolve();
      }
      if (!w) return Promise.resolve();
      this.following = asks;
      return this.run('readonly', (s) => s.get(w.key)).catch(() => undefined).then((kept) => {
        if (!kept) return w.url ? this.fetchNamed(w, null) : undefined;
        return this.trusts(kept, w).then((trusted) => {
          if (trusted) return this.openKept(w.key);
          if (w.url) return this.fetchNamed(w, kept);  // the kept checkpoint, the link's tokenizer
          return undefined;  // the window asks for the files (the kept ones are listed there)
        });
      }).catch(() => undefined).finally(() => {
        this.following = null;
        if (this.again) { this.again = false; this.follow(); }
      });
    },
    // What a wanted() asks for, as one string ('' for nothing).
    asks(w) { return w ? JSON.stringify([w.key, w.tokenizer, w.url, w.tokenizerUrl]) : ''; },
    // The model the app's link names and has not opened ({key, tokenizer, url, tokenizerUrl}), or null.
    wanted() {
      return JSON.parse(window.Module.ccall('attn_hook_ui_state', 'string', [], [])).wantedModel;
    },
  });
  // [Runs] trained runs kept in this browser's IndexedDB ('attn-runs') under their
  // recipe's canonical text: a recipe trained once opens trained again on a
  // reload, in another tab or in another frame of a page, without training again.
  // The app asks for a recipe's run when it starts one (runWanted) and hands over a
  // run at its step that went further than the one kept (runStore): trainer_save's
  // bytes, which the core checks against its own arithmetic before it takes them
  // (src/core/train/trainer_file.hpp), so a run another build wrote is dropped here
  // and trained again. The record under '' lists the others' sizes: at most
  // runs.budget bytes together, the one stored longest ago goes first. Never sent
  // anywhere. A page that stores a run tells the site's other pages (a
  // BroadcastChannel), and one that is training that recipe takes it.
  //
  // One page of the site trains a recipe at a time (frames of one recipe on a
  // teacher's page, two tabs). The app asks when a recipe's run is made and
  // whenever its training starts again (Train pressed): a page that finds no run kept takes the Web Lock
  // 'attn-train <key>' while it trains that recipe (runTraining: the app says when it
  // trains), and stores its run before it lets go. A page that finds the lock held
  // tells the app (attn_hook_run_elsewhere: its Train panel says so, its run takes
  // no step), waits for the lock, then looks again: the other's run, stored, is
  // taken; none (that page closed or stopped), it trains itself.
  const runs = Object.assign(keptStore('attn-runs', 'runs'), {
    budget: 256 << 20,
    asked: '',
    taken: 0,      // runs the app took in place of training (for the tests: shell.runs)
    refused: [],   // why the app refused the ones it refused
    channel: null,
    waiting: '',   // the key whose lock another page holds, waited for
    held: null,    // { key, release } while this page holds a recipe's lock
    told: { key: '', training: false, awaited: false },  // the app's last runTraining
    stored: Promise.resolve(),  // the last store, done before a lock is let go
    listen() {
      if (this.channel || typeof BroadcastChannel === 'undefined') return;
      this.channel = new BroadcastChannel('attn-runs');
      this.channel.onmessage = (m) => {
        if (m.data && m.data.key === this.asked && this.waiting !== this.asked) this.offer(m.data.key, -1);
      };
    },
    // The kept run of `key` to the app, when it went further than `reach`: whether it took one.
    offer(key, reach) {
      // The list's entry first: a run that went no further is not read (17 MB for L9).
      return this.run('readonly', (s) => s.get('')).then((list) => {
        const entry = list && Array.isArray(list.list) ? list.list.find((e) => e.key === key) : null;
        if (!entry || (entry.reach !== undefined && entry.reach <= reach)) return null;
        return this.run('readonly', (s) => s.get(key));
      }).then((r) => {
        if (!r || r.reach <= reach || key !== this.asked) return false;
        const why = this.give(new Uint8Array(r.bytes));
        if (!why) this.taken++;
        if (why && !/went as far/.test(why)) {
          this.refused.push(why);
          return this.remove(key).then(() => false);  // another build's, or damaged: trained again
        }
        return !why;
      }).catch(() => false);
    },
    // The app started a run of `key` that reached `reach`: the kept one, when it
    // went further; else the lock, or the wait for the page that holds it; then
    // the answer, which the run waits for before its steps.
    wanted(key, reach) {
      this.listen();
      this.asked = key;
      if (this.held && this.held.key !== key) this.letGo();
      return this.settle(key, reach);
    },
    async settle(key, reach) {
      const M = window.Module;
      try {
        while (key === this.asked) {
          if (await this.offer(key, reach)) return;
          if (key !== this.asked || !navigator.locks || (this.held && this.held.key === key)) return;
          if (await this.hold(key)) {
            if (this.idle(key)) this.letGo();  // a run that stopped waiting (the app's 3 s): no lock
            return;
          }
          this.waiting = key;
          M.ccall('attn_hook_run_elsewhere', null, ['string'], [key]);  // its run takes no step meanwhile
          await navigator.locks.request('attn-train ' + key, () => undefined);  // until the other lets go
          this.waiting = '';
        }
      } catch (e) {
        this.waiting = '';  // no lock or no store: trained here
      } finally {
        if (key === this.asked) M.ccall('attn_hook_run_answered', null, ['string'], [key]);
      }
    },
    // The lock of `key`, when no other page holds it: kept until letGo.
    hold(key) {
      return new Promise((granted) => {
        navigator.locks.request('attn-train ' + key, { ifAvailable: true }, (lock) => {
          if (!lock) return granted(false);
          granted(true);
          return new Promise((release) => { this.held = { key, release }; });
        }).catch(() => granted(true));
      });
    },
    letGo() {
      const held = this.held;
      this.held = null;
      if (held) this.stored.finally(held.release);  // its run stored first: the waiting page finds it
    },
    // The app: whether it trains `key` now, and whether its run awaits the answer.
    training(key, training, awaited) {
      this.told = { key, training, awaited };
      if (this.held && (this.held.key !== key || this.idle(key))) this.letGo();
    },
    // Whether the app's last word on `key` says it neither trains it nor awaits its answer.
    idle(key) {
      const told = this.told;
      return told.key === key && !told.training && !told.awaited;
    },
    give(bytes) {
      const M = window.Module;
      const p = M._malloc(bytes.length);
      if (!p) return 'these bytes do not fit in the page\'s memory';
      M.HEAPU8.set(bytes, p);
      const why = M.ccall('attn_hook_keep_run', 'string', ['number', 'number'], [p, bytes.length]);
      M._free(p);
      return why;
    },
    // The list record and its entries {key, size, time}, changed by `edit(list, store)` in one transaction.
    edit(body) {
      return this.run('readwrite', (s) => {
        const got = s.get('');
        got.onsuccess = () => {
          const list = (got.result && Array.isArray(got.result.list)) ? got.result.list : [];
          s.put({ key: '', list: body(list, s) });
        };
      });
    },
    store(key, reach, bytes) {
      if (bytes.length > this.budget / 2) return Promise.resolve();
      return this.edit((list, s) => {
        s.put({ key, reach, bytes: bytes.buffer });
        list = list.filter((e) => e.key !== key).concat([{ key, reach, size: bytes.length, time: Date.now() }]);
        list.sort((a, b) => a.time - b.time);
        let total = list.reduce((n, e) => n + e.size, 0);
        while (total > this.budget && list.length > 1) {
          const old = list.shift();
          s.delete(old.key);
          total -= old.size;
        }
        return list;
      }).then(() => {
        if (this.channel) this.channel.postMessage({ key, reach });
      }).catch(() => undefined);
    },
    remove(key) {
      return this.edit((list, s) => { s.delete(key); return list.filter((e) => e.key !== key); }).catch(() => undefined);
    },
  });

  // Two byte arrays as one.
  function concat(a, b) {
    const out = new Uint8Array(a.length + b.length);
    out.set(a);
    out.set(b, a.length);
    return out;
  }
  shell.models = models;
  const modelInput = document.getElementById('model-files');
  if (modelInput) modelInput.addEventListener('change', () => { shell.readModelFiles(modelInput.files); });

  // [Embedding] messages from the host page: see the top of this file.
  function replyTo(event, message) {
    try { event.source.postMessage(message, event.origin); } catch (e) { /* the host went away */ }
  }
  function onHostMessage(event) {
    if (event.source !== window.parent || event.origin === 'null') return;
    if (hostOrigin && event.origin !== hostOrigin) return;
    const m = event.data;
    if (!m || typeof m !== 'object' || Array.isArray(m) || typeof m.type !== 'string' || !m.type.startsWith('attn:')) return;
    if (!hostOrigin) hostOrigin = event.origin;  // no ?host= and no referrer: the parent's first message names it
    const error = (...errors) => replyTo(event, { type: 'attn:error', errors });
    if (!window.attn && posterWaiting) return error('this embed is a poster (view.poster=1): it starts when the reader presses Run');
    if (m.type === 'attn:get') {
      let link = lastLink;
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
      try { problems = hostSetExperiment(m.link); } catch (e) { problems = String(e && e.message || e); }
      const errors = String(problems || '').split('\n').filter((line) => line.trim() !== '');
      if (errors.length) error(...errors);
      else models.follow();  // a model the new link names
      return;  // success shows up as attn:changed once the app publishes the new link
    }
    error('unknown message type ' + JSON.stringify(m.type.slice(0, 40)));
  }
  if (framed) window.addEventListener('message', onHostMessage);

  // [Links] A link pasted into the address bar of an open tab, or back/forward
  // between such links, opens that experiment as the app opens any link (an
  // undo step; a bad one is named on the app's banner). The app's own updates
  // use history.replaceState, which fires no hashchange.
  // A link that arrives before the app runs (while it downloads, or while a
  // poster waits for Run) is not dropped: the app starts with the address bar's
  // link as it is when main() runs (see onRuntimeInitialized), and a waiting
  // poster shows the new link instead (or starts the app, when the new link is no
  // poster), so the link the page was loaded with never overwrites it.
  function currentLink() { return capLink(window.location.hash.replace(/^#/, '')); }
  function onHashChange() {
    knownHash = window.location.hash;
    if (!window.attn) {
      if (posterWaiting && currentLink() !== posterLink) {
        if (isPosterLink(currentLink())) showPoster(currentLink(), startApp);
        else { hidePoster(); startApp(); }
      }
      return;
    }
    const link = currentLink();
    // Nothing to open when the app shows that link already. Compared with what it
    // shows now, not with the last link it published: publishing waits up to
    // 250 ms, and a back within that time would otherwise be taken for the app's
    // own link and then overwritten by the late publish of the one being left.
    let shown = lastLink;
    try { shown = window.attn.ui().link; } catch (e) { /* keep the last published */ }
    if (link === shown) return;
    window.attn.openLink(link === '' ? 'v=1' : link);  // no hash: the default experiment
    models.follow();  // a model the new link names
  }
  // (registered below [Poster], whose state it reads)

  // An embed scrolled out of its host's view draws about 4 frames a second
  // instead of 60 (enough to publish changes), so a page of embeds stays light.
  let onScreen = true;
  let lastIdleFrame = 0;
  if (embedded && 'IntersectionObserver' in window) {
    new IntersectionObserver((entries) => { onScreen = entries[entries.length - 1].isIntersecting; })
      .observe(document.getElementById('canvas'));
  }

  // [Offline] sw.js keeps this site's files (same origin only) for offline use.
  function registerServiceWorker() {
    if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
    if (window.location.protocol !== 'http:' && window.location.protocol !== 'https:') return;
    try {
      shell.serviceWorker = navigator.serviceWorker.register('sw.js').catch((e) => {
        console.warn('attn: offline use unavailable (' + (e && e.message) + ')');
        return null;
      });
    } catch (e) { /* e.g. a sandboxed frame */ }
  }

  // An <iframe sandbox> without allow-same-origin gives the page an opaque origin
  // ('null'): it cannot fetch its own files or keep settings. Say what the host must allow.
  if (framed && window.origin === 'null' && /^https?:$/.test(window.location.protocol)) {
    fatal('This embed is sandboxed too tightly', [
      'The page embedding the playground put it in an <iframe sandbox> without "allow-same-origin", so it cannot load its own files.',
      'The host page must allow both: <iframe sandbox="allow-scripts allow-same-origin" src="…">.',
    ]);
    return;
  }

  // [Poster] view.poster=1: a click-to-run embed. Nothing of the app (attn.js,
  // attn.wasm) is fetched until the reader presses Run. Until then the page shows
  // the picture this browser took on an earlier Run of the same link (kept in
  // localStorage, at most POSTER_KEEP links, the oldest dropped first), or a card
  // naming the lesson, the sentence and the stage. The app does not exist yet, so
  // the names are copied here (tests/web/a11y.test.mjs checks them against the
  // app's). Pictures are never built ahead of time: the lesson views need a GL
  // context that a build machine may lack; a host's first visit takes one.
  const POSTER_KEEP = 10;
  const POSTER_INDEX = 'attn.posters';  // the links with a picture, oldest first
  const posterKey = (link) => 'attn.poster:' + link;
  const posterNames = {
    stages: ['Tokens → X', 'Q, K, V', 'Scores Q·Kᵀ', 'Scale /√d_k', 'Mask', 'Softmax', 'Weights·V', 'Concat heads', '·W_O',
      'Residual (+ FFN)', 'Output'],
    defaultStage: 0,
    defaultText: 'the cat chased the dog',
    // src/ui/view/lessons.cpp (title) and src/core/play/lesson_preset.cpp (sentence, first stage)
    lessons: [
      { id: 'L1', title: 'Attention is a soft dictionary lookup', text: 'the cat chased the dog', stage: 5 },
      { id: 'L2', title: 'Why divide by √d_k', text: 'the cat chased the dog', stage: 3 },
      { id: 'L3', title: 'Multi-head attention is subspaces', text: 'the cat sat on the warm mat', stage: 5 },
      { id: 'L4', title: 'Without positions there is no order', text: '猫 追 狗', stage: 5 },
      { id: 'L5', title: 'O(n²) is structural', text: 'one two three four five six seven eight', stage: 5 },
      { id: 'L6', title: 'The whole core is thirty lines', text: 'the cat chased the dog', stage: 1 },
      { id: 'L7', title: 'Attention weights are not explanations', text: 'the cat chased the dog home', stage: 5 },
      { id: 'L8', title: 'Three classic bugs', text: 'the cat chased the dog', stage: 5 },
      { id: 'L9', title: 'Watch an induction head form', text: 'j a b c d e f g c d e f g', stage: 5 },
      { id: 'L10', title: 'A shortcut, not a circuit', text: 'j a b c d e f g c d e f g', stage: 5 },
      { id: 'L11', title: 'How the induction head works', text: 'j a b c d e f g c d e f g', stage: 10 },
      { id: 'L12', title: 'Learning in context', text: 'j a b c d e f g c d e f g', stage: 5 },
      { id: 'L13', title: 'A real model', text: 'Once upon a time there was a cat. Once upon a time', stage: 5 },
    ],
  };
  shell.posterNames = posterNames;  // what the card says: tests compare it with the app's names
  const isPosterLink = (link) => /(?:^|&)view\.poster=1(?:&|$)/.test(link);
  // The poster's link: the one shown while it waits, then the one the app started
  // with (when that is a poster); null for a page that is no poster.
  let posterLink = isPosterLink(hash) ? hash : null;
  // How the app words posterLink, as it showed it right after starting (null: the
  // link had problems, so the app shows another experiment). The picture goes under
  // posterLink only while the app still shows exactly that.
  let posterShown = null;
  let posterWaiting = false;
  let posterResize = null;  // the waiting poster's ResizeObserver

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
      const theme = document.documentElement.classList.contains('light') ? 'light' : 'dark';
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

  shell.posterPictures = { save: savePosterPicture, load: loadPosterPicture };  // for tests: the store's rules

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
    const theme = document.documentElement.classList.contains('light') ? 'light' : 'dark';
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
      shell.contentHeight(Math.max(height, 1));
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

  // [Start] Checks the browser, downloads the app and starts it: at once, or, for a
  // poster (view.poster=1), when the reader presses Run. attn.wasm, attn.data and
  // attn.js download side by side, and attn.wasm compiles while it downloads.
  //
  // Two builds of the same code, with the same bits: where the page is
  // cross-origin isolated (serve.py's COOP/COEP headers) the browser shares memory
  // with workers, and the threaded build (attn-mt.*) trains on every core, at
  // most 8, its workers started before main(); elsewhere (an embed in a page that
  // is not isolated, a host without the headers) the single-threaded attn.*.
  // A visitor downloads one of them.
  const cores = Math.max(1, Math.min(8, Number(navigator.hardwareConcurrency) || 1));
  let threaded = self.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function' && cores > 1;
  let appName = threaded ? 'attn-mt' : 'attn';
  shell.build = threaded ? 'threads' : 'single';
  // The threaded build that cannot start (a host without attn-mt.*, a browser
  // that shares memory but cannot compile or run its threads): the
  // single-threaded one instead, once, before main() ran. shell.fallback says why.
  // An app script once added runs whatever follows, and reads the global Module
  // when it does: the next attempt waits for it (appScript), so that it runs
  // with its own attempt's Module, whose failures are then stale.
  let attempt = 0, mainStarted = false, appScript = null;
  function fallBack(err) {
    if (!threaded || mainStarted) return false;
    shell.fallback = String((err && err.message) || err);
    console.warn('The threaded build did not start (' + shell.fallback + '): the single-threaded one instead.');
    threaded = false;
    appName = 'attn';
    shell.build = 'single';
    ++attempt;
    (appScript || Promise.resolve()).then(startApp);
    return true;
  }
  function startApp() {
    const mine = ++attempt;
    const stale = () => mine !== attempt;  // a failure of an attempt given up already
    const failed = (err) => stale() || fallBack(err) ||
      fatal('The playground could not load', [String((err && err.message) || err), 'Reload the page to try again.']);
    // The threaded script may throw where it runs, not abort: a shared memory
    // the browser refuses to make, a worker that cannot start. Until main()
    // runs, that is the threaded build failing too.
    if (threaded) {
      const name = appName + '.js';
      const onError = (event) => {
        if (mainStarted || stale()) {
          window.removeEventListener('error', onError);
          return;
        }
        if (!String(event.filename || '').endsWith(name)) return;
        window.removeEventListener('error', onError);
        failed(event.error || event.message);
      };
      window.addEventListener('error', onError);
    }
    const missing = missingWasm();
    if (missing.length) {
      refuse(missing);
      return;
    }

    // attn.wasm, compiled as it arrives (one branch of the body) while the other
    // branch is counted for the progress bar. Behind gzip, Content-Length counts the
    // compressed bytes and the body yields the decoded ones: no fraction is known then.
    function fetchAndCompileWasm(signal) {
      return fetch(appName + '.wasm', { signal }).then((response) => {
        if (!response.ok) throw new Error(appName + '.wasm: HTTP ' + response.status);
        if (!response.body || typeof WebAssembly.compileStreaming !== 'function')
          return response.arrayBuffer().then((bytes) => WebAssembly.compile(bytes));
        const encoding = response.headers.get('Content-Encoding');
        const total = encoding && encoding !== 'identity' ? 0 : Number(response.headers.get('Content-Length')) || 0;
        const [compileBody, countBody] = response.body.tee();
        const compiled = WebAssembly.compileStreaming(new Response(compileBody, { headers: { 'Content-Type': 'application/wasm' } }));
        const reader = countBody.getReader();
        let received = 0;
        const count = () => reader.read().then(({ done, value }) => {
          if (done) { progress(0.85, 'Compiling…'); return; }
          received += value.length;
          const kb = Math.round(received / 1024);
          progress(total ? 0.8 * received / total : 0.4, 'Downloading… ' + kb + (total ? ' / ' + Math.round(total / 1024) : '') + ' KB');
          return count();
        });
        return Promise.all([compiled, count()]).then(([module]) => module);
      });
    }
    const downloads = new AbortController();  // stopped if the browser turns out unable
    const wasmModule = fetchAndCompileWasm(downloads.signal);
    // Reported where it is awaited; the threaded build's falls back at once.
    const threadedAttempt = threaded;
    wasmModule.catch((err) => (threadedAttempt ? failed(err) : undefined));
    const dataPackage = fetch('attn.data', { signal: downloads.signal }).then((response) => {
      if (!response.ok) throw new Error('attn.data: HTTP ' + response.status);
      return response.arrayBuffer();
    });
    dataPackage.catch(() => {});
    const preload = document.createElement('link');
    preload.rel = 'preload';
    preload.as = 'script';
    preload.href = appName + '.js';
    document.head.appendChild(preload);

    const missingGL = missingWebGL();
    if (missingGL.length) {
      downloads.abort();
      preload.remove();
      refuse(missingGL);
      return;
    }
    const Module = {
      canvas: document.getElementById('canvas'),
      attnWorkers: threaded ? cores : 0,  // the threaded build's PTHREAD_POOL_SIZE: the pool's cores − 1 and training's own (CMakeLists.txt)
      arguments: hash ? ['--experiment', hash] : [],  // refreshed in onRuntimeInitialized
      // Right after main() (before any frame or message): how the app words the
      // poster's link, unless the link had problems (the app then shows another).
      postRun: [() => {
        if (posterLink === null || !window.attn) return;
        posterShown = window.attn.errors() === '' ? window.attn.ui().link : null;
      }],
      print: (s) => console.log(s),
      printErr: (s) => console.warn(s),
      preMainLoop() {
        if (onScreen) return true;
        const now = performance.now();
        if (now - lastIdleFrame < 250) return false;  // skip this frame
        lastIdleFrame = now;
        return true;
      },
      // Right after a frame is drawn, while its pixels are still readable.
      postMainLoop() {
        shell.framesRun++;
        if (posterLink === null) return;
        capturePoster(Module.canvas);
        if (!posterCaptured) wake();  // its frames are counted: the app stays awake until the picture is taken
      },
      onAbort: (what) => stale() || fallBack(what) || fatal('The playground stopped', [String(what)]),
      onRuntimeInitialized() {
        mainStarted = true;
        wakeOnCalls(Module);
        progress(1, 'Starting…');
        // main() reads these arguments next, in this task: the link in the address bar
        // now, so one pasted (or gone back to) while the app downloaded is the one it
        // opens. The same array (Emscripten's run() holds it), changed in place.
        const latest = currentLink();
        Module.arguments.splice(0, Module.arguments.length, ...(latest ? ['--experiment', latest] : []));
        if (posterLink !== null && latest !== posterLink) posterLink = isPosterLink(latest) ? latest : null;
        const call = (name, ...args) => Module.ccall(name, 'string', args.map(() => 'string'), args);
        // A C string ends at a NUL: refused here, or the app would apply what comes before it.
        // A string that is not text refused as a whole, as the core refuses invalid
        // UTF-8: a NUL (the C string would end there) or a lone UTF-16 surrogate
        // (its UTF-8 conversion would swallow the character after it).
        const nulProblem = (t) => {
          if (t.includes('\0'))
            return 'the link contains a NUL character at position ' + t.indexOf('\0') + '; a link never holds one (was it cut or corrupted?)\n';
          const lone = t.search(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
          return lone < 0 ? ''
            : 'the link contains a lone UTF-16 surrogate at position ' + lone + ' (half of a character); it is not text\n';
        };
        // A host's attn:set: its changes in a row are one undo step (the reader's own stay).
        hostSetExperiment = (t) => nulProblem(String(t)) || call('attn_hook_host_set_experiment', String(t));
        window.attn = {
          experiment: () => call('attn_hook_experiment'),
          setExperiment: (t) => nulProblem(String(t)) || call('attn_hook_set_experiment', String(t)),
          openLink: (t) => nulProblem(String(t)) || call('attn_hook_open_link', String(t)),
          errors: () => call('attn_hook_errors'),
          trace: () => JSON.parse(call('attn_hook_trace_json')),
          ui: () => JSON.parse(call('attn_hook_ui_state')),
          // The weights hash after `steps` training steps of a recipe (its own steps when omitted).
          trainHash: (recipe, steps = -1) =>
            Module.ccall('attn_hook_train_hash', 'string', ['string', 'number'], [String(recipe), Number(steps)]),
          textView: () => JSON.parse(call('attn_hook_text_view')),
          keepRun: (bytes) => runs.give(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)),
        };
      },
    };
    window.Module = Module;
    // Dear ImGui's GLFW backend listens for the wheel on the document, where
    // Chromium makes wheel listeners passive by default: its preventDefault (the
    // canvas scrolls its own panels, the page must not scroll) would be refused
    // with a console error on every turn of the wheel. Its listener, and only it,
    // is registered as not passive.
    const addListener = document.addEventListener;
    document.addEventListener = function (type, listener, options) {
      if (type === 'wheel' && typeof options !== 'object') options = { capture: Boolean(options), passive: false };
      return addListener.call(this, type, listener, options);
    };

    // Emscripten's hook: instantiate the module compiled above.
    Module.instantiateWasm = (imports, receiveInstance) => {
      wasmModule.then((module) => WebAssembly.instantiate(module, imports).then((instance) => receiveInstance(instance, module)))
        .catch(failed);
      return {};
    };
    // attn.js asks for its data package when it runs: handed the bytes fetched above.
    dataPackage.then((bytes) => {
      if (stale()) return;
      Module.getPreloadedPackage = () => bytes;
      const script = document.createElement('script');
      script.src = appName + '.js';
      const name = appName;
      appScript = new Promise((resolve) => {
        script.addEventListener('load', resolve);
        script.addEventListener('error', resolve);
      });
      script.onerror = () => stale() || fallBack(name + '.js failed to download') ||
        fatal('The playground could not load', [name + '.js failed to download. Reload the page to try again.']);
      document.body.appendChild(script);
    }).catch(failed);
  }

  window.addEventListener('hashchange', onHashChange);
  if (posterLink !== null) showPoster(posterLink, startApp);
  else startApp();
})();
