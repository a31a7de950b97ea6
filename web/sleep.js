// The sleeping app: an idle app pauses its main loop; whatever may change what it shows wakes it.
//
// [Sleep] An idle app sleeps (src/platform/main.cpp, frame_rest: its main loop
// paused, no animation frame) and runs a frame every tick meanwhile
// (attnShell.sleep). Whatever may change what it shows wakes it: an input event,
// a resize, the system's theme, a hook's call (Module.ccall, but for the
// hooks that only read; wrapped when the runtime starts). Registered first,
// on the window, capturing: before any listener can stop the event.
// attnShell.asleep: whether the app sleeps now; attnShell.ticks: the frames of its
// ticks (attnShell.framesRun, app.js, counts all its frames).
import { shell } from './page.js';

let sleeps = 0, wakeable = false;  // wakeable: the runtime is up (wakeOnCalls)
shell.asleep = false;
shell.ticks = 0;

export function wake() {
  if (!wakeable) return;
  shell.asleep = false;
  window.Module._attn_hook_wake();
}

// attnShell.sleep: the app sleeps; a frame in `ms` unless it is woken first.
export function sleep(ms) {
  shell.asleep = true;
  const id = ++sleeps;
  setTimeout(() => {
    if (id !== sleeps || !shell.asleep) return;  // woken meanwhile: this tick is an old sleep's
    shell.asleep = false;
    shell.ticks++;
    window.Module._attn_hook_tick();
  }, ms);
}

export function listenForWaking() {
  for (const type of ['pointerdown', 'pointermove', 'pointerup', 'pointercancel', 'mousedown', 'mousemove', 'mouseup',
    'wheel', 'keydown', 'keyup', 'keypress', 'touchstart', 'touchmove', 'touchend', 'touchcancel', 'focus', 'blur',
    'focusin', 'focusout', 'resize', 'visibilitychange', 'paste', 'copy', 'cut', 'compositionstart', 'compositionupdate',
    'compositionend', 'contextmenu', 'dragover', 'drop', 'hashchange', 'popstate', 'message'])
    window.addEventListener(type, wake, { capture: true, passive: true });
  for (const query of ['(prefers-color-scheme: light)', '(pointer: coarse)', '(resolution: ' + window.devicePixelRatio + 'dppx)'])
    window.matchMedia(query).addEventListener('change', wake);
  if (window.ResizeObserver) new ResizeObserver(wake).observe(document.getElementById('canvas'));
}

const hooksThatRead = new Set(['attn_hook_ui_state', 'attn_hook_trace_json', 'attn_hook_experiment', 'attn_hook_errors',
  'attn_hook_text_view', 'attn_hook_model_limits', 'attn_hook_model_folder_files', 'attn_hook_folder_limit', 'attn_hook_train_hash']);
// When the runtime is up: every hook's call through M.ccall, but for those that only read, wakes the app.
export function wakeOnCalls(M) {
  wakeable = true;
  const ccall = M.ccall;
  M.ccall = function (name, ...rest) {
    const result = ccall.call(this, name, ...rest);
    if (!hooksThatRead.has(name)) wake();
    return result;
  };
}
