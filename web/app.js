// The app: the browser checks, the wasm build downloaded and started (attn-mt.* or attn.*), and window.attn.
//
// window.attn: what tests and embedders call (each goes through the app's one
// change path, src/core/play/session.hpp). experiment() -> its text form;
// setExperiment(link) -> "" or the problems (the view stays); openLink(link) ->
// "" or the problems (the experiment and its view, as a pasted link opens);
// errors(), trace(), ui(), textView() (the text mirror's JSON, built now);
// trainHash(recipe, steps) -> the weights' hash after `steps` steps;
// keepRun(bytes) -> "" or why not: a trained run (trainer_save's bytes, as the
// [Runs] store keeps them, runs.js) given to the app as a kept run would be.
import { shell, canvas, fatal, progress } from './page.js';
import { linkAtLoad, currentLink } from './links.js';
import { frameWanted } from './embed.js';
import { wakeOnCalls } from './sleep.js';
import { appStartsWith, noteHowAppShowsPoster, afterFrame } from './posters.js';
import { runs } from './runs.js';

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
  const c = canvas();
  const box = c.getBoundingClientRect();
  if (box.width > 0 && box.height > 0) {
    const ratio = Math.fround(window.devicePixelRatio);  // a float, as the app has it
    c.width = Math.round(box.width * ratio);
    c.height = Math.round(box.height * ratio);
  }
  const gl = c.getContext('webgl2', { alpha: true, depth: true, stencil: true, antialias: false });
  return gl ? [] : ['WebGL 2'];
}
function refuse(missing) {
  fatal('This browser cannot run the playground', [
    'It needs ' + missing.join(' and ') + ', which this browser does not provide (or has turned off).',
    'Current versions of Chrome, Edge, Firefox and Safari all have them. If hardware acceleration is off, turning it on may help.',
  ]);
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
// A visitor downloads one of them. attnShell.build says which: 'threads' or 'single'.
const cores = Math.max(1, Math.min(8, Number(navigator.hardwareConcurrency) || 1));
let threaded = self.crossOriginIsolated === true && typeof SharedArrayBuffer === 'function' && cores > 1;
let appName = threaded ? 'attn-mt' : 'attn';
shell.build = threaded ? 'threads' : 'single';
shell.framesRun = 0;  // the app's frames run (postMainLoop)
// The threaded build that cannot start (a host without attn-mt.*, a browser
// that shares memory but cannot compile or run its threads): the
// single-threaded one instead, once, before main() ran. attnShell.fallback says why.
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

// Downloads and starts the app (see [Start] above).
export function startApp() {
  const mine = ++attempt;
  const stale = () => mine !== attempt;  // a failure of an attempt given up already
  const failed = (err) => stale() || fallBack(err) ||
    fatal('The playground could not load', [String((err && err.message) || err), 'Reload the page to try again.']);
  if (threaded) watchThreadedScript(appName + '.js', stale, failed);
  const missing = missingWasm();
  if (missing.length) {
    refuse(missing);
    return;
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
  const Module = makeModule(stale);
  window.Module = Module;
  wheelNotPassive();
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
    addAppScript(stale);
  }).catch(failed);
}

// The threaded script may throw where it runs, not abort: a shared memory
// the browser refuses to make, a worker that cannot start. Until main()
// runs, that is the threaded build failing too.
function watchThreadedScript(name, stale, failed) {
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

// Emscripten's Module for one attempt: the canvas, the link, and the page's part of each frame.
function makeModule(stale) {
  const Module = {
    canvas: canvas(),
    attnWorkers: threaded ? cores : 0,  // the threaded build's PTHREAD_POOL_SIZE: the pool's cores − 1 and training's own (CMakeLists.txt)
    arguments: linkAtLoad ? ['--experiment', linkAtLoad] : [],  // refreshed in onRuntimeInitialized
    // Right after main() (before any frame or message): how the app words the
    // poster's link, unless the link had problems (the app then shows another).
    postRun: [noteHowAppShowsPoster],
    print: (s) => console.log(s),
    printErr: (s) => console.warn(s),
    preMainLoop: frameWanted,  // an embed out of view draws fewer frames
    // Right after a frame is drawn, while its pixels are still readable.
    postMainLoop() {
      shell.framesRun++;
      afterFrame(Module.canvas);
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
      appStartsWith(latest);
      makeAttn(Module);
    },
  };
  return Module;
}

// A C string ends at a NUL: refused here, or the app would apply what comes before it.
// A string that is not text refused as a whole, as the core refuses invalid
// UTF-8: a NUL (the C string would end there) or a lone UTF-16 surrogate
// (its UTF-8 conversion would swallow the character after it).
function nulProblem(t) {
  if (t.includes('\0'))
    return 'the link contains a NUL character at position ' + t.indexOf('\0') + '; a link never holds one (was it cut or corrupted?)\n';
  const lone = t.search(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
  return lone < 0 ? ''
    : 'the link contains a lone UTF-16 surrogate at position ' + lone + ' (half of a character); it is not text\n';
}

let hostSet = null;  // the host's attn:set, once the app runs
// A host's attn:set (embed.js): its changes in a row are one undo step (the reader's own stay).
export const hostSetExperiment = (link) => hostSet(link);

// window.attn (see the top), on the runtime that just started.
function makeAttn(Module) {
  const call = (name, ...args) => Module.ccall(name, 'string', args.map(() => 'string'), args);
  hostSet = (t) => nulProblem(String(t)) || call('attn_hook_host_set_experiment', String(t));
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
}

// Dear ImGui's GLFW backend listens for the wheel on the document, where
// Chromium makes wheel listeners passive by default: its preventDefault (the
// canvas scrolls its own panels, the page must not scroll) would be refused
// with a console error on every turn of the wheel. Its listener, and only it,
// is registered as not passive.
function wheelNotPassive() {
  const addListener = document.addEventListener;
  document.addEventListener = function (type, listener, options) {
    if (type === 'wheel' && typeof options !== 'object') options = { capture: Boolean(options), passive: false };
    return addListener.call(this, type, listener, options);
  };
}

// attn.js (or attn-mt.js), which runs main() once the wasm is instantiated.
function addAppScript(stale) {
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
}
