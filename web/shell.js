// The page shell: checks the browser can run the playground, downloads and
// compiles the WebAssembly with a progress bar, passes the URL hash to the app
// as its experiment, and exposes window.attn, the JS hook tests and embedders
// use. It requests nothing from any other host; the Chinese font (assets/)
// only when the app asks for it.
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

  function missingFeatures() {
    const missing = [];
    if (typeof WebAssembly !== 'object') missing.push('WebAssembly');
    else if (!WebAssembly.validate(simdProbe)) missing.push('WebAssembly SIMD');
    const probe = document.createElement('canvas');
    if (!probe.getContext('webgl2')) missing.push('WebGL 2');
    return missing;
  }

  const shell = {
    firstFrameSeen: false,
    // Called by the app after each accepted change: keeps the experiment in the URL.
    publishExperiment(experimentText) {
      const hash = '#' + experimentText;
      if (window.location.hash !== hash) history.replaceState(null, '', hash);
    },
    firstFrame() {
      shell.firstFrameSeen = true;
      loading.classList.add('done');
      document.getElementById('canvas').focus();
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

  const missing = missingFeatures();
  if (missing.length) {
    fatal('This browser cannot run the playground', [
      'It needs ' + missing.join(' and ') + ', which this browser does not provide (or has turned off).',
      'Current versions of Chrome, Edge, Firefox and Safari all have them. If hardware acceleration is off, turning it on may help.',
    ]);
    return;
  }

  // Downloads attn.wasm with progress, then hands the bytes to the Emscripten module.
  async function fetchWasm() {
    const response = await fetch('attn.wasm');
    if (!response.ok) throw new Error('attn.wasm: HTTP ' + response.status);
    const total = Number(response.headers.get('Content-Length')) || 0;
    if (!response.body || !total) return new Uint8Array(await response.arrayBuffer());
    const reader = response.body.getReader();
    const chunks = [];
    let received = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      received += value.length;
      progress(0.8 * received / total, 'Downloading… ' + Math.round(received / 1024) + ' / ' + Math.round(total / 1024) + ' KB');
    }
    const bytes = new Uint8Array(received);
    let offset = 0;
    for (const c of chunks) { bytes.set(c, offset); offset += c.length; }
    return bytes;
  }

  const hash = window.location.hash.replace(/^#/, '');
  const Module = {
    canvas: document.getElementById('canvas'),
    arguments: hash ? ['--experiment', hash] : [],
    print: (s) => console.log(s),
    printErr: (s) => console.warn(s),
    setStatus: () => {},
    onAbort: (what) => fatal('The playground stopped', [String(what)]),
    onRuntimeInitialized() {
      progress(1, 'Starting…');
      const call = (name, ...args) => Module.ccall(name, 'string', args.map(() => 'string'), args);
      window.attn = {
        experiment: () => call('attn_hook_experiment'),
        setExperiment: (t) => call('attn_hook_set_experiment', String(t)),
        errors: () => call('attn_hook_errors'),
        trace: () => JSON.parse(call('attn_hook_trace_json')),
        ui: () => JSON.parse(call('attn_hook_ui_state')),
      };
    },
  };
  window.Module = Module;

  fetchWasm().then((bytes) => {
    progress(0.85, 'Compiling…');
    Module.wasmBinary = bytes;
    const script = document.createElement('script');
    script.src = 'attn.js';
    script.onerror = () => fatal('The playground could not load', ['attn.js failed to download. Reload the page to try again.']);
    document.body.appendChild(script);
  }).catch((err) => fatal('The playground could not load', [String(err.message || err), 'Reload the page to try again.']));
})();
